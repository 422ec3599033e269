import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { temporal as proto } from '@temporalio/proto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { agentTaskWorkflow } from '../../src/workflows/index.js';
import { byTurn, startFakeMessagesApi, type FakeMessagesApi, type ScriptedTurn } from '../support/fake-messages-api.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { recordHistory } from '../support/record-history.js';
import { spawnWorker } from '../support/worker-process.js';
import { makeWorkspace, snapshotTree } from '../support/workspace.js';

/**
 * SIGKILL the worker process mid-task; a fresh worker finishes the job, and the workspace ends byte-identical to
 * an uninterrupted run. The second edit's replacement contains its own search text, so applying it twice would
 * show as a duplicated line.
 */
const seed = { 'app.py': 'x = 1\nprint(x)\n', '.venv/bin/ruff': '#!/bin/sh\nsleep 2\n' };

/**
 * The workspace's own (slow) linter runs after each edit is written, so a kill right after the write lands while
 * the edit activity is still open: its retry has to find the edit already in place.
 */
function seedWorkspace(): string {
  const workspace = makeWorkspace(seed);
  chmodSync(path.join(workspace, '.venv/bin/ruff'), 0o755);
  return workspace;
}

/** The attempt each run of one activity type took, in schedule order. */
function attemptsOf(history: proto.api.history.v1.IHistory, activityType: string): number[] {
  const events = history.events ?? [];
  const typeOf = new Map(events.map((event) => [Number(event.eventId), event.activityTaskScheduledEventAttributes?.activityType?.name]));
  return events
    .map((event) => event.activityTaskStartedEventAttributes)
    .filter((started) => started && typeOf.get(Number(started.scheduledEventId)) === activityType)
    .map((started) => started!.attempt ?? 1);
}

const edit = (search: string, replace: string): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_file', input: { path: 'app.py', edits: [{ search, replace }] } }],
});
const turns = (stallOnTurn?: number) => {
  let stalled = false;
  const stall = (turn: ScriptedTurn) => () => {
    if (stalled) return turn;
    stalled = true;
    return { ...turn, stallMs: 60_000 };
  };
  const list: ScriptedTurn[] = [
    { toolCalls: [{ name: 'read_file', input: { path: 'app.py' } }] },
    { toolCalls: [{ name: 'create_file', input: { path: 'NOTES.md', content: '# notes\n' } }] },
    edit('x = 1', 'x = 1\ny = 2'),
    edit('print(x)', 'print(x + y)'),
    { text: 'done' },
  ];
  return byTurn(list.map((turn, index) => (index === stallOnTurn ? stall(turn) : turn)));
};

let temporal: TestTemporal;
let fake: FakeMessagesApi;
let expected: Record<string, string>;

beforeAll(async () => {
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
  // The uninterrupted run, in process, gives the workspace every crashed run must end with.
  const taskQueue = uniqueName('baseline');
  const workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake) });
  try {
    fake.setResponder(turns());
    const workspace = seedWorkspace();
    await temporal.client.workflow.execute(agentTaskWorkflow, {
      args: [{ description: 'edit app', workspace }],
      taskQueue,
      workflowId: uniqueName('baseline'),
    });
    expected = snapshotTree(workspace);
  } finally {
    await workers.stop();
  }
  expect(expected['app.py']).toBe('x = 1\ny = 2\nprint(x + y)\n');
});

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

async function runWithCrash(crashWhen: (workspace: string) => boolean, stallOnTurn?: number) {
  const taskQueue = uniqueName('crash');
  const env = { ...modelEnv(fake), CODELOOP_TASK_QUEUE: taskQueue, CODELOOP_HOST_ID: 'crash-host' };
  fake.setResponder(turns(stallOnTurn));
  const workspace = seedWorkspace();
  const first = await spawnWorker(env);
  const handle = await temporal.client.workflow.start(agentTaskWorkflow, {
    args: [{ description: 'edit app', workspace }],
    taskQueue,
    workflowId: uniqueName('crash'),
  });
  const deadline = Date.now() + 30_000;
  while (!crashWhen(workspace)) {
    if (Date.now() > deadline) throw new Error(`crash point never reached:\n${first.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await first.kill();
  // The replacement runs in this process: a worker like the killed one, without a second process to start.
  const second = await startWorkers(temporal, { taskQueue, env, hostId: env.CODELOOP_HOST_ID });
  try {
    const result = await handle.result();
    await recordHistory(`task-crash-${stallOnTurn === undefined ? 'after-edit' : 'during-model-call'}`, handle);
    return { result, workspace, history: await handle.fetchHistory() };
  } finally {
    await second.stop();
  }
}

test('a worker killed right after a file edit is replaced, and no edit is applied twice', async () => {
  const { result, workspace, history } = await runWithCrash((dir) => readFileSync(path.join(dir, 'app.py'), 'utf8').includes('y = 2'));
  expect(result).toMatchObject({ status: 'completed', iterations: 5, filesChanged: ['NOTES.md', 'app.py'] });
  // The edit that was written when the worker died ran again on the new worker, and the file still has it once.
  expect(attemptsOf(history, 'editFile')).toEqual([2, 1]);
  expect(snapshotTree(workspace)).toEqual(expected);
}, 120_000);

test('a worker killed during a model call is replaced, and the call is retried', async () => {
  const before = fake.requests.length;
  const modelCallInFlight = () => fake.requests.length - before >= 4;
  const { result, workspace } = await runWithCrash(modelCallInFlight, 3);
  expect(result).toMatchObject({ status: 'completed', iterations: 5 });
  expect(snapshotTree(workspace)).toEqual(expected);
  // Turn 4 was asked twice (the killed attempt and its retry); nothing else was.
  expect(fake.requests.length - before).toBe(6);
  expect(fake.problems).toEqual([]);
}, 120_000);
