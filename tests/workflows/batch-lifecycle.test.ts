import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { BatchTaskState, BatchTaskStatus } from '../../src/shared/batch-state.js';
import { emptyUsage } from '../../src/shared/conversation.js';
import { BatchBudget } from '../../src/workflows/batch/budget.js';
import { InFlight } from '../../src/workflows/batch/in-flight.js';
import { readyOnceMerged } from '../../src/workflows/batch/scheduler.js';
import * as lifecycle from '../../src/workflows/batch/task-lifecycle.js';
import type { FinishedReport } from '../../src/shared/batch-state.js';

const task = (id: string, status: BatchTaskStatus = 'pending', dependsOn: string[] = []): BatchTaskState => ({
  id,
  title: `Task ${id}`,
  dependsOn,
  status,
  childWorkflowId: `batch/${id}`,
  attempts: 0,
});
const report = (status: FinishedReport['status'], reason?: string): FinishedReport => ({
  kind: 'finished',
  workflowId: 'batch/a',
  status,
  iterations: 3,
  usage: { ...emptyUsage(), inputTokens: 10 },
  costUsd: 0.5,
  reason,
});

describe('a batch task goes through its lifecycle', () => {
  test('pending → running → merging → completed sets readiness, the child figures and the end, in that order', () => {
    const state = task('a');
    lifecycle.start(state);
    expect(state).toMatchObject({ status: 'running', readyAt: expect.any(Number) });
    lifecycle.beginAttempt(state, 'codeloop/b/a');
    lifecycle.childStarted(state);
    expect(state).toMatchObject({ attempts: 1, branch: 'codeloop/b/a', startedAt: expect.any(Number) });
    lifecycle.noteBlockers(state, [{ id: 'b1', question: 'Which port?' }]);
    expect(state.blockedOn).toEqual([{ id: 'b1', question: 'Which port?' }]);
    lifecycle.finish(state, report('completed'));
    expect(state).toMatchObject({ status: 'merging', iterations: 3, costUsd: 0.5, finishedAt: expect.any(Number) });
    expect(state.blockedOn).toBeUndefined();
    expect(state.endedAt).toBeUndefined();
    lifecycle.merged(state);
    expect(state).toMatchObject({ status: 'completed', endedAt: expect.any(Number) });
  });

  test.each([
    ['failed', 'budget_exhausted'],
    ['cancelled', 'cancelled'],
  ] as const)('a child that ends %s ends the task with its reason and end time', (status, reason) => {
    const state = task('a', 'running');
    lifecycle.finish(state, report(status, reason));
    expect(state).toMatchObject({ status, reason, endedAt: expect.any(Number), finishedAt: expect.any(Number), iterations: 3 });
  });

  test('going back to pending clears the reason and the end, and keeps when it was first ready', () => {
    const state = task('a', 'running');
    state.readyAt = 1;
    lifecycle.finish(state, report('failed', 'boom'));
    lifecycle.requeue(state);
    expect(state).toMatchObject({ status: 'pending', readyAt: 1 });
    expect(state.reason).toBeUndefined();
    expect(state.endedAt).toBeUndefined();
    lifecycle.start(state);
    expect(state.readyAt).toBe(1);
  });

  test('a question the child reports before the batch sees it started stays shown; a new attempt starts with none', () => {
    const state = task('a');
    lifecycle.start(state);
    lifecycle.beginAttempt(state, 'codeloop/b/a');
    // The child's report and its start reach the batch in one workflow task, and signals are handled first.
    lifecycle.noteBlockers(state, [{ id: 'b1', question: 'Host h has not started "open workspace"' }]);
    lifecycle.childStarted(state);
    expect(state.blockedOn).toEqual([{ id: 'b1', question: 'Host h has not started "open workspace"' }]);
    lifecycle.beginAttempt(state, 'codeloop/b/a');
    expect(state).toMatchObject({ attempts: 2, blockedOn: undefined });
  });

  test('only a running task is blocked', () => {
    const state = task('a', 'merging');
    lifecycle.noteBlockers(state, [{ id: 'b1', question: 'Which port?' }]);
    expect(state.blockedOn).toBeUndefined();
  });

  test.each([
    ['completed', (state: BatchTaskState) => lifecycle.start(state)],
    ['completed', (state: BatchTaskState) => lifecycle.cancel(state)],
    ['pending', (state: BatchTaskState) => lifecycle.merged(state)],
    ['running', (state: BatchTaskState) => lifecycle.skip(state, 'dependency x did not complete')],
    ['skipped', (state: BatchTaskState) => lifecycle.finish(state, report('completed'))],
    ['failed', (state: BatchTaskState) => lifecycle.failMerge(state, 'merge conflict in a.txt')],
  ] as const)('a %s task refuses an illegal move, naming it, and stays as it was', (status, moveIt) => {
    const state = task('a', status);
    const error = (() => {
      try {
        moveIt(state);
      } catch (caught) {
        return caught;
      }
    })() as ApplicationFailure;
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toMatch(new RegExp(`^batch task a cannot go from ${status} to \\w+; this is a bug in the batch conductor`));
    expect(state.status).toBe(status);
  });

  test.each([
    ['pending', true],
    ['running', true],
    ['merging', true],
    ['completed', false],
    ['failed', false],
    ['skipped', false],
  ] as const)('a %s task can be cancelled with the batch: %s', (status, expected) => {
    expect(lifecycle.canMove(task('a', status), 'cancelled')).toBe(expected);
  });
});

