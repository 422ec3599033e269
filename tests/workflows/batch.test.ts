import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { BatchResult, BatchStateSnapshot } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { answerBlockerSignal, getBatchStateQuery, retryTaskSignal } from '../../src/workflows/messages.js';
import { byTask, byTurn, type Responder, type ScriptedTurn } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch');

const startBatch = (input: Record<string, unknown>, workflowId = uniqueName('batch')) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId,
  });

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });
const done: Responder = () => ({ text: 'done' });
const creates = (file: string, content: string): Responder => byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content } }] }, { text: 'done' }]);
const fails: Responder = () => ({ error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } });

/** Resolves after `ms`, then answers: a task that is still running while the others move on. */
const slow = (ms: number, responder: Responder): Responder => async (request) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return responder(request);
};

async function waitForBatch(handle: { query: (q: typeof getBatchStateQuery) => Promise<BatchStateSnapshot> }, predicate: (state: BatchStateSnapshot) => boolean) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await handle.query(getBatchStateQuery).catch(() => undefined);
    if (state && predicate(state)) return state;
    if (Date.now() > deadline) throw new Error(`batch state never matched: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe('DAG validation', () => {
  test.each([
    ['duplicate ids', [task('a'), task('a')], 'invalid batch: duplicate task id: a'],
    ['unknown dependency', [task('a', ['zz'])], 'invalid batch: task a depends on unknown task zz'],
    ['self-dependency', [task('a', ['a'])], 'invalid batch: task a depends on itself'],
    ['cycle', [task('a', ['c']), task('b', ['a']), task('c', ['b'])], 'invalid batch: cycle: a → b → c → a'],
  ])('%s is rejected before anything starts', async (_kind, tasks, message) => {
    const handle = await startBatch({ workspace: makeGitRepo(), tasks });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error.cause as ApplicationFailure).message).toBe(message);
    expect((error.cause as ApplicationFailure).type).toBe('InvalidBatch');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.some((event) => event.activityTaskScheduledEventAttributes || event.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);
  });
});

describe('scheduling', () => {
  test('a diamond starts d only after b and c, and merges everything into the integration branch', async () => {
    harness.fake.setResponder(byTask({ 'Task a': creates('a.txt', 'a'), 'Task b': creates('b.txt', 'b'), 'Task c': slow(1_000, creates('c.txt', 'c')), 'Task d': creates('d.txt', 'd') }));
    const repo = makeGitRepo();
    const handle = await startBatch({ workspace: repo, tasks: [task('a'), task('b', ['a']), task('c', ['a']), task('d', ['b', 'c'])] });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    const at = (id: string) => result.tasks.find((t) => t.id === id)!;
    expect(Date.parse(at('d').startedAt!)).toBeGreaterThanOrEqual(Date.parse(at('b').endedAt!));
    expect(Date.parse(at('d').startedAt!)).toBeGreaterThanOrEqual(Date.parse(at('c').endedAt!));
    expect(Date.parse(at('b').startedAt!)).toBeGreaterThanOrEqual(Date.parse(at('a').endedAt!));
    // b and c ran side by side: c started before b ended.
    expect(Date.parse(at('c').startedAt!)).toBeLessThan(Date.parse(at('b').endedAt!));
    expect(result.integrationBranch).toBe(`codeloop/${result.batchId}/integration`);
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) expect(fileOnBranch(repo, result.integrationBranch!, file)).toBe(file[0]);
    expect(fileOnBranch(repo, 'main', 'a.txt')).toBeUndefined();
    expect(result.criticalPath.ids).toEqual(['a', 'c', 'd']);
    await recordHistory('batch-diamond', handle);
  }, 120_000);

  test('with maxParallel 1, tasks run one at a time in dependency order', async () => {
    harness.fake.setResponder(byTask({ 'Task a': done, 'Task b': done, 'Task c': done, 'Task d': done }));
    const handle = await startBatch({ workspace: makeGitRepo(), maxParallel: 1, tasks: [task('d', ['b', 'c']), task('c', ['a']), task('b', ['a']), task('a')] });
    const result = (await handle.result()) as BatchResult;
    const byStart = [...result.tasks].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    expect(byStart[0].id).toBe('a');
    expect(byStart[3].id).toBe('d');
    for (let i = 1; i < byStart.length; i++) expect(Date.parse(byStart[i].startedAt!)).toBeGreaterThanOrEqual(Date.parse(byStart[i - 1].endedAt!));
  }, 120_000);
});

describe('failure policies', () => {
  const scripts = () => byTask({ 'Task a': fails, 'Task b': done, 'Task c': slow(2_500, done) });
  const tasks = [task('a'), task('b', ['a']), task('c')];
  const statuses = (result: BatchResult) => Object.fromEntries(result.tasks.map((t) => [t.id, t.status]));

  test('skip-dependents: the dependents of a failed task are skipped; everything else runs', async () => {
    harness.fake.setResponder(scripts());
    const result = (await (await startBatch({ workspace: makeGitRepo(), tasks })).result()) as BatchResult;
    expect(statuses(result)).toEqual({ a: 'failed', b: 'skipped', c: 'completed' });
    expect(result.status).toBe('failed');
    expect(result.tasks.find((t) => t.id === 'b')!.reason).toBe('dependency a did not complete');
  }, 120_000);

  test('fail-fast: running children are cancelled cleanly', async () => {
    harness.fake.setResponder(scripts());
    const handle = await startBatch({ workspace: makeGitRepo(), tasks, onFailure: 'fail-fast' });
    const result = (await handle.result()) as BatchResult;
    expect(statuses(result)).toEqual({ a: 'failed', b: 'skipped', c: 'cancelled' });
    const child = await harness.temporal.client.workflow.getHandle(`${handle.workflowId}/c`).describe();
    expect(child.status.name).toBe('CANCELLED');
  }, 120_000);

  test('continue: dependents run anyway', async () => {
    harness.fake.setResponder(scripts());
    const result = (await (await startBatch({ workspace: makeGitRepo(), tasks, onFailure: 'continue' })).result()) as BatchResult;
    expect(statuses(result)).toEqual({ a: 'failed', b: 'completed', c: 'completed' });
  }, 120_000);
});

describe('control', () => {
  test('retryTask re-runs a failed task and un-skips its dependents', async () => {
    let attemptsOfA = 0;
    harness.fake.setResponder(
      byTask({
        'Task a': (request) => (++attemptsOfA === 1 ? fails(request) : done(request)),
        'Task b': done,
        'Task c': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Hold on?' } }] }, { text: 'done' }]),
      }),
    );
    const handle = await startBatch({ workspace: makeGitRepo(), tasks: [task('a'), task('b', ['a']), task('c')] });
    await waitForBatch(handle, (s) => s.counts.failed === 1 && s.counts.skipped === 1);
    await handle.signal(retryTaskSignal, { taskId: 'a' });
    await waitForBatch(handle, (s) => s.counts.completed === 2);
    await harness.temporal.client.workflow.getHandle(`${handle.workflowId}/c`).signal(answerBlockerSignal, { answer: 'go' });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks.find((t) => t.id === 'a')).toMatchObject({ status: 'completed', attempts: 2 });
    expect(result.tasks.find((t) => t.id === 'b')).toMatchObject({ status: 'completed', attempts: 1 });
  }, 120_000);
});

describe('blocked children', () => {
  test('a blocked child does not stop independent tasks; answering it on the child finishes the batch', async () => {
    harness.fake.setResponder(
      byTask({
        'Task x': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which port?' } }] }, { text: 'done' }]),
        'Task y': done,
        'Task z': done,
      }),
    );
    const handle = await startBatch({ workspace: makeGitRepo(), tasks: [task('x'), task('y'), task('z', ['y'])] });
    const state = await waitForBatch(handle, (s) => s.counts.completed === 2 && s.tasks.some((t) => t.blockedOn));
    expect(state.tasks.find((t) => t.id === 'x')!.blockedOn).toEqual([{ id: 'b1', question: 'Which port?' }]);
    const child = harness.temporal.client.workflow.getHandle(`${handle.workflowId}/x`);
    expect((await child.describe()).searchAttributes.CodeloopBatchId).toEqual([state.batchId]);
    await child.signal(answerBlockerSignal, { answer: '8080' });
    expect(((await handle.result()) as BatchResult).status).toBe('completed');
  }, 120_000);
});

describe('worktrees', () => {
  test('two parallel tasks editing different files both merge', async () => {
    harness.fake.setResponder(
      byTask({
        'Task left': byTurn([{ toolCalls: [{ name: 'edit_file', input: { path: 'left.txt', edits: [{ search: 'L', replace: 'L2' }] } }] }, { text: 'done' }]),
        'Task right': byTurn([{ toolCalls: [{ name: 'edit_file', input: { path: 'right.txt', edits: [{ search: 'R', replace: 'R2' }] } }] }, { text: 'done' }]),
      }),
    );
    const repo = makeGitRepo({ 'left.txt': 'L\n', 'right.txt': 'R\n' });
    const result = (await (await startBatch({ workspace: repo, tasks: [task('left'), task('right')] })).result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(repo, result.integrationBranch!, 'left.txt')).toBe('L2\n');
    expect(fileOnBranch(repo, result.integrationBranch!, 'right.txt')).toBe('R2\n');
  }, 120_000);

  test('two tasks editing the same lines raise a conflict blocker on the batch; "retry" re-runs the task on the new base', async () => {
    const editValue = (to: string): ScriptedTurn => ({ toolCalls: [{ name: 'edit_file', input: { path: 'value.txt', edits: [{ search: 'value = 1', replace: `value = ${to}` }] } }] });
    const rebased: Responder = (request) =>
      JSON.stringify(request.body.messages.at(-1)!.content).includes('is_error')
        ? { toolCalls: [{ name: 'edit_file', input: { path: 'value.txt', edits: [{ search: 'value = 2', replace: 'value = 2\nother = 3' }] } }] }
        : { text: 'done' };
    harness.fake.setResponder(byTask({ 'Task first': byTurn([editValue('2'), { text: 'done' }]), 'Task second': byTurn([editValue('3'), rebased, { text: 'done' }]) }));
    const repo = makeGitRepo({ 'value.txt': 'value = 1\n' });
    const handle = await startBatch({ workspace: repo, tasks: [task('first'), task('second')] });
    const state = await waitForBatch(handle, (s) => s.openBlockers.length === 1);
    const [blocker] = state.openBlockers;
    expect(blocker.origin).toBe('merge-conflict');
    expect(blocker.question).toMatch(/^Merging task (first|second) \(codeloop\/.+\) into codeloop\/.+\/integration conflicts in: value\.txt\./);
    expect(state.status).toBe('blocked');
    await handle.signal(answerBlockerSignal, { answer: 'retry' });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    const loser = result.tasks.find((t) => t.attempts === 2)!;
    expect(loser).toBeDefined();
    expect(fileOnBranch(repo, result.integrationBranch!, 'value.txt')).toMatch(/^value = [23]\n/);
    await recordHistory('batch-merge-conflict-retry', handle);
  }, 120_000);
});
