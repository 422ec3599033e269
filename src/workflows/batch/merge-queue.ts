import { isCancellation } from '@temporalio/workflow';
import type { IntegrateTasksRequest } from '../../activities/git/index.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { gitActivities } from '../common/activities.js';
import type { MergeHost, Merger } from './merge-host.js';
import type { WorktreeCleanup } from './worktree-cleanup.js';

/** Keeps one merge activity's input far below Temporal's 512 KB payload warning, whatever the titles. */
const MAX_TASKS_PER_MERGE = 50;

/**
 * Merges finished tasks into their repository's integration branch. One merge activity runs per repository at a
 * time (they all move the same branch); the tasks that finish meanwhile wait and go together into the next one, so
 * a dependent waits for at most the merge in progress and its own, however many tasks end at once.
 */
export class MergeQueue implements Merger {
  private readonly waiting = new Map<string, BatchTaskState[]>();
  private readonly draining = new Map<string, Promise<void>>();

  constructor(
    private readonly host: MergeHost,
    private readonly cleanup: WorktreeCleanup,
  ) {}

  merge(state: BatchTaskState): Promise<void> {
    const repo = this.host.placeOf(state.id).repo.repo;
    this.waiting.set(repo, [...(this.waiting.get(repo) ?? []), state]);
    let drain = this.draining.get(repo);
    if (!drain) {
      drain = this.host.inFlight.run('git', () => this.drain(repo));
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

  private take(repo: string): BatchTaskState[] {
    return (this.waiting.get(repo) ?? []).splice(0, MAX_TASKS_PER_MERGE);
  }

  private async integrate(group: BatchTaskState[]): Promise<void> {
    const places = group.map((state) => this.host.placeOf(state.id));
    const { binding, repo } = places[0];
    const ids = group.map((state) => state.id);
    const request: IntegrateTasksRequest = {
      repo: repo.repo,
      batchId: this.host.batchId,
      integrationPath: repo.integrationPath,
      tasks: group.map((state, index) => ({
        taskId: state.id,
        worktree: places[index].worktree,
        branch: state.branch!,
        commitMessage: `${state.id}: ${places[index].title}`,
        mergeMessage: `Merge ${state.id}: ${places[index].title}`,
      })),
      prepare: this.host.readyOnceMerged(ids),
    };
    const shown = ids.length > 3 ? `${ids.length} tasks (${ids.slice(0, 3).join(', ')}, …)` : ids.join(', ');
    const summary = `commit and merge ${shown} into ${repo.integrationBranch}`;
    const result = await gitActivities.integrateTasks
      .executeWithOptions({ taskQueue: binding.hostQueue, summary }, [request])
      .catch((error) => this.failed(group, error));
    if (!result) return;
    this.host.keepPrepared(result.prepared);
    for (const state of group) {
      const conflict = result.conflicts.find((candidate) => candidate.taskId === state.id);
      if (conflict) this.host.conflicted(state, conflict.files);
      else this.host.merged(state);
    }
    const merged = request.tasks.filter((task) => result.merged.includes(task.taskId));
    this.cleanup.remove(
      binding.hostQueue,
      repo.repo,
      merged.map((task) => task.worktree),
    );
  }

  /** A merge step that failed for good fails its tasks; one cancelled with the batch leaves them to the cancellation. */
  private failed(group: BatchTaskState[], error: unknown): undefined {
    if (!isCancellation(error)) for (const state of group) this.host.mergeFailed(state, error);
    return undefined;
  }
}