describe('readyOnceMerged', () => {
  const states = [
    task('a', 'merging'),
    task('b', 'merging'),
    task('done', 'completed'),
    task('x', 'running'),
    task('afterA', 'pending', ['a']),
    task('afterAandB', 'pending', ['a', 'b', 'done']),
    task('afterAandX', 'pending', ['a', 'x']),
    task('afterDone', 'pending', ['done']),
    task('running', 'running', ['a']),
  ];

  test('names the pending dependents with nothing left but the merging tasks, and which of those each waits for', () => {
    expect(readyOnceMerged(states, ['a', 'b'], 'skip-dependents')).toEqual([
      { taskId: 'afterA', after: ['a'] },
      { taskId: 'afterAandB', after: ['a', 'b'] },
    ]);
  });

  test('a dependent of several merging tasks is not ready when only one of them merges', () => {
    expect(readyOnceMerged(states, ['a'], 'skip-dependents')).toEqual([{ taskId: 'afterA', after: ['a'] }]);
  });

  test('under continue, a settled dependency counts as done', () => {
    const failed = states.map((state) => (state.id === 'x' ? { ...state, status: 'failed' as const } : state));
    expect(readyOnceMerged(failed, ['a'], 'continue').map(({ taskId }) => taskId)).toEqual(['afterA', 'afterAandX']);
  });
});

describe('InFlight', () => {
  test('counts work until it settles, however it settles', async () => {
    const inFlight = new InFlight();
    let finish!: () => void;
    const running = inFlight.run('git', () => new Promise<void>((resolve) => (finish = resolve)));
    const failing = inFlight.run('start', () => Promise.reject(new Error('no worktree')));
    expect(inFlight.idle('git')).toBe(false);
    await expect(failing).rejects.toThrow('no worktree');
    expect(inFlight.idle('start')).toBe(true);
    expect(inFlight.idle()).toBe(false);
    finish();
    await running;
    expect(inFlight.idle()).toBe(true);
  });

  test('a launched failure with no handler of its own is kept as the fault, the first one only', async () => {
    const inFlight = new InFlight();
    inFlight.launch('git', () => Promise.reject(new Error('first')));
    inFlight.launch('git', () => Promise.reject(new Error('second')));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((inFlight.fault as Error).message).toBe('first');
    expect(inFlight.idle()).toBe(true);
  });
});

describe('a task that runs more than once', () => {
  const rerun = (countsEveryRun: boolean) => {
    const state = task('a', 'running');
    lifecycle.finish(state, report('failed', 'boom'), false, countsEveryRun);
    lifecycle.requeue(state);
    lifecycle.start(state);
    return state;
  };

  test('adds each run to its figures, so the batch totals count every run', () => {
    const state = rerun(true);
    lifecycle.finish(state, report('completed'), false, true);
    expect(state).toMatchObject({ status: 'merging', iterations: 6, costUsd: 1, usage: { inputTokens: 20 } });
  });

  test('in a run from before that, its last run replaced the figures', () => {
    const state = rerun(false);
    lifecycle.finish(state, report('completed'), false, false);
    expect(state).toMatchObject({ iterations: 3, costUsd: 0.5 });
  });

  test("counts the earlier runs and the running one's reported spend against the budget, and keeps both when stopped", () => {
    const state = rerun(true);
    const budget = new BatchBudget(2, undefined, true);
    budget.noteSpend('a', { costUsd: 0.25, byPurpose: { default: { costUsd: 0.25, calls: 1, usage: emptyUsage() } } });
    expect(budget.spent([state]).spentUsd).toBe(0.75);
    budget.settle(state);
    expect(state.costUsd).toBe(0.75);
    lifecycle.stopAtDeadline(state, 'stopped at the budget');
    expect(budget.spent([state]).spentUsd).toBe(0.75);
    const before = new BatchBudget(2, undefined, false);
    before.noteSpend('a', { costUsd: 0.25, byPurpose: {} });
    expect(before.spent([rerun(false)]).spentUsd).toBe(0.25);
  });
});
