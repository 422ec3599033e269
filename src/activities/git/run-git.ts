import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors.js';
import { configArgs, HARDENED_CONFIG, IDENTITY } from './git-environment.js';
import { gitHost } from './git-host.js';
import { oneAtATime } from './one-at-a-time.js';
import { repositoryPolicy, type RawGit } from './repository-config.js';

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * git with codeloop's fixed flags, in codeloop's fixed environment (see `gitEnvironment`, set on the helper process):
 * no program a repository's config or hooks name can run, whoever wrote that config.
 */
const hardenedGit: RawGit = (cwd, args, env) => gitHost.run(cwd, [...configArgs(HARDENED_CONFIG), ...configArgs(IDENTITY), ...args], env);

/**
 * Runs git without a shell, from the worker's git helper process (see `gitHost`); `ok` is false on a non-zero exit,
 * for the callers that expect one. Output is trimmed unless `raw`.
 *
 * codeloop's git runs outside the sandbox, in repositories the agent has worked in. Nothing the agent wrote may run
 * with the worker's rights there: the fixed flags turn off hooks, fsmonitor, pagers, editors, external diffs, remotes
 * and submodule recursion; the repository's own filters, diff and merge drivers are turned off by name (see
 * `repositoryPolicy`); a nested repository is never entered (see `commitAll`). A repository whose `.git` or
 * `core.worktree` points elsewhere is refused.
 */
export async function tryGit(cwd: string, args: string[], { raw = false } = {}): Promise<GitResult> {
  const policy = await repositoryPolicy(cwd, hardenedGit);
  if (policy.refusal)
    throw ApplicationFailure.nonRetryable(
      `codeloop's git refuses the repository at ${cwd}: ${policy.refusal}`,
      ErrorType.WorkspaceUnavailable,
    );
  const run = () => hardenedGit(cwd, args, policy.env);
  // `git worktree` commands run from one directory (codeloop runs them from the repository) take turns. Side by side,
  // they meet each other's entries under `.git/worktrees` half-written or half-deleted: a prune removes the entry an
  // add is still writing ("could not open .git/worktrees/t6/gitdir"), an add reads a removal's leftovers ("failed to
  // read .git/worktrees/t50/commondir"). Each takes milliseconds.
  const result = await (args[0] === 'worktree' ? oneAtATime(`worktree ${cwd}`, run) : run());
  return { ok: result.code === 0, stdout: raw ? result.stdout : result.stdout.trim(), stderr: result.stderr.trim() };
}

/** Runs git and fails with git's own message when it fails; `raw` keeps the output as it is (for `-z` lists). */
export async function git(cwd: string, args: string[], options: { raw?: boolean } = {}): Promise<string> {
  const result = await tryGit(cwd, args, options);
  if (!result.ok) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr || result.stdout}`);
  return result.stdout;
}
