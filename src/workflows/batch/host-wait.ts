import { ApplicationFailure } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { STOP_WORDS } from '../../shared/blockers.js';
import { hostLostQuestion, onHost, type HostActivity, type HostWait } from '../common/host-wait.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import type { BatchPatches } from './before-patches.js';
import type { DeadlineWatch } from './deadline.js';
import * as lifecycle from './task-lifecycle.js';

/**
 * Runs the batch's own activity on a host's queue (`hostId`; none for the shared queue), with the host wait below
 * when the run takes it: `run` gets the `scheduleToStartTimeout` to add to its options. For a task's worktree
 * (`task`) the question shows on that task too.
 */
export type HostRunner = <T>(hostId: string | undefined, what: string, run: HostActivity<T>, task?: BatchTaskState) => Promise<T>;

/** What the host wait uses of its batch: where it asks, until when, and how it shows a task's question. */
export interface HostWaitParts {
  readonly patches: Pick<BatchPatches, 'waitsForHosts'>;
  readonly desk: BlockerDesk;
  readonly deadline: Pick<DeadlineWatch, 'remainingMs'>;
  publish(): void;
}

/** The batch's way to run its own work on a host, past the tasks' `hostTimeout` asking a human on its desk. */
export function hostRunner(batch: HostWaitParts, timeout: string): HostRunner {
  return (hostId, what, run, task) => {
    if (!batch.patches.waitsForHosts || hostId === undefined) return run({});
    return onHost(batchHostWait(batch, timeout, hostId, task), what, run);
  };
}

/**
 * How the batch's own work on a host (binding, its integration branch, a task's worktree, merges) waits for that
 * host's worker. Past the timeout the batch asks on its own desk, naming the host; for a task's worktree the question
 * shows on that task too. 'stop', or no answer by the deadline, fails the work; any other answer waits again.
 */
function batchHostWait(batch: HostWaitParts, timeout: string, hostId: string, task?: BatchTaskState): HostWait {
  const { desk } = batch;
  return {
    timeout,
    lost: async (what) => {
      const asking = desk.ask({ origin: 'host-unavailable', ...hostLostQuestion(hostId, what, timeout) }, batch.deadline.remainingMs());
      if (task) {
        // `ask` opens its blocker before it first waits, so the newest open one is this one.
        const { id, question } = desk.open().at(-1)!;
        lifecycle.noteBlockers(task, [{ id, question }]);
        batch.publish();
      }
      const outcome = await asking;
      if (task) lifecycle.noteBlockers(task, []);
      if (!outcome.answered || STOP_WORDS.test(outcome.answer)) {
        throw ApplicationFailure.nonRetryable(
          `host ${hostId} did not take "${what}", and the question about it was answered 'stop' or not at all`,
        );
      }
    },
  };
}
