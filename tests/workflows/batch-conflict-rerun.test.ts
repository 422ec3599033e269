import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { BatchResult, BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { addUsage } from '../../src/shared/conversation.js';
import { answerBlockerSignal, getBatchStateQuery } from '../../src/shared/messages.js';
import { batchTask, startBatchOn, waitForBatch } from '../support/batch.js';
import {
  byTask,
  byTurn,
  isForTask,
  reportedUsage,
  type RecordedRequest,
  type Responder,
  type ScriptedTurn,
} from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('conflict-rerun');

const startBatch = (input: Record<string, unknown>) => startBatchOn(harness, 'conflict-rerun', input);
const task = batchTask;
const systemText = (request: RecordedRequest) => JSON.stringify(request.body.system ?? '');
const RERUN_HEADING = 'Re-run on a new base: your earlier run of this task did not merge';
/** Which conflict a request's run was told about: none on a first run, else the files its prompt names. */
const conflictNamed = (request: RecordedRequest) => /conflicted in: (.+?)\. Other tasks/.exec(systemText(request))?.[1];

const edit = (file: string, search: string, replace: string): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_file', input: { path: file, edits: [{ search, replace }] } }],
});

/** Holds a turn until `file` on the batch's integration branch reads `content`: the other task's work has merged. */
const afterMerged =
  (repo: string, batchId: string, file: string, content: string, turn: ScriptedTurn): Responder =>
  async () => {
    await eventually(
      async () => fileOnBranch(repo, `codeloop/${batchId}/integration`, file),
      (found) => found === content,
      `${file} never read ${JSON.stringify(content)} on the integration branch`,
    );
    return turn;
  };

/** The runs of a task the fake served since `since`, each as the files its prompt named as conflicting (or none). */
const runsOf = (title: string, since: number) =>
  harness.fake.requests
    .slice(since)
    .filter((request) => isForTask(request, title) && request.body.messages.length === 1)
    .map(conflictNamed);

