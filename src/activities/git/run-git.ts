import { gitHost } from './git-host.js';
import { oneAtATime } from './one-at-a-time.js';

/** Commits made by codeloop carry its own identity, so nothing depends on the host's git config. */
const IDENTITY = ['-c', 'user.name=codeloop', '-c', 'user.email=codeloop@localhost', '-c', 'commit.gpgsign=false'];

/**
 * codeloop's git runs outside the sandbox, in repositories the agent has worked in: it runs no hook and no
 * fsmonitor program, so nothing the agent wrote can run with the worker's rights. (The sandbox also binds `.git`
 * read-only and the file tools refuse to write there; this holds even for a repository prepared by someone else.)
 */
const NO_PROGRAMS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs git without a shell, from the worker's git helper process (see `gitHost`); `ok` is false on a non-zero exit,
 * for the callers that expect one.
 */
export async function tryGit(cwd: string, args: string[]): Promise<GitResult> {
  const run = () => gitHost.run(cwd, [...NO_PROGRAMS, ...IDENTITY, ...args]);
  // `git worktree` commands run from one directory (codeloop runs them from the repository) take turns. Side by side,
  // they meet each other's entries under `.git/worktrees` half-written or half-deleted: a prune removes the entry an
  // add is still writing ("could not open .git/worktrees/t6/gitdir"), an add reads a removal's leftovers ("failed to
  // read .git/worktrees/t50/commondir"). Each takes milliseconds.
  const result = await (args[0] === 'worktree' ? oneAtATime(`worktree ${cwd}`, run) : run());
  return { ok: result.code === 0, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** Runs git and fails with git's own message when it fails. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const result = await tryGit(cwd, args);
  if (!result.ok) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr || result.stdout}`);
  return result.stdout;
}
