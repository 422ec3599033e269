import { execa, type Result } from 'execa';
import { repositoryProgramsOff, withStandardRemotePrograms } from '../activities/git/repository-config.js';
import { CliError } from './output.js';

/**
 * The user's own git, as they would run it (their identity, their global config, their credentials): these commands
 * act on their checkout and remotes at their request. What the repository itself names is another matter: a task may
 * have written that repository's config (a `.git` it made in a folder outside git), so its hooks, and the programs
 * its own config names (filters, drivers, helpers, an ssh command, upload-pack and receive-pack), never run here, as
 * with the worker's git.
 */
export async function userGit(repo: string, args: string[], what: string): Promise<Result> {
  const result = await runUserGit(repo, args);
  if (result.exitCode !== 0) throw new CliError(`${what} failed: ${String(result.stderr || result.stdout).trim()}`);
  return result;
}

export async function runUserGit(repo: string, args: string[]): Promise<Result> {
  const env = await repositoryProgramsOff(repo);
  return execa('git', ['-C', repo, '-c', 'core.hooksPath=/dev/null', ...withStandardRemotePrograms(args)], {
    reject: false,
    stdin: 'ignore',
    env,
  });
}
