import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { GitTrail, GitTrailEnd } from '../../shared/git-trail.js';
import { commitAll, removeWorktrees, worktreeRoot } from './batch-repo.js';
import { git, tryGit } from './run-git.js';

/** Under the worktree root, beside the batches' directories: a batch id cannot start with a dot. */
const TASKS_DIR = '.tasks';

export const taskBranchFor = (taskId: string) => `codeloop/task/${taskId}`;

export type TaskBranchStart = ({ inPlace: false } & GitTrail) | { inPlace: true; why: string };

/**
 * A task's own worktree on `codeloop/task/<task-id>`, cut from the repository's current `HEAD` (or `from`); the user's checkout
 * is never touched. A workspace below the repository's top works in the same place inside the worktree. Not a git
 * repository, or one without a commit: the task works in place. Safe to repeat: an existing branch keeps its commits.
 */
export async function startTaskBranch(
  input: { workspace: string; taskId: string; from?: string },
  worktreesDir?: string,
): Promise<TaskBranchStart> {
  const top = await tryGit(input.workspace, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return { inPlace: true, why: 'the workspace is not in a git repository' };
  const repo = top.stdout;
  const head = await tryGit(repo, ['rev-parse', '--verify', 'HEAD^{commit}']);
  if (!head.ok) return { inPlace: true, why: 'the repository has no commit yet' };
  const branch = taskBranchFor(input.taskId);
  const worktree = path.join(worktreeRoot(repo, TASKS_DIR, worktreesDir), input.taskId);
  const exists = (await tryGit(repo, ['rev-parse', '--verify', `refs/heads/${branch}`])).ok;
  // `from`: a ref fetched from the task's remote, cut from instead of the checkout's HEAD.
  const start = input.from ? await git(repo, ['rev-parse', '--verify', `${input.from}^{commit}`]) : head.stdout;
  const base = exists ? await git(repo, ['merge-base', branch, start]) : start;
  if (!existsSync(worktree)) {
    await mkdir(path.dirname(worktree), { recursive: true });
    await tryGit(repo, ['worktree', 'prune']);
    await git(repo, exists ? ['worktree', 'add', worktree, branch] : ['worktree', 'add', '-b', branch, worktree, base]);
  }
  const below = path.relative(repo, await realpath(input.workspace));
  return { inPlace: false, repo, worktree, workspace: path.join(worktree, below), branch, base };
}

/** The subject of a checkpoint commit, up to its iteration number: how the task's start is found below them. */
export const CHECKPOINT_SUBJECT = 'codeloop checkpoint: iteration ';
const checkpointMessage = (iteration: number) => `${CHECKPOINT_SUBJECT}${iteration}`;

/**
 * Commits what the iteration changed. A retried call never makes a second commit: nothing is left to commit, and the
 * commit the first attempt made (the branch tip, with this iteration's message) is returned. Nothing changed at all:
 * no commit.
 */
export async function checkpointTask(input: { worktree: string; iteration: number }): Promise<{ commit?: string }> {
  const message = checkpointMessage(input.iteration);
  if (await commitAll(input.worktree, message)) return { commit: await git(input.worktree, ['rev-parse', 'HEAD']) };
  const tip = await git(input.worktree, ['log', '-1', '--format=%H%n%s']);
  const [commit, subject] = tip.split('\n');
  return subject === message ? { commit } : {};
}

/**
 * The task's end: what is left uncommitted becomes the last commit, with `message` (the task's title and summary; on
 * completion the commit is made even with nothing left, so the branch always ends with it), then the worktree goes;
 * the branch stays. Safe to repeat: a removed worktree is read from the branch.
 */
export async function finishTaskBranch(input: {
  repo: string;
  worktree: string;
  branch: string;
  base: string;
  message: string;
  always: boolean;
}): Promise<GitTrailEnd> {
  if (existsSync(input.worktree)) {
    const tip = await git(input.worktree, ['log', '-1', '--format=%B']);
    if (!(await commitAll(input.worktree, input.message)) && input.always && tip.trim() !== input.message.trim())
      await git(input.worktree, ['commit', '-q', '--allow-empty', '-m', input.message]);
    await removeWorktrees(input.repo, [input.worktree]);
  }
  const range = `${input.base}..${input.branch}`;
  return {
    head: await git(input.repo, ['rev-parse', input.branch]),
    commits: Number(await git(input.repo, ['rev-list', '--count', range])),
    diffstat: (await git(input.repo, ['diff', '--shortstat', input.base, input.branch])) || 'no changes',
  };
}
