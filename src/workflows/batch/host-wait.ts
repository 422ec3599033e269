import { ApplicationFailure } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { STOP_WORDS } from '../../shared/blockers.js';
import type { BlockerDesk } from '../common/blocker-desk.js';
import { hostLostQuestion, type HostActivity, type HostWait } from '../common/host-wait.js';
import * as lifecycle from './task-lifecycle.js';

/**
 * Runs the batch's own activity on a host's queue (`hostId`; none for the shared queue), with the host wait below
 * when the run takes it: `run` gets the `scheduleToStartTimeout` to add to its options.
 */
export type HostRunner = <T>(hostId: string | undefined, what: string, run: HostActivity<T>) => Promise<T>;

export interface BatchHostWait {
  desk: BlockerDesk;
  /** The tasks' `hostTimeout`. */
  timeout: string;
  /** Time left before the batch's deadline, if it has one: an unanswered question ends there. */
  remainingMs(): number | undefined;
  publish(): void;
}

/**
 * How the batch's own work on a host (binding, its integration branch, a task's worktree, merges) waits for that
 * host's worker. Past the timeout the batch asks on its own desk, naming the host; for a task's worktree the question
 * shows on that task too. 'stop', or no answer by the deadline, fails the work; any other answer waits again.
 */
export function batchHostWait(batch: BatchHostWait, hostId: string, task?: BatchTaskState): HostWait {
  const { desk, timeout } = batch;
  return {
    timeout,
    lost: async (what) => {
      const asking = desk.ask({ origin: 'host-unavailable', ...hostLostQuestion(hostId, what, timeout) }, batch.remainingMs());
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
