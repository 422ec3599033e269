import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { addUsage, emptyUsage, type Usage } from '../../src/shared/conversation.js';
import { costOf } from '../../src/workflows/common/pricing.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { answerBlockerSignal, retryTaskSignal } from '../../src/shared/messages.js';
import { waitForBlockers } from '../support/blockers.js';
import { waitForBatch } from '../support/batch.js';
import { eventually } from '../support/polling.js';
import { byTask, byTurn, isForTask, reportedUsage, type RecordedRequest, type Responder } from '../support/fake-messages-api.js';
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
const creates = (file: string, content: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content } }] }, { text: 'done' }]);
const fails: Responder = () => ({ error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } });

/** Resolves after `ms`, then answers: a task that is still running while the others move on. */
const slow =
  (ms: number, responder: Responder): Responder =>
  async (request) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return responder(request);
  };

/** The model requests of one task (by its title in the system prompt) since `since` requests had been made. */
const requestsOf = (title: string, since: number) => harness.fake.requests.slice(since).filter((request) => isForTask(request, title));
const systemText = (request: RecordedRequest) =>
  typeof request.body.system === 'string' ? request.body.system : (request.body.system ?? []).map((block) => block.text).join('\n');
/** The usage the fake reported for these requests, as the task adds it up. */
const usageOf = (requests: RecordedRequest[]): Usage => requests.map(reportedUsage).reduce(addUsage, emptyUsage());
/** The tool results the request sends back: the outcome of the tools the model asked for in its last turn. */
const toolResultsIn = (request: RecordedRequest) => {
  const last = request.body.messages.at(-1)!;
  return typeof last.content === 'string' ? [] : last.content.filter((block) => block.type === 'tool_result');
};

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
    expect(
      events.some((event) => event.activityTaskScheduledEventAttributes || event.startChildWorkflowExecutionInitiatedEventAttributes),
    ).toBe(false);
  });
});

