import type { WorkflowHandle } from '@temporalio/client';
import type { Blocker } from '../../src/shared/blockers.js';
import type { TaskStateSnapshot } from '../../src/shared/task-state.js';
import { getStateQuery } from '../../src/workflows/messages.js';

/** Polls `getState` until `predicate` holds; queries are answered by whichever worker holds the workflow. */
export async function waitForState(
  handle: WorkflowHandle,
  predicate: (state: TaskStateSnapshot) => boolean,
  timeoutMs = 30_000,
): Promise<TaskStateSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last: TaskStateSnapshot | undefined;
  while (Date.now() < deadline) {
    last = await handle.query(getStateQuery).catch(() => undefined);
    if (last && predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`state never matched; last: ${JSON.stringify(last)}`);
}

/** Waits until `count` blockers are open and returns them. */
export async function waitForBlockers(handle: WorkflowHandle, count = 1): Promise<Blocker[]> {
  return (await waitForState(handle, (state) => state.openBlockers.length >= count)).openBlockers;
}
