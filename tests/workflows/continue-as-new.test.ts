import { readdirSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import { addUsage } from '../../src/shared/conversation.js';
import { costOf } from '../../src/workflows/common/pricing.js';
import { agentTaskWorkflow } from '../../src/workflows/index.js';
import { answerBlockerSignal, getStateQuery } from '../../src/shared/messages.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTurn, reportedUsage, startFakeMessagesApi, type FakeMessagesApi, type ScriptedTurn } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import { startCli } from '../support/cli.js';
import { recordHistory } from '../support/record-history.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * A server of its own, with the continue-as-new suggestion lowered from 4,096 events to 40, so a 15-iteration task
 * has to continue as new several times and carry its conversation and counters across.
 */
let server: DevServer;
let temporal: TestTemporal;
let fake: FakeMessagesApi;

beforeAll(async () => {
  server = await startDevServer({ port: await freePort(), dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 40 } });
  temporal = await connectTemporal(server.address);
  fake = await startFakeMessagesApi();
});

const systemText = (index: number) => JSON.stringify(fake.requests[index].body.system);

/** The names of the signals one run received. */
const signalsIn = async (run: WorkflowHandle) =>
  ((await run.fetchHistory()).events ?? []).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);

test('a blocker answered before continue-as-new is still in the prompt after it', async () => {
  const creates: ScriptedTurn[] = Array.from({ length: 12 }, (_, index) => ({
    toolCalls: [{ name: 'create_file', input: { path: `f${index}.txt`, content: 'x' } }],
  }));
  fake.setResponder(
    byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which license?' } }] }, ...creates, { text: 'done' }]),
  );
  const taskQueue = uniqueName('can-blocker');
  const workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake) });
  try {
    const before = fake.requests.length;
    const handle = await temporal.client.workflow.start(agentTaskWorkflow, {
      args: [{ description: 'license question', workspace: makeWorkspace() }],
      taskQueue,
      workflowId: uniqueName('can-blocker'),
    });
    await waitForBlockers(handle);
    await handle.signal(answerBlockerSignal, { answer: 'MIT' });
    const result = await handle.result();
    expect(result.runs).toBeGreaterThanOrEqual(2);
    const qa = 'Q: Which license?\\nA: MIT';
    expect(systemText(before)).not.toContain(qa);
    expect(systemText(fake.requests.length - 1)).toContain(qa);
    // The first run is the one that was blocked and answered; the latest only carries the answer.
    const firstRun = temporal.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    expect(await signalsIn(firstRun)).toEqual([answerBlockerSignal.name]);
    expect(await signalsIn(handle)).toEqual([]);
    await recordHistory('task-blocker-before-continue-as-new-first-run', handle, handle.firstExecutionRunId);
    await recordHistory('task-blocker-before-continue-as-new', handle);
  } finally {
    await workers.stop();
  }
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
  await server?.stop();
});

test('continue-as-new carries the conversation and counters, and the task finishes', async () => {
  const iterations = 15;
  const turns: ScriptedTurn[] = Array.from({ length: iterations - 1 }, (_, index) => ({
    toolCalls: [{ name: 'create_file', input: { path: `files/f${index}.txt`, content: `${index}\n` } }],
  }));
  const script = byTurn([...turns, { text: 'all files written' }]);
  let release!: () => void;
  const following = new Promise<void>((resolve) => (release = resolve));
  // The model waits until `task follow` is watching: on a loaded machine the task could otherwise end before it starts.
  fake.setResponder(async (request) => {
    await following;
    return script(request);
  });
  const taskQueue = uniqueName('can');
  const workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake) });
  try {
    const workspace = makeWorkspace();
    const before = fake.requests.length;
    const handle = await temporal.client.workflow.start(agentTaskWorkflow, {
      args: [{ description: 'write files', workspace }],
      taskQueue,
      workflowId: uniqueName('can'),
    });
    // `task follow` keeps following the same workflow id across each continue-as-new.
    const follow$ = startCli(
      ['task', 'follow', handle.workflowId],
      { TEMPORAL_ADDRESS: server.address, CODELOOP_TASK_QUEUE: taskQueue },
      120_000,
    );
    void follow$.started.then(release);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', iterations, summary: 'all files written' });
    const follow = await follow$.done;
    expect(follow.code).toBe(0);
    expect(follow.stderr).toMatch(/· run [2-9]/);
    expect(follow.stdout).toContain('[completed]');
    expect(result.runs).toBeGreaterThanOrEqual(3);
    expect(result.filesChanged).toHaveLength(iterations - 1);
    expect(readdirSync(`${workspace}/files`)).toHaveLength(iterations - 1);

    // The last request holds the whole conversation: nothing was dropped at a run boundary.
    const last = fake.requests.at(-1)!.body;
    expect(last.messages).toHaveLength(2 * iterations - 1);
    expect(fake.problems).toEqual([]);

    // Spend travels too: the totals are every run's calls, as the model reported them, not the last run's.
    const calls = fake.requests.slice(before).map((request) => ({ model: request.body.model, usage: reportedUsage(request) }));
    expect(calls).toHaveLength(iterations);
    expect(result.usage).toEqual(calls.map(({ usage }) => usage).reduce(addUsage));
    expect(result.costUsd).toBeCloseTo(
      calls.reduce((sum, { usage, model }) => sum + costOf(usage, model), 0),
      12,
    );

    // The latest run answers getState with the carried counters; the first run handed over to a second.
    const state = await handle.query(getStateQuery);
    expect(state).toMatchObject({ iteration: iterations, runs: result.runs, status: 'completed' });
    const firstRun = temporal.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
    // Every run but the last stayed near the suggested size instead of growing with the whole task.
    const firstHistory = await firstRun.fetchHistory();
    expect(firstHistory.events!.length).toBeLessThan(60);
    await recordHistory('task-continued-as-new-first-run', handle, handle.firstExecutionRunId);
    await recordHistory('task-continued-as-new-last-run', handle);
  } finally {
    await workers.stop();
  }
}, 120_000);
