import type { WorkflowHandle } from '@temporalio/client';
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
