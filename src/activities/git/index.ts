import { withHeartbeat } from '../heartbeat.js';
import { commitTaskWork, createTaskWorktree, mergeTaskBranch, prepareBatchRepo, removeWorktree, type BatchRepo, type MergeOutcome } from './batch-repo.js';

export type { BatchRepo, MergeOutcome } from './batch-repo.js';

/** The batch's git steps, each idempotent so a retried activity is safe: worktrees, commits, merges. */
export function createGitActivities() {
  return {
    prepareBatchRepo: (input: { repo: string; batchId: string; baseBranch?: string }): Promise<BatchRepo> =>
      withHeartbeat(() => prepareBatchRepo(input)),
    createTaskWorktree: (input: { repo: string; batchId: string; taskId: string; fresh?: boolean }): Promise<{ path: string; branch: string }> =>
      withHeartbeat(() => createTaskWorktree(input)),
    commitTaskWork: (input: { path: string; message: string }): Promise<{ commit: string; changed: boolean }> =>
      withHeartbeat(() => commitTaskWork(input)),
    mergeTaskBranch: (input: { integrationPath: string; branch: string; message: string }): Promise<MergeOutcome> =>
      withHeartbeat(() => mergeTaskBranch(input)),
    removeTaskWorktree: (input: { repo: string; path: string }): Promise<void> => withHeartbeat(() => removeWorktree(input.repo, input.path)),
  };
}