describe('a merge conflict', () => {
  test('is re-run once on the new base, told which files conflicted, and merges without a human; its dependent waits for the re-run', async () => {
    const batchId = uniqueName('rerun');
    const repo = makeGitRepo({ 'x.txt': 'x = 1\n' });
    // b's first run edits the line a changed, once a has merged: its merge must conflict.
    const bFirst = byTurn([afterMerged(repo, batchId, 'x.txt', 'x = a\n', edit('x.txt', 'x = 1', 'x = b')), { text: 'done' }]);
    const bRerun = byTurn([
      (request) => {
        expect(systemText(request)).toContain(RERUN_HEADING);
        return edit('x.txt', 'x = a', 'x = a\nx2 = b');
      },
      { text: 'done on the new base' },
    ]);
    const dReads = byTurn([{ toolCalls: [{ name: 'read_file', input: { path: 'x.txt' } }] }, { text: 'done' }]);
    harness.fake.setResponder(
      byTask({
        'Task a': byTurn([edit('x.txt', 'x = 1', 'x = a'), { text: 'done' }]),
        'Task b': (request) => (conflictNamed(request) ? bRerun(request) : bFirst(request)),
        'Task d': dReads,
      }),
    );
    const since = harness.fake.requests.length;
    const handle = await startBatch({ batchId, workspace: repo, tasks: [task('a'), task('b'), task('d', ['b'])] });
    const result = (await handle.result()) as BatchResult;

    expect(result.status).toBe('completed');
    const at = (id: string) => result.tasks.find((candidate) => candidate.id === id)!;
    expect(at('b')).toMatchObject({ status: 'completed', attempts: 2, conflictReruns: [{ files: ['x.txt'] }] });
    expect(at('a')).toMatchObject({ status: 'completed', attempts: 1 });
    // b's figures add up both of its runs: two model calls each, every token the fake counted for them.
    const bCalls = harness.fake.requests.slice(since).filter((request) => isForTask(request, 'Task b'));
    expect(bCalls).toHaveLength(4);
    expect(at('b').iterations).toBe(4);
    expect(at('b').usage).toEqual(bCalls.map(reportedUsage).reduce(addUsage));
    expect(at('a').conflictReruns).toBeUndefined();
    expect(runsOf('Task b', since)).toEqual([undefined, 'x.txt']);
    expect(fileOnBranch(repo, result.integrationBranch!, 'x.txt')).toBe('x = a\nx2 = b\n');
    // d started once the re-run had merged, in a worktree holding its work.
    expect(Date.parse(at('d').startedAt!)).toBeGreaterThanOrEqual(Date.parse(at('b').endedAt!));
    const dRead = harness.fake.requests.slice(since).find((request) => isForTask(request, 'Task d') && request.body.messages.length === 3)!;
    expect(JSON.stringify(dRead.body.messages.at(-1)!.content)).toContain('x2 = b');
    // No human was asked.
    const state = await handle.query(getBatchStateQuery);
    expect(state.openBlockers).toEqual([]);
    expect(state.answeredBlockers).toEqual([]);
    await recordHistory('batch-conflict-rerun-merged', handle);
    await recordHistory('batch-rerun-counts-every-run', handle);
  }, 180_000);

  /**
   * a and b collide in x.txt; b's re-run, cut once a merged, then collides in y.txt with c, which merges while the
   * re-run works: the second conflict is real, and a human is asked.
   */
  async function conflictTwice(
    third: Responder,
    more: { tasks?: ReturnType<typeof task>[]; responders?: Record<string, Responder>; input?: object } = {},
  ) {
    const batchId = uniqueName('twice');
    const repo = makeGitRepo({ 'x.txt': 'x = 1\n', 'y.txt': 'y = 1\n' });
    const since = harness.fake.requests.length;
    const bFirst = byTurn([afterMerged(repo, batchId, 'x.txt', 'x = a\n', edit('x.txt', 'x = 1', 'x = b')), { text: 'done' }]);
    const bRerun = byTurn([afterMerged(repo, batchId, 'y.txt', 'y = c\n', edit('y.txt', 'y = 1', 'y = b')), { text: 'done' }]);
    const rerunStarted = () => runsOf('Task b', since).includes('x.txt');
    const cAfterRerunStarted = byTurn([
      async () => {
        await eventually(async () => rerunStarted(), Boolean, "b's re-run never started");
        return edit('y.txt', 'y = 1', 'y = c');
      },
      { text: 'done' },
    ]);
    harness.fake.setResponder(
      byTask({
        'Task a': byTurn([edit('x.txt', 'x = 1', 'x = a'), { text: 'done' }]),
        'Task b': (request) => {
          const told = conflictNamed(request);
          if (told === 'y.txt') return third(request);
          return told ? bRerun(request) : bFirst(request);
        },
        'Task c': cAfterRerunStarted,
        ...more.responders,
      }),
    );
    const tasks = [task('a'), task('b'), task('c'), ...(more.tasks ?? [])];
    const handle = await startBatch({ batchId, workspace: repo, tasks, ...more.input });
    const asked = await waitForBatch(handle, (state: BatchStateSnapshot) => state.openBlockers.length > 0);
    return { handle, repo, since, asked };
  }

  test('whose re-run conflicts again asks a human; "retry" runs it a third time, told the new files', async () => {
    const { handle, repo, since, asked } = await conflictTwice(byTurn([edit('y.txt', 'y = c', 'y = c + b'), { text: 'done at last' }]));
    expect(asked.openBlockers).toHaveLength(1);
    const [blocker] = asked.openBlockers;
    expect(blocker).toMatchObject({ origin: 'merge-conflict', options: ['resolved', 'retry', 'skip'] });
    expect(blocker.question).toMatch(/^Merging task b \(codeloop\/.+\/b\) into codeloop\/.+\/integration conflicts in: y\.txt\./);
    expect(blocker.question).toContain('This is its re-run on a new base after an earlier conflict');
    expect(asked.status).toBe('blocked');
    await handle.signal(answerBlockerSignal, { answer: 'retry' });

    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks.find((candidate) => candidate.id === 'b')).toMatchObject({
      status: 'completed',
      attempts: 3,
      conflictReruns: [{ files: ['x.txt'] }, { files: ['y.txt'] }],
    });
    expect(runsOf('Task b', since)).toEqual([undefined, 'x.txt', 'y.txt']);
    expect(fileOnBranch(repo, result.integrationBranch!, 'x.txt')).toBe('x = a\n');
    expect(fileOnBranch(repo, result.integrationBranch!, 'y.txt')).toBe('y = c + b\n');
    const state = await handle.query(getBatchStateQuery);
    expect(state.answeredBlockers).toMatchObject([{ id: blocker.id, origin: 'merge-conflict', answer: 'retry' }]);
    await recordHistory('batch-conflict-rerun-then-human', handle);
  }, 180_000);

  test('whose re-run conflicts again can be resolved by a human in the integration branch, answered "resolved"', async () => {
    const { handle, repo, since, asked } = await conflictTwice(() => {
      throw new Error('a resolved conflict must not run the task again');
    });
    const [blocker] = asked.openBlockers;
    const [, branch, integrationPath] = /^Merging task b \((\S+)\)[\s\S]* by merging \S+ in (\S+) and committing/.exec(blocker.question)!;
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=human', '-c', 'user.email=human@localhost', ...args], { cwd: integrationPath, stdio: 'pipe' });
    expect(() => git('merge', '--no-ff', branch)).toThrow();
    writeFileSync(path.join(integrationPath, 'y.txt'), 'y = c + b\n');
    git('add', 'y.txt');
    git('commit', '-q', '--no-edit');
    await handle.signal(answerBlockerSignal, { answer: 'resolved' });

    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks.map((candidate) => [candidate.id, candidate.status, candidate.attempts])).toEqual([
      ['a', 'completed', 1],
      ['b', 'completed', 2],
      ['c', 'completed', 1],
    ]);
    expect(runsOf('Task b', since)).toEqual([undefined, 'x.txt']);
    expect(fileOnBranch(repo, result.integrationBranch!, 'y.txt')).toBe('y = c + b\n');
  }, 180_000);

  test('answered "retry" once a fail-fast batch is ending, fails instead of waiting for a start that never comes', async () => {
    let questionOpen = false;
    // d fails (its question times out) only once b's conflict question is open: the batch is then ending.
    const dFailsLater = byTurn([
      async () => {
        await eventually(async () => questionOpen, Boolean, "b's conflict question never opened");
        return { toolCalls: [{ name: 'raise_blocker', input: { question: 'Which port?' } }] };
      },
    ]);
    const { handle } = await conflictTwice(
      () => {
        throw new Error('a batch that is ending must not run the task again');
      },
      {
        tasks: [task('d')],
        responders: { 'Task d': dFailsLater },
        input: { onFailure: 'fail-fast', taskDefaults: { blockerTimeout: '2s', onBlockerTimeout: 'fail' } },
      },
    );
    questionOpen = true;
    await waitForBatch(handle, (state: BatchStateSnapshot) => state.tasks.find((candidate) => candidate.id === 'd')?.status === 'failed');
    await handle.signal(answerBlockerSignal, { answer: 'retry' });

    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('failed');
    const b = result.tasks.find((candidate) => candidate.id === 'b')!;
    expect(b).toMatchObject({ status: 'failed', attempts: 2 });
    expect(b.reason).toMatch(/^a human answered 'retry' to its merge conflict in y\.txt, but the batch is ending \(failed\)/);
    await recordHistory('batch-ending-runs-nothing-again', handle);
  }, 180_000);
});