describe('scheduling', () => {
  test('a diamond starts d only after b and c, in a worktree holding their work, and merges everything into the integration branch', async () => {
    const readsBandC = byTurn([
      {
        toolCalls: [
          { name: 'read_file', input: { path: 'b.txt' } },
          { name: 'read_file', input: { path: 'c.txt' } },
        ],
      },
      { toolCalls: [{ name: 'create_file', input: { path: 'd.txt', content: 'd' } }] },
      { text: 'done' },
    ]);
    harness.fake.setResponder(
      byTask({
        'Task a': creates('a.txt', 'a'),
        'Task b': creates('b.txt', 'b, written by b'),
        'Task c': slow(1_000, creates('c.txt', 'c, written by c')),
        'Task d': readsBandC,
      }),
    );
    const since = harness.fake.requests.length;
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
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) expect(fileOnBranch(repo, result.integrationBranch!, file)?.[0]).toBe(file[0]);
    expect(fileOnBranch(repo, 'main', 'a.txt')).toBeUndefined();
    expect(result.criticalPath.ids).toEqual(['a', 'c', 'd']);

    // d's worktree was cut after b and c merged: both its reads succeeded and saw their files.
    const [dReadResults] = requestsOf('Task d', since)
      .filter((request) => request.body.messages.length === 3)
      .map(toolResultsIn);
    expect(dReadResults).toHaveLength(2);
    expect(dReadResults.map((block) => block.is_error ?? false)).toEqual([false, false]);
    expect(JSON.stringify(dReadResults[0].content)).toContain('written by b');
    expect(JSON.stringify(dReadResults[1].content)).toContain('written by c');

    // Per task: iterations, the usage the model reported, its cost, its branch; the totals add them up.
    const usages = Object.fromEntries(['a', 'b', 'c', 'd'].map((id) => [id, usageOf(requestsOf(`Task ${id}`, since))]));
    for (const id of ['a', 'b', 'c', 'd']) {
      expect(usages[id].inputTokens + usages[id].cacheWriteTokens).toBeGreaterThan(0);
      expect(at(id)).toMatchObject({
        status: 'completed',
        attempts: 1,
        iterations: id === 'd' ? 3 : 2,
        usage: usages[id],
        branch: `codeloop/${result.batchId}/${id}`,
      });
      expect(at(id).costUsd).toBeGreaterThan(0);
      expect(at(id).costUsd).toBeCloseTo(costOf(usages[id], 'claude-test'), 12);
    }
    expect(result.totals.tasks).toMatchObject({ completed: 4, failed: 0, skipped: 0 });
    expect(result.totals.usage).toEqual(Object.values(usages).reduce(addUsage, emptyUsage()));
    expect(result.totals.costUsd).toBeCloseTo(
      ['a', 'b', 'c', 'd'].reduce((sum, id) => sum + at(id).costUsd!, 0),
      12,
    );
    await recordHistory('batch-diamond', handle);
  }, 120_000);

  test('with maxParallel 1, tasks run one at a time in dependency order', async () => {
    harness.fake.setResponder(byTask({ 'Task a': done, 'Task b': done, 'Task c': done, 'Task d': done }));
    const handle = await startBatch({
      workspace: makeGitRepo(),
      maxParallel: 1,
      tasks: [task('d', ['b', 'c']), task('c', ['a']), task('b', ['a']), task('a')],
    });
    const result = (await handle.result()) as BatchResult;
    const byStart = [...result.tasks].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    expect(byStart[0].id).toBe('a');
    expect(byStart[3].id).toBe('d');
    for (let i = 1; i < byStart.length; i++)
      expect(Date.parse(byStart[i].startedAt!)).toBeGreaterThanOrEqual(Date.parse(byStart[i - 1].endedAt!));
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
    // The child reports its cancellation just before its own run closes.
    const child = harness.temporal.client.workflow.getHandle(`${handle.workflowId}/c`);
    await eventually(
      () => child.describe(),
      (description) => description.status.name === 'CANCELLED',
      'the cancelled child never closed',
    );
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

  test('a re-run starts with the answers its earlier run was given', async () => {
    const told = (request: RecordedRequest) => systemText(request).includes('Q: Which database?\nA: Postgres');
    const asksThenFails = byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which database?' } }] }, fails]);
    harness.fake.setResponder(
      byTask({
        'Task ask': (request) => (told(request) ? done(request) : asksThenFails(request)),
        'Task hold': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Hold on?' } }] }, { text: 'done' }]),
      }),
    );
    const since = harness.fake.requests.length;
    const handle = await startBatch({ workspace: makeGitRepo(), tasks: [task('ask'), task('hold')] });
    const child = harness.temporal.client.workflow.getHandle(`${handle.workflowId}/ask`);
    await waitForBlockers(child);
    await child.signal(answerBlockerSignal, { answer: 'Postgres' });
    await waitForBatch(handle, (s) => s.counts.failed === 1);
    await handle.signal(retryTaskSignal, { taskId: 'ask' });
    const state = await waitForBatch(handle, (s) => s.tasks.find((t) => t.id === 'ask')!.status === 'completed');
    expect(state.tasks.find((t) => t.id === 'ask')!.answers).toEqual([{ question: 'Which database?', answer: 'Postgres' }]);
    await harness.temporal.client.workflow.getHandle(`${handle.workflowId}/hold`).signal(answerBlockerSignal, { answer: 'go' });
    const result = (await handle.result()) as BatchResult;
    expect(result.tasks.find((t) => t.id === 'ask')).toMatchObject({ status: 'completed', attempts: 2 });

    const firstRequestOfEachRun = requestsOf('Task ask', since).filter((request) => request.body.messages.length === 1);
    expect(firstRequestOfEachRun).toHaveLength(2);
    expect(systemText(firstRequestOfEachRun[0])).not.toContain('Questions already answered');
    expect(systemText(firstRequestOfEachRun[1])).toContain('## Questions already answered by a human\nQ: Which database?\nA: Postgres');
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
        'Task left': byTurn([
          { toolCalls: [{ name: 'edit_file', input: { path: 'left.txt', edits: [{ search: 'L', replace: 'L2' }] } }] },
          { text: 'done' },
        ]),
        'Task right': byTurn([
          { toolCalls: [{ name: 'edit_file', input: { path: 'right.txt', edits: [{ search: 'R', replace: 'R2' }] } }] },
          { text: 'done' },
        ]),
      }),
    );
    const repo = makeGitRepo({ 'left.txt': 'L\n', 'right.txt': 'R\n' });
    const result = (await (await startBatch({ workspace: repo, tasks: [task('left'), task('right')] })).result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(repo, result.integrationBranch!, 'left.txt')).toBe('L2\n');
    expect(fileOnBranch(repo, result.integrationBranch!, 'right.txt')).toBe('R2\n');
  }, 120_000);
});

