import { afterAll, beforeAll, expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { countRuns } from '../support/batch.js';
import { startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

/** The longest test in the suite, in a file of its own so that it runs beside the others instead of after them. */

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

test('a 300-task batch with an instant model completes, continuing as new on the way', async () => {
  fake.setResponder(() => ({ text: 'done' }));
  const taskQueue = uniqueName('batch-scale');
  const workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake) });
  try {
    const tasks = Array.from({ length: 300 }, (_, index) => ({
      id: `t${index}`,
      title: `Task ${index}`,
      description: 'nothing to change',
      dependsOn:
        index < 10 ? [] : [`t${(index * 7) % index}`, `t${index - 10}`].filter((id, position, all) => all.indexOf(id) === position),
    }));
    const handle = await temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
      args: [{ workspace: makeGitRepo(), tasks, maxParallel: 16 }],
      taskQueue,
      workflowId: uniqueName('batch-scale'),
    });
    const result = (await handle.result()) as BatchResult;
    expect(result.totals.tasks.completed).toBe(300);
    expect(result.runs).toBeGreaterThan(1);
    const runs = await countRuns(temporal.client, handle.workflowId);
    expect(runs).toBe(result.runs);
  } finally {
    await workers.stop();
  }
}, 900_000);
