import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors.js';
import { git, tryGit } from './run-git.js';

/** Where a batch's worktrees live: beside the repository, never inside another task's tree. */
export function worktreeRoot(repo: string, batchId: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.CODELOOP_WORKTREES_DIR || path.join(path.dirname(repo), '.codeloop-worktrees', path.basename(repo));
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
export async function prepareBatchRepo(input: { repo: string; batchId: string; baseBranch?: string }): Promise<BatchRepo> {
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
    throw ApplicationFailure.nonRetryable(`base ${baseRef} does not name a commit in ${repo}; commit something first or pass baseBranch`, ErrorType.InvalidInput);
  }
  const integrationBranch = branchFor(input.batchId, 'integration');
  const integrationPath = path.join(worktreeRoot(repo, input.batchId), '_integration');
  if (!(await tryGit(repo, ['rev-parse', '--verify', `refs/heads/${integrationBranch}`])).ok) await git(repo, ['branch', integrationBranch, baseRef]);
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
export async function createTaskWorktree(input: { repo: string; batchId: string; taskId: string; fresh?: boolean }): Promise<{ path: string; branch: string }> {
  const branch = branchFor(input.batchId, input.taskId);
  const worktree = path.join(worktreeRoot(input.repo, input.batchId), input.taskId);
  if (existsSync(worktree) && !input.fresh) return { path: worktree, branch };
  await removeWorktree(input.repo, worktree);
  await mkdir(path.dirname(worktree), { recursive: true });
  await git(input.repo, ['worktree', 'add', '-B', branch, worktree, branchFor(input.batchId, 'integration')]);
  return { path: worktree, branch };
}

/** Commits whatever the task left in its worktree; nothing to commit is fine. */
export async function commitTaskWork(input: { path: string; message: string }): Promise<void> {
  await git(input.path, ['add', '-A']);
  const clean = (await tryGit(input.path, ['diff', '--cached', '--quiet'])).ok;
  if (!clean) await git(input.path, ['commit', '-q', '-m', input.message]);
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
  if ((await tryGit(cwd, ['merge-base', '--is-ancestor', input.branch, 'HEAD'])).ok) return { merged: true, commit: await git(cwd, ['rev-parse', 'HEAD']) };
  const merge = await tryGit(cwd, ['merge', '--no-ff', '-q', '-m', input.message, input.branch]);
  if (merge.ok) return { merged: true, commit: await git(cwd, ['rev-parse', 'HEAD']) };
  const conflicts = (await tryGit(cwd, ['diff', '--name-only', '--diff-filter=U'])).stdout.split('\n').filter(Boolean);
  await tryGit(cwd, ['merge', '--abort']);
  if (conflicts.length === 0) throw new Error(`git merge of ${input.branch} failed: ${merge.stderr || merge.stdout}`);
  return { merged: false, conflicts };
}

/** Removes a worktree (its branch stays); gone already is fine. */
export async function removeWorktree(repo: string, worktree: string): Promise<void> {
  if (existsSync(worktree)) await tryGit(repo, ['worktree', 'remove', '--force', worktree]);
  await rm(worktree, { recursive: true, force: true });
  await tryGit(repo, ['worktree', 'prune']);
}

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
 * Commits a finished task's worktree, merges its branch, and cuts the worktrees of the dependents the merge makes
 * ready, in one step: the fewer round trips between a task ending and its dependents starting, the shorter the
 * batch's critical path. Safe to repeat: nothing to commit, already merged and an existing worktree are all fine.
 */
export async function integrateTask(input: IntegrateRequest): Promise<MergeOutcome & { prepared: PreparedWorktree[] }> {
  await commitTaskWork({ path: input.worktree, message: input.commitMessage });
  const outcome = await mergeTaskBranch({ integrationPath: input.integrationPath, branch: input.branch, message: input.mergeMessage });
  const prepared: PreparedWorktree[] = [];
  if (outcome.merged && input.prepare) {
    const { repo, batchId, taskIds } = input.prepare;
    for (const taskId of taskIds) prepared.push({ taskId, ...(await createTaskWorktree({ repo, batchId, taskId, fresh: true })) });
  }
  return { ...outcome, prepared };
}
