import { commitAll, createTaskWorktree, mergeTaskBranch, type MergeOutcome, type PreparedWorktree } from './batch-repo.js';

export interface IntegrateRequest {
  worktree: string;
  commitMessage: string;
  integrationPath: string;
  branch: string;
  mergeMessage: string;
  /** Dependents this merge makes ready: their worktrees are cut from the new integration tip right away. */
  prepare?: { repo: string; batchId: string; taskIds: string[] };
}

/**
 * One finished task: commits its worktree, merges its branch and cuts the worktrees of the dependents the merge makes
 * ready. Only batch runs whose history predates `integrateTasks` schedule it; it goes with the `batchMergesTogether`
 * patch. Safe to repeat: nothing to commit, already merged and an existing worktree are all fine.
 */
export async function integrateTask(
  input: IntegrateRequest,
  worktreesDir?: string,
): Promise<MergeOutcome & { prepared: PreparedWorktree[] }> {
  await commitAll(input.worktree, input.commitMessage);
  const outcome = await mergeTaskBranch({ integrationPath: input.integrationPath, branch: input.branch, message: input.mergeMessage });
  const prepared: PreparedWorktree[] = [];
  if (outcome.merged && input.prepare) {
    const { repo, batchId, taskIds } = input.prepare;
    for (const taskId of taskIds)
      prepared.push({ taskId, ...(await createTaskWorktree({ repo, batchId, taskId, fresh: true }, worktreesDir)) });
  }
  return { ...outcome, prepared };
}
