import { condition, isCancellation } from '@temporalio/workflow';
import type { IntegrateTasksRequest } from '../../activities/git/index.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { gitActivities } from '../common/activities.js';
import type { BatchParts } from './batch-parts.js';
import { mergeFailed, settleMerge, type Merger } from './merge-outcome.js';
import { keepPrepared, placeOf, readyToCut } from './run-state.js';
import { deliveryRequest, noteDeliveries } from './task-context.js';
import type { WorktreeCleanup } from './worktree-cleanup.js';

/** Keeps one merge activity's input far below Temporal's 512 KB payload warning, whatever the titles. */
const MAX_TASKS_PER_MERGE = 50;

/** Merge activities under way per repository when they are pipelined: one on the host, the next on its way. */
const PIPELINE_DEPTH = 2;

/**
 * Merges finished tasks into their repository's integration branch. The tasks that finish while a merge runs wait
 * and go together into the next merge activity, so a dependent waits for at most the merge in progress and its own,
 * however many tasks end at once. The merges of one repository all move the same branch, so its host runs them one
 * after the other. `pipelined` (`batchMergesPipelined`) asks for the next merge while the one before it still runs,
 * so the host starts it the moment that one ends; without it, a merge is asked for only once the one before it has
 * come back to the batch, a round trip through the server later.
 */
export class MergeQueue implements Merger {
  private readonly waiting = new Map<string, BatchTaskState[]>();
  private readonly draining = new Map<string, Promise<void>>();
  /** Per repository, the tasks in merge activities that have not come back yet. */
  private readonly merging = new Map<string, Set<string>>();

  constructor(
    private readonly batch: BatchParts,
    private readonly cleanup: WorktreeCleanup,
    private readonly pipelined = false,
  ) {}

  merge(state: BatchTaskState): Promise<void> {
    const repo = this.placeOf(state.id).repo.repo;
    this.waiting.set(repo, [...(this.waiting.get(repo) ?? []), state]);
    let drain = this.draining.get(repo);
    if (!drain) {
      drain = this.batch.inFlight.run('git', () => (this.pipelined ? this.drainPipelined(repo) : this.drain(repo)));
      this.draining.set(repo, drain);
    }
    return drain;
  }

  private async drain(repo: string): Promise<void> {
    try {
      for (let group = this.take(repo); group.length > 0; group = this.take(repo)) await this.integrate(group);
    } finally {
      this.draining.delete(repo);
      this.cleanup.flush(repo);
    }
  }

  /** Until nothing waits or runs: whatever waits goes into a new merge activity as soon as fewer than two are under way. */
  private async drainPipelined(repo: string): Promise<void> {
    const running = new Set<Promise<void>>();
    try {
      for (;;) {
        await condition(() => running.size === 0 || (running.size < PIPELINE_DEPTH && (this.waiting.get(repo)?.length ?? 0) > 0));
        const group = this.take(repo);
        if (group.length === 0) return;
        const merge: Promise<void> = this.integrate(group)
          .catch((error) => this.batch.inFlight.fail(error))
          .finally(() => running.delete(merge));
        running.add(merge);
      }
    } finally {
      this.draining.delete(repo);
      this.cleanup.flush(repo);
    }
  }

  private take(repo: string): BatchTaskState[] {
    return (this.waiting.get(repo) ?? []).splice(0, MAX_TASKS_PER_MERGE);
  }

  private async integrate(group: BatchTaskState[]): Promise<void> {
    const places = group.map((state) => this.placeOf(state.id));
    const { binding, repo } = places[0];
    const ids = group.map((state) => state.id);
    const merging = this.merging.get(repo.repo) ?? new Set<string>();
    this.merging.set(repo.repo, merging);
    const request: IntegrateTasksRequest = {
      repo: repo.repo,
      batchId: this.batch.state.batchId,
      integrationPath: repo.integrationPath,
      tasks: group.map((state, index) => ({
        taskId: state.id,
        worktree: places[index].worktree,
        branch: state.branch!,
        commitMessage: `${state.id}: ${places[index].title}`,
        mergeMessage: `Merge ${state.id}: ${places[index].title}`,
      })),
      prepare: this.prepare(ids, [...merging]),
    };
    const describe = deliveryRequest(this.batch, ids);
    if (describe) request.describe = describe;
    if (this.pipelined) for (const id of ids) merging.add(id);
    const shown = ids.length > 3 ? `${ids.length} tasks (${ids.slice(0, 3).join(', ')}, …)` : ids.join(', ');
    const summary = `commit and merge ${shown} into ${repo.integrationBranch}`;
    const merge = this.batch
      .onHost(binding.hostId, summary, (limit) =>
        gitActivities.integrateTasks.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [request]),
      )
      .catch((error) => this.failed(group, error));
    // Unpipelined, the result is taken exactly as before the patch: a replayed history's commands keep their order.
    const result = await (this.pipelined ? merge.finally(() => ids.forEach((id) => merging.delete(id))) : merge);
    if (!result) return;
    keepPrepared(this.batch.state, result.prepared);
    if (result.delivered) noteDeliveries(this.batch, result.delivered);
    await settleMerge(this.batch, this, group, result);
    const merged = request.tasks.filter((task) => result.merged.includes(task.taskId));
    this.cleanup.remove(
      binding.hostQueue,
      repo.repo,
      merged.map((task) => task.worktree),
    );
  }

  /**
   * The dependents that merging `ids` makes ready, to be cut from the new tip in the same activity. With a merge still
   * under way (`ahead`), a dependent of both is named here with the tasks of both in its `after`, and the host cuts it
   * only once every one of them is in the integration branch; had the host run this merge first, it is cut when it
   * starts instead.
   */
  private prepare(ids: string[], ahead: string[]): IntegrateTasksRequest['prepare'] {
    if (ahead.length === 0) return readyToCut(this.batch.input, this.batch.state, ids);
    return readyToCut(this.batch.input, this.batch.state, [...ahead, ...ids]).filter(({ after }) => after.some((id) => ids.includes(id)));
  }

  /** A merge step that failed for good fails its tasks; one cancelled with the batch leaves them to the cancellation. */
  private failed(group: BatchTaskState[], error: unknown): undefined {
    if (!isCancellation(error)) for (const state of group) mergeFailed(this.batch, state, error);
    return undefined;
  }

  private placeOf(taskId: string) {
    return placeOf(this.batch.input, this.batch.state, taskId);
  }
}
