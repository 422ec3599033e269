import { mkdirSync, realpathSync } from 'node:fs';
import { withHeartbeat } from '../heartbeat.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import {
  createTaskWorktree,
  prepareBatchRepo,
  removeWorktree,
  removeWorktrees,
  type BatchRepo,
  type MergeOutcome,
  type PreparedWorktree,
} from './batch-repo.js';
import type { GitTrailEnd } from '../../shared/git-trail.js';
import { integrateTask, type IntegrateRequest } from './integrate-task.js';
import { checkpointTask, finishTaskBranch, startTaskBranch, type TaskBranchStart } from './task-branch.js';
import { integrateTasks, type IntegrateTasksRequest, type IntegrateTasksResult } from './integrate-tasks.js';
import { revertTaskMerges, type RevertTaskMergesRequest, type RevertTaskMergesResult } from './revert-task-merges.js';

export type { BatchRepo, PreparedWorktree } from './batch-repo.js';
export type { IntegrateTasksRequest, IntegrateTasksResult } from './integrate-tasks.js';
export type { RevertTaskMergesRequest, RevertTaskMergesResult } from './revert-task-merges.js';

/**
 * The git steps of batches and of tasks with a branch of their own, each idempotent so a retried activity is safe:
 * worktrees, commits, merges. Worktrees go under `worktreesDir` when the worker has one (`CODELOOP_WORKTREES_DIR`),
 * otherwise beside each repository.
 */
export function createGitActivities(options: { worktreesDir?: string; shell?: WorkspaceShell } = {}) {
  // Worktree paths are real paths, like every workspace: the worker's reads of project files refuse a symlinked way in.
  const worktreesDir = options.worktreesDir && realDirectory(options.worktreesDir);
  return {
    prepareBatchRepo: (input: { repo: string; batchId: string; baseBranch?: string }): Promise<BatchRepo> =>
      withHeartbeat(() => prepareBatchRepo(input, worktreesDir)),
    createTaskWorktree: (input: {
      repo: string;
      batchId: string;
      taskId: string;
      fresh?: boolean;
    }): Promise<{ path: string; branch: string }> => withHeartbeat(() => createTaskWorktree(input, worktreesDir)),
    integrateTask: (input: IntegrateRequest): Promise<MergeOutcome & { prepared: PreparedWorktree[] }> =>
      withHeartbeat(() => integrateTask(input, worktreesDir)),
    integrateTasks: (input: IntegrateTasksRequest): Promise<IntegrateTasksResult> =>
      withHeartbeat(() => integrateTasks(input, worktreesDir, options.shell)),
    revertTaskMerges: (input: RevertTaskMergesRequest): Promise<RevertTaskMergesResult> => withHeartbeat(() => revertTaskMerges(input)),
    removeTaskWorktree: (input: { repo: string; path: string }): Promise<void> =>
      withHeartbeat(() => removeWorktree(input.repo, input.path)),
    removeTaskWorktrees: (input: { repo: string; paths: string[] }): Promise<void> =>
      withHeartbeat(() => removeWorktrees(input.repo, input.paths)),
    startTaskBranch: (input: { workspace: string; taskId: string; from?: string }): Promise<TaskBranchStart> =>
      withHeartbeat(() => startTaskBranch(input, worktreesDir)),
    checkpointTask: (input: { worktree: string; iteration: number }): Promise<{ commit?: string }> =>
      withHeartbeat(() => checkpointTask(input)),
    finishTaskBranch: (input: Parameters<typeof finishTaskBranch>[0]): Promise<GitTrailEnd> => withHeartbeat(() => finishTaskBranch(input)),
  };
}

function realDirectory(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}
