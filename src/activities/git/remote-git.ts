import { ApplicationFailure } from '@temporalio/common';
import { execa } from 'execa';
import { ErrorType } from '../../shared/errors.js';
import { repositoryProgramsOff, withStandardRemotePrograms } from './repository-config.js';

/** How long one fetch or push may take before it counts as failed. */
const REMOTE_TIMEOUT_MS = 5 * 60_000;

/**
 * git that reaches a remote: the deliberate exception to codeloop's credential-free git (see `run-git.ts`). It runs
 * with the worker's own environment and global config, so the operator's credential helper, SSH agent and keys
 * work; what the repository itself names (hooks, and the programs of its own config: filters, helpers, an ssh
 * command, upload-pack) stays off, as for `codeloop task push`, because a task may have written that config. It never
 * asks on a terminal.
 */
export async function remoteGit(repo: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const repositoryOff = await repositoryProgramsOff(repo, env);
  const result = await execa('git', ['-C', repo, '-c', 'core.hooksPath=/dev/null', ...withStandardRemotePrograms(args)], {
    reject: false,
    stdin: 'ignore',
    env: { ...env, ...repositoryOff, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    extendEnv: false,
    timeout: REMOTE_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    const why = result.timedOut ? `timed out after ${REMOTE_TIMEOUT_MS / 1000} s` : String(result.stderr || result.stdout).trim();
    throw ApplicationFailure.nonRetryable(`git ${args[0]} failed: ${withoutSecrets(why)}`, ErrorType.RemoteFailed);
  }
  return String(result.stdout).trim();
}

/** git's messages can quote a URL with its user and token; the batch result and its question must not. */
export const withoutSecrets = (text: string): string => text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');

/** The remote's default branch (its `HEAD`), for a fetch or a pull request that names none. */
export async function remoteDefaultBranch(repo: string, remote: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const listing = await remoteGit(repo, ['ls-remote', '--symref', remote, 'HEAD'], env);
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(listing);
  if (!match) throw ApplicationFailure.nonRetryable(`remote ${remote} names no default branch; pass baseBranch`, ErrorType.RemoteFailed);
  return match[1];
}

/**
 * Fetches `branch` (default: the remote's own default branch) from `remote` into `refs/remotes/<remote>/<branch>`
 * and returns that ref and its commit: the base a batch or a task is cut from. Fetching again is harmless.
 */
export async function fetchBase(
  input: { repo: string; remote: string; baseBranch?: string },
  env?: NodeJS.ProcessEnv,
): Promise<{ ref: string; commit: string; branch: string }> {
  const branch = input.baseBranch ?? (await remoteDefaultBranch(input.repo, input.remote, env));
  const name = /^[A-Za-z0-9._-]+$/.test(input.remote) ? input.remote : 'codeloop-remote';
  const ref = `refs/remotes/${name}/${branch}`;
  await remoteGit(input.repo, ['fetch', '--no-tags', '--no-write-fetch-head', input.remote, `+refs/heads/${branch}:${ref}`], env);
  const commit = await remoteGit(input.repo, ['rev-parse', '--verify', `${ref}^{commit}`], env);
  return { ref, commit, branch };
}

/**
 * Pushes `branch` to `remote` under the same name. Forced: the branch is codeloop's own, and a re-run after a crash
 * or a retried task must replace what an earlier attempt pushed. Pushing the same commit again changes nothing.
 */
export async function pushBranch(input: { repo: string; remote: string; branch: string }, env?: NodeJS.ProcessEnv): Promise<string> {
  await remoteGit(input.repo, ['push', '--porcelain', input.remote, `+refs/heads/${input.branch}:refs/heads/${input.branch}`], env);
  return remoteGit(input.repo, ['rev-parse', `refs/heads/${input.branch}`], env);
}
