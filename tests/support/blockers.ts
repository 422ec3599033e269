import type { WorkflowHandle } from '@temporalio/client';
import type { Blocker } from '../../src/shared/blockers.js';
import type { TaskStateSnapshot } from '../../src/shared/task-state.js';
import { getStateQuery } from '../../src/shared/messages.js';
import { eventually } from './polling.js';

/** Polls `getState` until `predicate` holds; queries are answered by whichever worker holds the workflow. */
export async function waitForState(
  handle: WorkflowHandle,
  predicate: (state: TaskStateSnapshot) => boolean,
  timeoutMs = 30_000,
): Promise<TaskStateSnapshot> {
  const state = await eventually(
    () => handle.query(getStateQuery).catch(() => undefined),
    (current) => current !== undefined && predicate(current),
    'state never matched; last',
    { timeoutMs, intervalMs: 100 },
  );
  return state!;
}

/** Waits until `count` blockers are open and returns them. */
export async function waitForBlockers(handle: WorkflowHandle, count = 1): Promise<Blocker[]> {
  return (await waitForState(handle, (state) => state.openBlockers.length >= count)).openBlockers;
}
