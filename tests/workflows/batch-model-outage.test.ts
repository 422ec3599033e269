import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, test } from 'vitest';
import type { OpenBlockerRow } from '../../src/client/blockers-list.js';
import type { BatchResult, BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { answerBlockerSignal, getBatchStateQuery, getStateQuery } from '../../src/shared/messages.js';
import { batchTask, startBatchOn, waitForBatch } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn, isForTask, type RecordedRequest, type Responder, type ScriptedError } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('model-outage');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });

const startBatch = (input: Record<string, unknown>) => startBatchOn(harness, 'model-outage', input);
const task = batchTask;
const creates = (file: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: 'done' }]);

/** The model activity's retry budget: `maximumAttempts` of its retry policy. */
const RETRY_BUDGET = 12;

/**
 * The Messages API down: 529 overloaded. Its `retry-after` is short, as the real API's may be, so the activity's
 * whole retry budget (12 attempts) is spent in seconds rather than the ~12 minutes its own backoff would take.
 */
const OVERLOADED: ScriptedError = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds: 0.05 } };

/** Serves `responder` while the API is up, 529 while it is down. */
const api = { down: false };
const unlessDown =
  (responder: Responder): Responder =>
  (request) =>
    api.down ? OVERLOADED : responder(request);

const requestsOf = (title: string, since: number, which: (request: RecordedRequest) => boolean = () => true) =>
  harness.fake.requests.slice(since).filter((request) => isForTask(request, title) && which(request));
const failed = (request: RecordedRequest) => request.usage === undefined;
/** A task's state in the batch's; a batch still preparing has none yet. */
const stateOf = (state: BatchStateSnapshot, id: string) => state.tasks.find((candidate) => candidate.id === id)!;
const pausedOn = (state: BatchStateSnapshot, id: string) => state.tasks.find((candidate) => candidate.id === id)?.pausedOn;
const child = (handle: WorkflowHandle, id: string) => harness.temporal.client.workflow.getHandle(`${handle.workflowId}/${id}`);

