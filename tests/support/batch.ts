import type { Client, WorkflowHandle } from '@temporalio/client';
import type { BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { getBatchStateQuery } from '../../src/shared/messages.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { eventually } from './polling.js';
import type { TaskHarness } from './task-harness.js';
import { uniqueName } from './names.js';

/** Starts `batchConductorWorkflow` on the harness's queue, under a fresh workflow id that starts with `prefix`. */
export function startBatchOn(harness: TaskHarness, prefix: string, input: Record<string, unknown>) {
  return harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName(prefix),
  });
}

/** A batch task titled `Task <id>`, the title a scripted model routes its requests by (`byTask`). */
export const batchTask = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });

/** Polls a batch's `getBatchState` until `predicate` holds and returns that state. */
export async function waitForBatch(
  handle: WorkflowHandle,
  predicate: (state: BatchStateSnapshot) => boolean,
  intervalMs = 150,
): Promise<BatchStateSnapshot> {
  const state = await eventually(
    () => handle.query(getBatchStateQuery).catch(() => undefined),
    (current) => current !== undefined && predicate(current),
    'batch state never matched',
    { intervalMs },
  );
  return state!;
}

/** How many runs of `workflowId` the server has: one per execution, continue-as-new included. */
export async function countRuns(client: Client, workflowId: string): Promise<number> {
  let count = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) count += 1;
  return count;
}
