import { withHeartbeat } from '../heartbeat.js';
import {
  createTaskWorktree,
  integrateTask,
  prepareBatchRepo,
  removeWorktree,
  type BatchRepo,
  type IntegrateRequest,
  type MergeOutcome,
  type PreparedWorktree,
} from './batch-repo.js';

export type { BatchRepo } from './batch-repo.js';

/** The batch's git steps, each idempotent so a retried activity is safe: worktrees, commits, merges. */
export function createGitActivities() {
  return {
    prepareBatchRepo: (input: { repo: string; batchId: string; baseBranch?: string }): Promise<BatchRepo> =>
      withHeartbeat(() => prepareBatchRepo(input)),
    createTaskWorktree: (input: { repo: string; batchId: string; taskId: string; fresh?: boolean }): Promise<{ path: string; branch: string }> =>
      withHeartbeat(() => createTaskWorktree(input)),
    integrateTask: (input: IntegrateRequest): Promise<MergeOutcome & { prepared: PreparedWorktree[] }> => withHeartbeat(() => integrateTask(input)),
    removeTaskWorktree: (input: { repo: string; path: string }): Promise<void> => withHeartbeat(() => removeWorktree(input.repo, input.path)),
  };
}
