import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors.js';
import { worktreeStateDir } from '../process/workspace-mounts.js';
import { removeTree } from '../remove-tree.js';
import { git, tryGit } from './run-git.js';
import { stageAll } from './stage-all.js';
import { mergeSharedDocuments } from './shared-documents.js';

/**
 * Where a batch's worktrees live: beside the repository, or under `worktreesDir` (`CODELOOP_WORKTREES_DIR`) in a
 * directory of the repository's own (its name and a hash of its path: a batch over two repositories on one host, or two
 * checkouts both called `app`, never share an integration worktree); never inside another task's tree.
 */
export function worktreeRoot(repo: string, batchId: string, worktreesDir?: string): string {
  const own = `${path.basename(repo)}-${createHash('sha256').update(repo).digest('hex').slice(0, 8)}`;
  const base = worktreesDir ? path.join(worktreesDir, own) : path.join(path.dirname(repo), '.codeloop-worktrees', path.basename(repo));
  return path.join(base, batchId);
}

export const branchFor = (batchId: string, name: string) => `codeloop/${batchId}/${name}`;

export interface BatchRepo {
  repo: string;
  integrationBranch: string;
  integrationPath: string;
  baseRef: string;
}

/**
 * The batch's integration branch, cut from `baseBranch` (default: the checked-out branch), with a worktree of its
 * own where task branches merge. The user's own checkout is never touched. Safe to run again.
 */
export async function prepareBatchRepo(
  input: { repo: string; batchId: string; baseBranch?: string },
  worktreesDir?: string,
): Promise<BatchRepo> {
  const top = await tryGit(input.repo, ['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    throw ApplicationFailure.nonRetryable(
      `workspace ${input.repo} is not a git repository; a batch gives each task its own git worktree, so run \`git init\` and commit first`,
      ErrorType.WorkspaceUnavailable,
    );
  }
  const repo = top.stdout;
  const baseRef = input.baseBranch ?? ((await tryGit(repo, ['symbolic-ref', '--short', 'HEAD'])).stdout || 'HEAD');
  if (!(await tryGit(repo, ['rev-parse', '--verify', `${baseRef}^{commit}`])).ok) {
    throw ApplicationFailure.nonRetryable(
      `base ${baseRef} does not name a commit in ${repo}; commit something first or pass baseBranch`,
      ErrorType.InvalidInput,
    );
  }
  const integrationBranch = branchFor(input.batchId, 'integration');
  const integrationPath = path.join(worktreeRoot(repo, input.batchId, worktreesDir), '_integration');
  if (!(await tryGit(repo, ['rev-parse', '--verify', `refs/heads/${integrationBranch}`])).ok)
    await git(repo, ['branch', integrationBranch, baseRef]);
  if (!existsSync(integrationPath)) {
    await mkdir(path.dirname(integrationPath), { recursive: true });
    await git(repo, ['worktree', 'add', integrationPath, integrationBranch]);
  }
  return { repo, integrationBranch, integrationPath, baseRef };
}

/**
 * A task's own worktree and branch, cut from the integration branch as it is now (its dependencies merged).
 * `fresh` starts over from the current integration tip, for a re-run after a conflict.
 */
export async function createTaskWorktree(
  input: { repo: string; batchId: string; taskId: string; fresh?: boolean },
  worktreesDir?: string,
): Promise<{ path: string; branch: string }> {
  const worktree = taskWorktree(input.repo, input.batchId, input.taskId, worktreesDir);
  if (existsSync(worktree.path) && !input.fresh) return worktree;
  await deleteWorktree(input.repo, worktree.path);
  await addTaskWorktree(input.repo, input.batchId, worktree);
  return worktree;
}

/** Fresh worktrees for several tasks from the integration tip, cut side by side. */
export async function cutTaskWorktrees(
  repo: string,
  batchId: string,
  taskIds: string[],
  worktreesDir?: string,
): Promise<PreparedWorktree[]> {
  const worktrees = taskIds.map((taskId) => ({ taskId, ...taskWorktree(repo, batchId, taskId, worktreesDir) }));
  for (const worktree of worktrees) await deleteWorktree(repo, worktree.path);
  await Promise.all(worktrees.map((worktree) => addTaskWorktree(repo, batchId, worktree)));
  return worktrees;
}