describe('a model outage past the retries', () => {
  test('pauses the batch on one question while two tasks wait; no new task starts; "retry" resumes every task', async () => {
    api.down = true;
    const questionOpen = () =>
      eventually(
        () => handle.query(getBatchStateQuery),
        (state) => state.openBlockers.length > 0,
        'the batch never asked',
      );
    // q's model call is already on its way when the API goes down; it answers once the batch has paused (`handle` is
    // the batch started below).
    const qAfterPause: Responder = byTurn([
      async () => {
        await questionOpen();
        return { toolCalls: [{ name: 'create_file', input: { path: 'q.txt', content: 'q.txt\n' } }] };
      },
      { text: 'done' },
    ]);
    harness.fake.setResponder(
      byTask({
        'Task a': unlessDown(creates('a.txt')),
        'Task b': unlessDown(creates('b.txt')),
        'Task q': qAfterPause,
        'Task c': unlessDown(creates('c.txt')),
      }),
    );
    const since = harness.fake.requests.length;
    const repo = makeGitRepo();
    const handle = await startBatch({ workspace: repo, maxParallel: 3, tasks: [task('a'), task('b'), task('q'), task('c', ['q'])] });

    const paused = await waitForBatch(
      handle,
      (state) => ['a', 'b'].every((id) => pausedOn(state, id)) && stateOf(state, 'q').status === 'completed',
    );
    // One question on the batch, none on its tasks; each task spent its whole retry budget first.
    expect(paused.status).toBe('blocked');
    expect(paused.openBlockers).toHaveLength(1);
    const [question] = paused.openBlockers;
    expect(question).toMatchObject({ origin: 'model-outage', options: ['retry', 'stop'] });
    expect(question.question).toMatch(
      /^The model API kept failing past the retries \(first reported by task [ab]\): model API unavailable \(529 overloaded_error: Overloaded\)/,
    );
    expect(question.question).toContain('The batch is paused: no new task starts');
    for (const id of ['a', 'b']) {
      expect(stateOf(paused, id)).toMatchObject({ status: 'running', pausedOn: question.id });
      expect(stateOf(paused, id).blockedOn).toBeUndefined();
      expect(requestsOf(`Task ${id}`, since, failed)).toHaveLength(RETRY_BUDGET);
      const task = await child(handle, id).query(getStateQuery);
      expect(task).toMatchObject({ status: 'blocked', openBlockers: [] });
      expect(task.waitingForBatch).toContain('529 overloaded_error');
    }
    // c became ready when q merged, with a slot free, but the batch is paused.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const still = await handle.query(getBatchStateQuery);
    expect(stateOf(still, 'c').status).toBe('pending');
    expect(requestsOf('Task c', since)).toEqual([]);
    expect(still.openBlockers.map((blocker) => blocker.id)).toEqual([question.id]);

    // Where operators look: the batch's status, the open blockers, the Web UI's current details.
    const status = await runCli(['batch', 'status', handle.workflowId], env());
    expect(status.stdout).toContain(`batch blocker ${question.id}: The model API kept failing past the retries`);
    expect(status.stdout).toContain(`waits on the batch's question ${question.id} (model API outage)`);
    const rows = JSON.parse((await runCli(['blockers', 'list', '--json'], env())).stdout) as OpenBlockerRow[];
    expect(rows.filter((row) => row.workflowId.startsWith(handle.workflowId))).toMatchObject([
      { workflowId: handle.workflowId, blockerId: question.id, origin: 'model-outage' },
    ]);
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toContain('The model API kept failing past the retries');
    expect(currentDetails).toContain("Task `a` waits on the batch's question");

    api.down = false;
    const answeredAt = Date.now();
    const answered = await runCli(['blockers', 'answer', handle.workflowId, 'retry'], env());
    expect(answered.code).toBe(0);
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks.map((candidate) => [candidate.id, candidate.status, candidate.attempts])).toEqual([
      ['a', 'completed', 1],
      ['b', 'completed', 1],
      ['q', 'completed', 1],
      ['c', 'completed', 1],
    ]);
    for (const file of ['a.txt', 'b.txt', 'q.txt', 'c.txt']) expect(fileOnBranch(repo, result.integrationBranch!, file)).toBe(`${file}\n`);
    expect(Math.min(...requestsOf('Task c', since).map((request) => request.at))).toBeGreaterThanOrEqual(answeredAt);
    const state = await handle.query(getBatchStateQuery);
    expect(state.answeredBlockers).toMatchObject([{ id: question.id, origin: 'model-outage', answer: 'retry' }]);
    for (const id of ['a', 'b']) expect((await child(handle, id).query(getStateQuery)).answeredBlockers).toEqual([]);
    await recordHistory('batch-model-outage-retry', handle);
    await recordHistory('task-waits-out-outage-for-batch', child(handle, 'a'));
  }, 180_000);

  test('"stop" ends the batch as cancelling it does: running tasks cancelled, pending ones skipped; the result still comes', async () => {
    api.down = true;
    harness.fake.setResponder(byTask({ 'Task a': unlessDown(creates('a.txt')), 'Task b': unlessDown(creates('b.txt')) }));
    const handle = await startBatch({ workspace: makeGitRepo(), maxParallel: 2, tasks: [task('a'), task('b'), task('c', ['a'])] });
    const paused = await waitForBatch(handle, (state) => ['a', 'b'].every((id) => pausedOn(state, id)));
    expect(paused.openBlockers).toHaveLength(1);
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const result = (await handle.result()) as BatchResult;
    api.down = false;
    expect(result.status).toBe('cancelled');
    const at = (id: string) => result.tasks.find((candidate) => candidate.id === id)!;
    for (const id of ['a', 'b']) {
      expect(at(id).status).toBe('cancelled');
      expect(at(id).reason).toContain("stopped by a human after the model API outage (blocker b1 answered 'stop')");
      const description = await child(handle, id).describe();
      expect(description.status.name).toBe('CANCELLED');
    }
    expect(at('c')).toMatchObject({ status: 'skipped' });
    expect(at('c').reason).toMatch(/^not started: stopped by a human after the model API outage/);
  }, 180_000);

  test('"stop" sees every cancelled task end, those its main loop took from the inbox before the last came too', async () => {
    api.down = true;
    // c is not waiting on the model: it runs a long command, which a cancel stops only at the command's next
    // heartbeat, so c says it stopped well after a and b did, and the batch has handled their ends by then.
    const runsLong = byTurn([{ toolCalls: [{ name: 'run_command', input: { command: 'sleep 40' } }] }, { text: 'done' }]);
    harness.fake.setResponder(
      byTask({ 'Task a': unlessDown(creates('a.txt')), 'Task b': unlessDown(creates('b.txt')), 'Task c': runsLong }),
    );
    const handle = await startBatch({ workspace: makeGitRepo(), maxParallel: 3, tasks: [task('a'), task('b'), task('c')] });
    await waitForBatch(handle, (state) => ['a', 'b'].every((id) => pausedOn(state, id)));
    const answeredAt = Date.now();
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const result = (await handle.result()) as BatchResult;
    api.down = false;
    // The stop waits up to a minute for its children to say they stopped: it ends when c has, not at the minute.
    expect(Date.now() - answeredAt).toBeLessThan(50_000);
    expect(result.tasks.map(({ id, status }) => ({ id, status }))).toEqual(['a', 'b', 'c'].map((id) => ({ id, status: 'cancelled' })));
    await recordHistory('batch-stop-sees-every-end', handle);
  }, 180_000);

  test('a question whose waiting tasks all ended (fail-fast) is withdrawn: the batch ends without an answer', async () => {
    api.down = true;
    const handle = await startBatch({ workspace: makeGitRepo(), onFailure: 'fail-fast', tasks: [task('a'), task('f')] });
    // f fails for good once a waits on the batch's question; fail-fast then cancels a.
    const failsOncePaused: Responder = async () => {
      await eventually(
        () => handle.query(getBatchStateQuery),
        (state) => pausedOn(state, 'a') !== undefined,
        'a never waited on the batch',
      );
      return { error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } };
    };
    harness.fake.setResponder(byTask({ 'Task a': unlessDown(creates('a.txt')), 'Task f': failsOncePaused }));
    const result = (await handle.result()) as BatchResult;
    api.down = false;
    expect(result.status).toBe('failed');
    expect(result.tasks.map((candidate) => [candidate.id, candidate.status])).toEqual([
      ['a', 'cancelled'],
      ['f', 'failed'],
    ]);
    const state = await handle.query(getBatchStateQuery);
    expect(state.openBlockers).toEqual([]);
    expect(state.answeredBlockers).toEqual([]);
  }, 180_000);

  test('a model call that outlasts the stall timeout, retries included, is an outage the batch answers too', async () => {
    api.down = true;
    // Down, the API accepts the call and then sends nothing but pings.
    const hangs: Responder = (request) => (api.down ? { text: 'never finishes', stallMs: 60_000 } : creates('a.txt')(request));
    harness.fake.setResponder(byTask({ 'Task a': hangs }));
    const since = harness.fake.requests.length;
    const handle = await startBatch({ workspace: makeGitRepo(), taskDefaults: { stallTimeout: '3s' }, tasks: [task('a')] });
    const paused = await waitForBatch(handle, (state) => pausedOn(state, 'a') !== undefined);
    const [question] = paused.openBlockers;
    expect(question).toMatchObject({ origin: 'model-outage' });
    expect(question.question).toContain('the model call did not finish within the stall timeout of 3s');
    // The stall watch's own two retries came first.
    expect(requestsOf('Task a', since)).toHaveLength(3);
    expect((await child(handle, 'a').query(getStateQuery)).openBlockers).toEqual([]);
    api.down = false;
    await handle.signal(answerBlockerSignal, { answer: 'retry' });
    expect(((await handle.result()) as BatchResult).status).toBe('completed');
  }, 180_000);
  test("a compaction summary that fails on both models waits for the batch's one question too, not a blocker of its own", async () => {
    // The agent's turns fill a 20k window, so the third call is the summary; the API goes down as it is asked.
    const agent = [
      { text: `plan ${'p'.repeat(56_000)}`, toolCalls: [{ name: 'run_command', input: { command: 'echo plan' } }] },
      { text: 'a', toolCalls: [{ name: 'run_command', input: { command: 'echo a' } }] },
      { text: 'done' },
    ];
    let turns = 0;
    let wentDown = false;
    const isSummary = (request: RecordedRequest) => (request.body.tools ?? []).length === 0;
    harness.fake.setResponder((request) => {
      if (isSummary(request) && !wentDown) [api.down, wentDown] = [true, true];
      if (api.down) return OVERLOADED;
      return isSummary(request) ? { text: '- planned; nothing is unresolved' } : agent[turns++];
    });
    const since = harness.fake.requests.length;
    const handle = await startBatch({
      workspace: makeGitRepo(),
      taskDefaults: { contextWindow: 20_000, models: { summary: 'claude-summary' } },
      tasks: [task('a')],
    });
    const paused = await waitForBatch(handle, (state) => pausedOn(state, 'a') !== undefined);
    expect(paused.openBlockers).toMatchObject([{ origin: 'model-outage' }]);
    // Both models were tried past their retries, and the task asked no one itself.
    const summaries = harness.fake.requests.slice(since).filter(isSummary);
    expect(summaries.filter((request) => request.body.model === 'claude-summary')).toHaveLength(RETRY_BUDGET);
    expect(summaries.filter((request) => request.body.model !== 'claude-summary')).toHaveLength(RETRY_BUDGET);
    expect((await child(handle, 'a').query(getStateQuery)).openBlockers).toEqual([]);
    api.down = false;
    await handle.signal(answerBlockerSignal, { answer: 'retry' });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(result.tasks[0].spendByPurpose?.summary?.calls).toBe(1);
    await recordHistory('task-summary-waits-for-batch', child(handle, 'a'));
  }, 180_000);
});
