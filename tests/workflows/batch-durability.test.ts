import { afterAll, beforeAll, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { countRuns, waitForBatch } from '../support/batch.js';
import { byTurn, startFakeMessagesApi, type FakeMessagesApi, type Responder } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { spawnWorker } from '../support/worker-process.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

let temporal: TestTemporal;
let fake: FakeMessagesApi;

beforeAll(async () => {
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
});

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

/** Each task writes a file named after itself, slowly enough that a crash lands mid-batch. */
const writesOwnFile: Responder = async (request) => {
  const title = /## Task (\w+)\\n/.exec(JSON.stringify(request.body.system))?.[1] ?? 'unknown';
  await new Promise((resolve) => setTimeout(resolve, 300));
  return byTurn([{ toolCalls: [{ name: 'create_file', input: { path: `${title}.txt`, content: `${title}\n` } }] }, { text: 'done' }])(
    request,
  );
};

test('SIGKILL the worker mid-batch: a new worker completes it, every task run exactly once', async () => {
  fake.setResponder(writesOwnFile);
  const taskQueue = uniqueName('batch-crash');
  const env = { ...modelEnv(fake), CODELOOP_TASK_QUEUE: taskQueue, CODELOOP_HOST_ID: 'batch-crash-host' };
  const repo = makeGitRepo();
  const ids = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
  const tasks = ids.map((id, index) => ({
    id,
    title: `Task ${id}`,
    description: `write ${id}.txt`,
    dependsOn: index >= 4 ? [ids[index - 4]] : [],
  }));
  const first = await spawnWorker(env);
  const handle = await temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [{ workspace: repo, tasks, maxParallel: 3 }],
    taskQueue,
    workflowId: uniqueName('batch-crash'),
  });
  await waitForBatch(handle, (state) => state.counts.completed >= 2 && state.counts.running >= 1, 50);
  await first.kill();
  // The replacement runs in this process: a worker like the killed one, without a second process to start.
  const second = await startWorkers(temporal, { taskQueue, env, hostId: env.CODELOOP_HOST_ID });
  try {
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    for (const id of ids) {
      expect(result.tasks.find((t) => t.id === id)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(await countRuns(temporal.client, `${handle.workflowId}/${id}`)).toBe(1);
      expect(fileOnBranch(repo, result.integrationBranch!, `${id}.txt`)).toBe(`${id}\n`);
    }
    await recordHistory('batch-crash', handle);
  } finally {
    await second.stop();
  }
}, 240_000);
