import { isCancellation, log } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { gitActivities } from '../common/activities.js';
import type { MergeHost, Merger } from './merge-host.js';

/**
 * The merges of batch runs whose history predates `batchMergesTogether`: one `integrateTask` per task, one at a time
 * behind a promise chain, then one `removeTaskWorktree`. Such histories replay only if these commands come in exactly
 * this order, so this stays as it was until the patch is deprecated, and then goes.
 */
export class SerialMerges implements Merger {
  private lock: Promise<void> = Promise.resolve();

  constructor(private readonly host: MergeHost) {}

  merge(state: BatchTaskState): Promise<void> {
    return this.host.inFlight.run('git', () => this.mergeOne(state));
  }

  private withLock<T>(body: () => Promise<T>): Promise<T> {
    const next = this.lock.then(body);
    this.lock = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async mergeOne(state: BatchTaskState): Promise<void> {
    const { binding, repo, worktree, title } = this.host.placeOf(state.id);
    const onHost = (summary: string) => ({ taskQueue: binding.hostQueue, summary });
    let outcome: Awaited<ReturnType<typeof gitActivities.integrateTask>>;
    try {
      outcome = await this.withLock(() =>
        gitActivities.integrateTask.executeWithOptions(onHost(`commit and merge ${state.id} into ${repo.integrationBranch}`), [
          {
            worktree,
            commitMessage: `${state.id}: ${title}`,
            integrationPath: repo.integrationPath,
            branch: state.branch!,
            mergeMessage: `Merge ${state.id}: ${title}`,
            prepare: {
              repo: repo.repo,
              batchId: this.host.batchId,
              taskIds: this.host.readyOnceMerged([state.id]).map(({ taskId }) => taskId),
            },
          },
        ]),
      );
    } catch (error) {
      if (!isCancellation(error)) this.host.mergeFailed(state, error);
      return;
    }
    if (outcome.merged) this.host.keepPrepared(outcome.prepared);
    if (!outcome.merged) {
      this.host.conflicted(state, outcome.conflicts);
      return;
    }
    this.host.merged(state);
    try {
      await gitActivities.removeTaskWorktree.executeWithOptions(onHost(`remove worktree of ${state.id}`), [
        { repo: repo.repo, path: worktree },
      ]);
    } catch (error) {
      log.warn('merged worktree left in place', { path: worktree, error: String(error) });
    }
  }
}
