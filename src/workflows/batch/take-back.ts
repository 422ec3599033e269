import type { BatchTaskState } from '../../shared/batch-state.js';
import { gitActivities } from '../common/activities.js';
import type { BatchParts } from './batch-parts.js';
import type { TaskPlace } from './batch-setup.js';
import { placeOf } from './run-state.js';

/**
 * As the batch ends (`batchTakesBackFailedMerges`): a task that failed after its merge broke the integration branch
 * (a human answered 'fail', or the batch was ending and could not run it again) has its merges reverted there, so
 * the branch that is published holds only work that stands; then that branch's gates run again, and the batch's
 * integration verdict is theirs. A revert that conflicts with what merged after it leaves the branch as it was, and
 * the task's reason says so. Before, the failed work stayed in the branch.
 */
export async function takeBackFailedMerges(batch: BatchParts): Promise<void> {
  const failed = batch.state.states.filter((state) => state.status === 'failed' && state.integrationFailure && state.branch);
  if (failed.length === 0) return;
  // Each repository whose integration branch lost a merge, with where its gates run.
  const changed = new Map<string, TaskPlace>();
  for (const state of failed) {
    const place = placeOf(batch.input, batch.state, state.id);
    const { binding, repo } = place;
    const summary = `take ${state.id}'s merges back out of ${repo.integrationBranch}`;
    const outcome = await batch.onHost(binding.hostId, summary, (limit) =>
      gitActivities.revertTaskMerges.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [
        {
          integrationPath: repo.integrationPath,
          branch: state.branch!,
          mergeSubject: `Merge ${state.id}: `,
          base: repo.baseRef,
          message: `Revert ${state.id}: ${place.title} (it failed after its merge broke ${repo.integrationBranch})`,
        },
      ]),
    );
    noteTakenBack(state, repo.integrationBranch, outcome);
    if (outcome.reverted.length > 0) changed.set(repo.repo, place);
  }
  for (const place of changed.values()) await batch.verifier.verify(place);
  batch.publish();
}

function noteTakenBack(state: BatchTaskState, branch: string, outcome: { reverted: string[]; failed?: string }): void {
  if (outcome.failed) state.reason = `${state.reason}; its merge stays in ${branch}: ${outcome.failed}`;
  else if (outcome.reverted.length > 0) state.reason = `${state.reason}; its merge was taken back out of ${branch}`;
}
