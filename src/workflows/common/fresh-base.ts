import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/workspace.js';
import { ErrorType } from '../../shared/errors.js';
import type { BlockerDesk } from './blocker-desk.js';
import { remoteActivities } from './activities.js';
import type { HostActivity } from './host-wait.js';

/** Runs work on a host, waiting for its worker as the caller does (see `onHost`). */
type OnHost = <T>(hostId: string, what: string, run: HostActivity<T>) => Promise<T>;

/** What a fetch failure says: the activity's own message (git's, credentials removed), not the wrapper's. */
export const failureText = (error: unknown): string =>
  error instanceof ActivityFailure && error.cause ? error.cause.message : error instanceof Error ? error.message : String(error);

/**
 * Fetches the batch's base from `remote` on the repository's host (with the worker's credentials) and returns the
 * ref to cut the integration branch (or a task's branch) from. A fetch that fails is a question naming the remote and git's error:
 * `retry` fetches again (after fixing the remote or the worker's credentials), `stop` fails the batch.
 */
export async function fetchFreshBase(
  binding: WorkspaceBinding,
  remote: string,
  baseBranch: string | undefined,
  desk: Pick<BlockerDesk, 'ask'>,
  onHost: OnHost,
): Promise<string> {
  const summary = `fetch ${baseBranch ?? 'the default branch'} from ${remote}`;
  for (;;) {
    try {
      const fetched = await onHost(binding.hostId, summary, (limit) =>
        remoteActivities.fetchBase.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
          { repo: binding.workspace, remote, baseBranch },
        ]),
      );
      return fetched.ref;
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const why = failureText(error);
      const outcome = await desk.ask({
        origin: 'remote',
        question:
          `Fetching ${baseBranch ?? 'the default branch'} from remote ${remote} in ${binding.workspace} failed: ${why}\n` +
          `Fix the remote or the worker's git credentials and answer 'retry', or answer 'stop' to end the run.`,
        options: ['retry', 'stop'],
      });
      if (!outcome.answered || !outcome.answer.trim().toLowerCase().startsWith('retry'))
        throw ApplicationFailure.nonRetryable(`could not fetch from remote ${remote}: ${why}`, ErrorType.RemoteFailed);
    }
  }
}
