import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { startFakeMessagesApi, type FakeMessagesApi } from './fake-messages-api.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from './temporal.js';

export interface TaskHarness {
  temporal: TestTemporal;
  fake: FakeMessagesApi;
  workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
  taskQueue: string;
  /** Starts `agentTaskWorkflow` on this file's queue with a fresh workflow id. */
  start(input: Record<string, unknown>, queue?: string): ReturnType<TestTemporal['client']['workflow']['start']>;
  restartWorkers(): Promise<void>;
  stopWorkers(): Promise<void>;
}

/**
 * The usual test file setup: a connection to the run's dev server, a fake Messages API, in-process workers on a
 * queue of the file's own (with `workerEnv` over the model's variables), and after each test a check that the fake
 * saw no protocol problem and served its script.
 */
export function useTaskHarness(prefix: string, workerEnv: () => NodeJS.ProcessEnv = () => ({})): TaskHarness {
  const envOf = (fake: FakeMessagesApi) => ({ ...modelEnv(fake), ...workerEnv() });
  const harness = { taskQueue: uniqueName(prefix) } as TaskHarness;
  beforeAll(async () => {
    harness.temporal = await connectTemporal();
    harness.fake = await startFakeMessagesApi();
    harness.workers = await startWorkers(harness.temporal, { taskQueue: harness.taskQueue, env: envOf(harness.fake) });
  });
  afterAll(async () => {
    await harness.workers?.stop();
    await harness.fake?.close();
    await harness.temporal?.close();
  });
  afterEach(() => {
    expect(harness.fake.problems).toEqual([]);
    expect(harness.fake.remaining()).toBe(0);
  });
  harness.start = (input, queue = harness.taskQueue) =>
    harness.temporal.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [input],
      taskQueue: queue,
      workflowId: uniqueName(prefix),
    });
  harness.stopWorkers = async () => {
    await harness.workers?.stop();
    harness.workers = undefined;
  };
  harness.restartWorkers = async () => {
    await harness.stopWorkers();
    harness.workers = await startWorkers(harness.temporal, { taskQueue: harness.taskQueue, env: envOf(harness.fake) });
  };
  return harness;
}
