import type { Client, WorkflowHandle } from '@temporalio/client';
import type { BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { getBatchStateQuery } from '../../src/shared/messages.js';
import { eventually } from './polling.js';

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
