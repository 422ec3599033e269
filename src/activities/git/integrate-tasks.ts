import type { CommandAccess } from '../../shared/command-access.js';
import type { Delivery } from '../../shared/delivery.js';
import { describeDelivery } from '../delivery/describe-delivery.js';
import type { WorkspaceShell } from '../tools/run-command.js';
import { commitAll, cutTaskWorktrees, mergeBranch, type PreparedWorktree } from './batch-repo.js';
import { oneAtATime } from './one-at-a-time.js';
import { tryGit } from './run-git.js';

export interface IntegrateTasksRequest {
  repo: string;
  batchId: string;
  integrationPath: string;
  /** Merged in this order, one merge commit each. */
  tasks: { taskId: string; worktree: string; branch: string; commitMessage: string; mergeMessage: string }[];
  /** Dependents to cut from the new integration tip, each only once every task in its `after` has merged. */
  prepare: { taskId: string; after: string[] }[];
  /** Describe what each merged task delivered (see `describeDelivery`), with the names each declared it provides. */
  describe?: { provides: Record<string, string[]>; access?: CommandAccess };
}

export interface IntegrateTasksResult {
  merged: string[];
  conflicts: { taskId: string; files: string[] }[];
  prepared: PreparedWorktree[];
  /** What each merged task brought, when `describe` asked. */
  delivered?: Delivery[];
}

/**
 * Every task that finished while the previous merge ran, in one step: their worktrees committed side by side, their
 * branches merged one by one (a conflict is aborted and reported, the others still merge), and the worktrees of the
 * dependents that are now ready (every task in their `after` merged, here or by an earlier step) cut from the new
 * tip. One step for many tasks is what keeps a dependent's wait short when many tasks end at once. Safe to repeat:
 * nothing to commit and already merged are both fine.
 */
export async function integrateTasks(
  input: IntegrateTasksRequest,
  worktreesDir?: string,
  shell?: WorkspaceShell,
): Promise<IntegrateTasksResult> {
  // Each task's work is committed in its own worktree right away; the merges into the integration branch take turns
  // with those of any other merge step of the batch asked for meanwhile, in the order they were asked for.
  const committed = Promise.all(input.tasks.map((task) => commitAll(task.worktree, task.commitMessage)));
  committed.catch(() => undefined);
  return oneAtATime(`integrate ${input.integrationPath}`, async () => {
    await committed;
    const result: IntegrateTasksResult = { merged: [], conflicts: [], prepared: [] };
    const merged = mergedInto(input.integrationPath);
    for (const task of input.tasks) {
      const files = await mergeBranch(input.integrationPath, task.branch, task.mergeMessage);
      if (files.length > 0) result.conflicts.push({ taskId: task.taskId, files });
      else {
        result.merged.push(task.taskId);
        merged.add(task.taskId);
      }
    }
    if (input.describe && shell) result.delivered = await describeMerged(input, result.merged, shell);
    const ready = input.prepare.filter((dependent) => dependent.after.every((taskId) => merged.has(taskId)));
    const readyIds = ready.map((dependent) => dependent.taskId);
    if (readyIds.length > 0) result.prepared = await cutTaskWorktrees(input.repo, input.batchId, readyIds, worktreesDir);
    return result;
  });
}

async function describeMerged(input: IntegrateTasksRequest, merged: string[], shell: WorkspaceShell): Promise<Delivery[]> {
  const delivered: Delivery[] = [];
  for (const task of input.tasks.filter((candidate) => merged.includes(candidate.taskId))) {
    const commit = await mergeCommitOf(input.integrationPath, task.branch);
    const provides = input.describe?.provides[task.taskId];
    if (!commit) delivered.push({ taskId: task.taskId, files: [], names: [] });
    else
      delivered.push(
        await describeDelivery(shell, {
          taskId: task.taskId,
          cwd: input.integrationPath,
          before: `${commit}^1`,
          after: commit,
          ...(provides ? { provides } : {}),
          ...(input.describe?.access ? { access: input.describe.access } : {}),
        }),
      );
  }
  return delivered;
}

/**
 * The merge commit that brought `branch` into the integration tip: the oldest merge on the path from the branch to
 * the tip whose second parent is the branch. Found the same way on a retried step, after the merge already happened;
 * none when the branch had nothing to merge.
 */
async function mergeCommitOf(cwd: string, branch: string): Promise<string | undefined> {
  const tip = (await tryGit(cwd, ['rev-parse', branch])).stdout;
  const merges = (await tryGit(cwd, ['rev-list', '--merges', '--ancestry-path', '--reverse', `${branch}..HEAD`])).stdout.split('\n');
  for (const merge of merges.filter(Boolean)) {
    if ((await tryGit(cwd, ['rev-parse', `${merge}^2`])).stdout === tip) return merge;
  }
  return undefined;
}

/**
 * The tasks this worker has merged into each integration worktree, so that a dependent of tasks from two merges is
 * cut by the second only once the first has run. Git cannot say so itself: a task whose work is not committed yet has
 * a branch that is already an ancestor of the integration tip. Lost with the worker, and kept for the last
 * `REMEMBERED_BATCHES` batches only: a dependent not cut here is cut when it starts.
 */
const mergedIntoPath = new Map<string, Set<string>>();
const REMEMBERED_BATCHES = 100;

function mergedInto(integrationPath: string): Set<string> {
  const merged = mergedIntoPath.get(integrationPath) ?? new Set<string>();
  mergedIntoPath.delete(integrationPath);
  mergedIntoPath.set(integrationPath, merged);
  if (mergedIntoPath.size > REMEMBERED_BATCHES) mergedIntoPath.delete(mergedIntoPath.keys().next().value!);
  return merged;
}
