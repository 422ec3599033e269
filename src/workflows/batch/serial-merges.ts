import { isCancellation, log } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { gitActivities } from '../common/activities.js';
import type { BatchParts } from './batch-parts.js';
import { conflicted, merged, mergeFailed, type Merger } from './merge-outcome.js';
import { keepPrepared, placeOf, readyToCut } from './run-state.js';

/**
 * The merges of batch runs whose history predates `batchMergesTogether`: one `integrateTask` per task, one at a time
 * behind a promise chain, then one `removeTaskWorktree`. Such histories replay only if these commands come in exactly
 * this order, so this stays as it was until the patch is deprecated (see `before-patches.ts`), and then goes.
 */
export class SerialMerges implements Merger {
  private lock: Promise<void> = Promise.resolve();

  constructor(private readonly batch: BatchParts) {}

  merge(state: BatchTaskState): Promise<void> {
    return this.batch.inFlight.run('git', () => this.mergeOne(state));
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
    const { binding, repo, worktree, title } = placeOf(this.batch.input, this.batch.state, state.id);
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
              batchId: this.batch.state.batchId,
              taskIds: readyToCut(this.batch.input, this.batch.state, [state.id]).map(({ taskId }) => taskId),
            },
          },
        ]),
      );
    } catch (error) {
      if (!isCancellation(error)) mergeFailed(this.batch, state, error);
      return;
    }
    if (outcome.merged) keepPrepared(this.batch.state, outcome.prepared);
    if (!outcome.merged) {
      conflicted(this.batch, this, state, outcome.conflicts);
      return;
    }
    merged(this.batch, state);
    try {
      await gitActivities.removeTaskWorktree.executeWithOptions(onHost(`remove worktree of ${state.id}`), [
        { repo: repo.repo, path: worktree },
      ]);
    } catch (error) {
      log.warn('merged worktree left in place', { path: worktree, error: String(error) });
    }
  }
}
