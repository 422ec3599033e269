import { commitAll, cutTaskWorktrees, mergeBranch, type PreparedWorktree } from './batch-repo.js';

export interface IntegrateTasksRequest {
  repo: string;
  batchId: string;
  integrationPath: string;
  /** Merged in this order, one merge commit each. */
  tasks: { taskId: string; worktree: string; branch: string; commitMessage: string; mergeMessage: string }[];
  /** Dependents to cut from the new integration tip, each only if every task it waits for here merged. */
  prepare: { taskId: string; after: string[] }[];
}

export interface IntegrateTasksResult {
  merged: string[];
  conflicts: { taskId: string; files: string[] }[];
  prepared: PreparedWorktree[];
}

/**
 * Every task that finished while the previous merge ran, in one step: their worktrees committed side by side, their
 * branches merged one by one (a conflict is aborted and reported, the others still merge), and the worktrees of the
 * dependents that are now ready cut from the new tip. One step for many tasks is what keeps a dependent's wait short
 * when many tasks end at once. Safe to repeat: nothing to commit and already merged are both fine.
 */
export async function integrateTasks(input: IntegrateTasksRequest, worktreesDir?: string): Promise<IntegrateTasksResult> {
  await Promise.all(input.tasks.map((task) => commitAll(task.worktree, task.commitMessage)));
  const result: IntegrateTasksResult = { merged: [], conflicts: [], prepared: [] };
  for (const task of input.tasks) {
    const files = await mergeBranch(input.integrationPath, task.branch, task.mergeMessage);
    if (files.length === 0) result.merged.push(task.taskId);
    else result.conflicts.push({ taskId: task.taskId, files });
  }
  const ready = input.prepare.filter((dependent) => dependent.after.every((taskId) => result.merged.includes(taskId)));
  const readyIds = ready.map((dependent) => dependent.taskId);
  if (readyIds.length > 0) result.prepared = await cutTaskWorktrees(input.repo, input.batchId, readyIds, worktreesDir);
  return result;
}
