import type { BatchRepo, PreparedWorktree } from '../../activities/git/index.js';
import type { WorkspaceBinding } from '../../activities/workspace.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import type { Delivery } from '../../shared/delivery.js';
import type { IntegrateTasksRequest } from '../../activities/git/index.js';
import type { HostRunner } from './host-wait.js';
import type { InFlight } from './in-flight.js';

/** Where a task's work is: the repository, the host that holds it, and the task's worktree there. */
export interface TaskPlace {
  binding: WorkspaceBinding;
  repo: BatchRepo;
  worktree: string;
  title: string;
}

/** What merging needs from the batch, and what it tells the batch back. */
export interface MergeHost {
  readonly batchId: string;
  readonly inFlight: InFlight;
  /** Runs a merge on its repository's host, asking a human if the host does not take it in time. */
  readonly onHost: HostRunner;
  placeOf(taskId: string): TaskPlace;
  /** The pending tasks of the same repository that merging `group` makes ready (see `readyOnceMerged`). */
  readyOnceMerged(group: string[]): { taskId: string; after: string[] }[];
  keepPrepared(worktrees: PreparedWorktree[]): void;
  merged(state: BatchTaskState): void;
  conflicted(state: BatchTaskState, files: string[]): void;
  mergeFailed(state: BatchTaskState, error: unknown): void;
  /** What to ask the merge step to read of these tasks' merges; nothing for a run from before `batchTaskContext`. */
  deliveryRequest(ids: string[]): IntegrateTasksRequest['describe'];
  /** What the merged tasks delivered, kept for their dependents. */
  delivered(deliveries: Delivery[]): void;
  /** Whether merged tasks wait for the gates on the integration branch (`batchVerifiesIntegration`). */
  readonly verifiesIntegration: boolean;
  /** Runs the gates on the integration branch after these tasks merged, then settles each (see `BatchRun`). */
  verifyMerged(states: BatchTaskState[]): Promise<void>;
}

/** Brings finished tasks' branches into their repository's integration branch. */
export interface Merger {
  /** Settles once the merge step that takes `state` is over: merged, conflicting or failed. */
  merge(state: BatchTaskState): Promise<void>;
}