describe('batch ids', () => {
  test('two nights of a schedule with a long name get their own integration branches', async () => {
    harness.fake.setResponder(byTask({ 'Task nightly': creates('night.txt', 'night') }));
    const repo = makeGitRepo();
    const schedule = `${uniqueName('nightly')}-${'refactor-billing-'.repeat(4)}batch`;
    const nights: BatchResult[] = [];
    for (const time of ['2026-11-23T04:00:00Z', '2026-11-24T04:00:00Z']) {
      const handle = await startBatch({ workspace: repo, tasks: [task('nightly')] }, `${schedule}-${time}`);
      nights.push((await handle.result()) as BatchResult);
    }
    expect(nights.map((night) => night.batchId.slice(-21))).toEqual(['-2026-11-23T04-00-00Z', '-2026-11-24T04-00-00Z']);
    expect(nights.map((night) => night.batchId.length)).toEqual([64, 64]);
    expect(nights[0].integrationBranch).not.toBe(nights[1].integrationBranch);
    for (const night of nights) expect(fileOnBranch(repo, night.integrationBranch!, 'night.txt')).toBe('night');
  }, 120_000);
});

describe('verification', () => {
  const repo = () =>
    makeGitRepo({ 'codeloop.json': JSON.stringify({ gates: [{ name: 'build', command: 'nub-build-tool --check', timeoutSeconds: 5 }] }) });
  const answering = byTurn([
    { toolCalls: [{ name: 'create_file', input: { path: 'a.txt', content: 'a' } }] },
    { text: 'Added a.txt. Should b.txt follow the same format?' },
    { text: 'There is nothing else to check it with here.' },
  ]);

  test('a task that completes unverified says so in the batch, with its open questions', async () => {
    harness.fake.setResponder(byTask({ 'Task a': answering, 'Task b': done }));
    try {
      const handle = await startBatch({ workspace: repo(), tasks: [task('a'), task('b', ['a'])] });
      const result = (await handle.result()) as BatchResult;
      const a = result.tasks.find((entry) => entry.id === 'a')!;
      expect(a).toMatchObject({
        status: 'completed',
        verification: 'unverified',
        unverifiedBecause: ['build: nub-build-tool is not installed where the gates run'],
        openQuestions: ['Should b.txt follow the same format?'],
      });
      expect(result.tasks.find((entry) => entry.id === 'b')).toMatchObject({ status: 'completed' });
    } finally {
      harness.fake.setResponder(undefined);
    }
  });

  test('a batch that requires verified work fails an unverified task and does not merge it; its dependents are skipped', async () => {
    harness.fake.setResponder(byTask({ 'Task a': answering, 'Task b': done }));
    try {
      const workspace = repo();
      const handle = await startBatch({ workspace, tasks: [task('a'), task('b', ['a'])], requireVerified: true });
      const result = (await handle.result()) as BatchResult;
      expect(result.tasks.find((entry) => entry.id === 'a')).toMatchObject({
        status: 'failed',
        reason: 'completed unverified, and the batch requires verified work: build: nub-build-tool is not installed where the gates run',
      });
      expect(result.tasks.find((entry) => entry.id === 'b')).toMatchObject({ status: 'skipped' });
      expect(fileOnBranch(workspace, result.integrationBranch!, 'a.txt')).toBeUndefined();
    } finally {
      harness.fake.setResponder(undefined);
    }
  });
});
