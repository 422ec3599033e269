import { expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { countRuns } from '../support/batch.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

/** The longest test in the suite, in a file of its own so that it runs beside the others instead of after them. */
const harness = useTaskHarness('batch-scale');

test('a 300-task batch with an instant model completes, continuing as new on the way', async () => {
  harness.fake.setResponder(() => ({ text: 'done' }));
  const tasks = Array.from({ length: 300 }, (_, index) => ({
    id: `t${index}`,
    title: `Task ${index}`,
    description: 'nothing to change',
    dependsOn: index < 10 ? [] : [`t${(index * 7) % index}`, `t${index - 10}`].filter((id, position, all) => all.indexOf(id) === position),
  }));
  const handle = await harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [{ workspace: makeGitRepo(), tasks, maxParallel: 16 }],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-scale'),
  });
  const result = (await handle.result()) as BatchResult;
  expect(result.totals.tasks.completed).toBe(300);
  expect(result.runs).toBeGreaterThan(1);
  expect(await countRuns(harness.temporal.client, handle.workflowId)).toBe(result.runs);
}, 900_000);
