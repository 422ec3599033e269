import { ActivityFailure } from '@temporalio/workflow';
import type { BatchInput } from '../../shared/batch-input.js';
import type { BatchResult, BatchTaskState } from '../../shared/batch-state.js';
import { describeTarget, type NotificationOutcome, type PublishedBranch } from '../../shared/mornings.js';
import { notifyActivities, remoteActivities } from '../common/activities.js';
import type { RepoState } from './batch-setup.js';
import { failureText } from '../common/fresh-base.js';

/** Where a branch to publish lives, and what its pull request is about. */
interface BranchToPublish {
  place: RepoState;
  branch: string;
  taskId?: string;
  title?: string;
}

/**
 * The branches `publish` pushes: each repository's integration branch when something merged into it (`batch`, or
 * `none` for the push alone), or each completed task's own branch (`task`).
 */
function branchesToPublish(input: BatchInput, states: BatchTaskState[], placeOf: (taskId: string) => RepoState): BranchToPublish[] {
  const completed = states.filter((state) => state.status === 'completed' && state.branch);
  if (input.publish?.pullRequest === 'task')
    return completed.map((state) => ({
      place: placeOf(state.id),
      branch: state.branch!,
      taskId: state.id,
      title: `codeloop ${state.id}: ${state.title}`,
    }));
  const places = new Map<string, RepoState>();
  for (const state of completed) {
    const place = placeOf(state.id);
    places.set(place.repo.repo, place);
  }
  return [...places.values()].map((place) => ({ place, branch: place.repo.integrationBranch }));
}

/**
 * Pushes the night's branches and opens or updates their pull requests, each on its repository's host. The step is
 * idempotent (one pull request per branch, updated on a second run); a failure is recorded, never fails the batch.
 */
export async function publishNight(
  input: BatchInput,
  result: BatchResult,
  states: BatchTaskState[],
  placeOf: (taskId: string) => RepoState,
): Promise<PublishedBranch[]> {
  const publish = input.publish!;
  const published: PublishedBranch[] = [];
  for (const { place, branch, taskId, title } of branchesToPublish(input, states, placeOf)) {
    const summary = `publish ${branch} to ${publish.remote}`;
    try {
      published.push(
        await remoteActivities.publishBranch.executeWithOptions({ taskQueue: place.binding.hostQueue, summary }, [
          { repo: place.repo.repo, branch, diffBase: place.repo.baseRef, publish, baseBranch: input.baseBranch, result, taskId, title },
        ]),
      );
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      published.push({ branch, remote: publish.remote, ...(taskId ? { taskId } : {}), error: failureText(error) });
    }
  }
  return published;
}

/** Sends the morning message to every `notify` target; each delivery is retried, and its failure only recorded. */
export async function notifyNight(input: BatchInput, result: BatchResult, published: PublishedBranch[]): Promise<NotificationOutcome[]> {
  const pullRequests = published.flatMap((branch) => (branch.pullRequest ? [branch.pullRequest.url] : []));
  return Promise.all(
    (input.notify ?? []).map(async (target): Promise<NotificationOutcome> => {
      const name = describeTarget(target);
      try {
        await notifyActivities.deliverNotification.executeWithOptions({ summary: `notify ${name}` }, [
          { target, news: { result, pullRequests } },
        ]);
        return { target: name, ok: true };
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        return { target: name, ok: false, error: failureText(error) };
      }
    }),
  );
}