const taskWorktree = (repo: string, batchId: string, taskId: string, worktreesDir?: string) => ({
  path: path.join(worktreeRoot(repo, batchId, worktreesDir), taskId),
  branch: branchFor(batchId, taskId),
});

/** `git worktree add`; a stale registration in the way (its directory deleted by hand) is pruned and it tries again. */
async function addTaskWorktree(repo: string, batchId: string, worktree: { path: string; branch: string }): Promise<void> {
  await mkdir(path.dirname(worktree.path), { recursive: true });
  const add = ['worktree', 'add', '-B', worktree.branch, worktree.path, branchFor(batchId, 'integration')];
  if (!(await tryGit(repo, add)).ok) {
    await tryGit(repo, ['worktree', 'prune']);
    await git(repo, add);
  }
}

/**
 * Commits whatever a task left in its worktree (see `stageAll`: its dependency links aside, nested repositories as
 * gitlinks); false when there was nothing to commit, which is fine.
 */
export async function commitAll(worktree: string, message: string): Promise<boolean> {
  await stageAll(worktree);
  if ((await tryGit(worktree, ['diff', '--cached', '--quiet'])).ok) return false;
  await git(worktree, ['commit', '-q', '-m', message]);
  return true;
}

export type MergeOutcome = { merged: true; commit: string } | { merged: false; conflicts: string[] };

export interface PreparedWorktree {
  taskId: string;
  path: string;
  branch: string;
}

/**
 * Merges a task branch into the integration branch, in the integration worktree. A conflict aborts the merge and
 * names the files, so the batch can ask a human. Merging a branch that is already in is a no-op, so a retry is safe.
 */
export async function mergeTaskBranch(input: { integrationPath: string; branch: string; message: string }): Promise<MergeOutcome> {
  const cwd = input.integrationPath;
  if (!(await tryGit(cwd, ['merge-base', '--is-ancestor', input.branch, 'HEAD'])).ok) {
    const conflicts = await mergeBranch(cwd, input.branch, input.message);
    if (conflicts.length > 0) return { merged: false, conflicts };
  }
  return { merged: true, commit: await git(cwd, ['rev-parse', 'HEAD']) };
}

/**
 * `git merge --no-ff` in the worktree `cwd`; returns the conflicting files, none when it merged. Conflicts only in
 * shared documents where both sides added text are merged as text (see `mergeSharedDocuments`); any other conflict
 * is aborted so the worktree stays clean for the next merge. A branch already merged merges as "already up to date".
 */
export async function mergeBranch(cwd: string, branch: string, message: string): Promise<string[]> {
  const merge = await tryGit(cwd, ['merge', '--no-ff', '-q', '-m', message, branch]);
  if (merge.ok) return [];
  const unmerged = (await tryGit(cwd, ['diff', '--name-only', '--diff-filter=U'])).stdout.split('\n').filter(Boolean);
  const conflicts = await mergeSharedDocuments(cwd, unmerged, message);
  if (unmerged.length > 0 && conflicts.length === 0) return [];
  await tryGit(cwd, ['merge', '--abort']);
  if (conflicts.length === 0) throw new Error(`git merge of ${branch} failed in ${cwd}: ${merge.stderr || merge.stdout}`);
  return conflicts;
}

/** Removes a worktree (its branch stays); gone already is fine. */
export async function removeWorktree(repo: string, worktree: string): Promise<void> {
  await removeWorktrees(repo, [worktree]);
}

/** Removes several worktrees (their branches stay) and prunes their registrations once; gone already is fine. */
export async function removeWorktrees(repo: string, worktrees: string[]): Promise<void> {
  for (const worktree of worktrees) await deleteWorktree(repo, worktree);
  await tryGit(repo, ['worktree', 'prune']);
}

async function deleteWorktree(repo: string, worktree: string): Promise<void> {
  if (existsSync(worktree)) await tryGit(repo, ['worktree', 'remove', '--force', worktree]);
  await removeTree(worktree);
  await removeTree(worktreeStateDir(worktree));
}
