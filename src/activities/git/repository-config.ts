import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { GitExit } from './git-host.js';

/** Runs git with codeloop's fixed flags and environment (see `run-git.ts`), with `env` added. */
export type RawGit = (cwd: string, args: string[], env?: Record<string, string>) => Promise<GitExit>;

/** What codeloop's git must add to run in one repository: the config that turns its programs off, or a refusal. */
export interface RepositoryPolicy {
  /** `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`: names a repository picks can hold any character. */
  env: Record<string, string>;
  /** Why codeloop's git will not work in this repository at all, naming the setting to remove. */
  refusal?: string;
}

/** A config entry whose value is a program git would run, and the value that turns it off. */
const PROGRAM_KEYS: [pattern: RegExp, off: string][] = [
  [/^filter\..+\.(clean|smudge|process)$/, ''],
  [/^filter\..+\.required$/, 'false'],
  [/^diff\..+\.(textconv|command)$/, ''],
  [/^merge\..+\.driver$/, ''],
  [/^credential\.(.+\.)?helper$/, ''],
  // Fixed names, off already for codeloop's own git (see HARDENED_CONFIG); listed for a user's git run by codeloop.
  [/^core\.hookspath$/, '/dev/null'],
  [/^core\.fsmonitor$/, 'false'],
  [/^core\.(sshcommand|askpass|editor|pager|gitproxy)$/, ''],
  [/^(diff\.external|sequence\.editor|interactive\.difffilter|uploadpack\.packobjectshook)$/, ''],
  [/^gpg\.(.+\.)?program$/, ''],
  [/^remote\..+\.(uploadpack|receivepack)$/, ''],
];

/**
 * The programs a repository's own config names (filters, diff and merge drivers, credential helpers: names the
 * repository picks, so they cannot be turned off by a fixed list), each turned off by config that outranks it; and a
 * refusal for a repository that is not what it seems: a `.git` that points at another repository's metadata (planted
 * by a task in a folder outside git, it would hand codeloop's git that repository), or a `core.worktree` that moves
 * the working tree elsewhere (codeloop would commit files from outside the workspace).
 */
export function policyOf(entries: ConfigEntry[], layout: RepositoryLayout | undefined): RepositoryPolicy {
  const worktree = entries.find((entry) => entry.scope !== 'command' && entry.key === 'core.worktree');
  return { env: programsOff(entries, (scope) => scope !== 'command'), refusal: layout && refuseLayout(layout, worktree) };
}

/**
 * `GIT_CONFIG_*` variables that turn off every program named by the entries of the scopes `counts` picks (a user's
 * own git keeps the programs of its global config, and loses those of a repository's: see `codeloop task apply`).
 */
export function programsOff(entries: ConfigEntry[], counts: (scope: string) => boolean): Record<string, string> {
  const overrides: [string, string][] = [];
  for (const entry of entries) {
    const off = counts(entry.scope) ? PROGRAM_KEYS.find(([pattern]) => pattern.test(entry.key))?.[1] : undefined;
    if (off !== undefined) overrides.push([entry.key, off]);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(overrides.length) };
  overrides.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

export interface ConfigEntry {
  scope: string;
  origin: string;
  key: string;
  value?: string;
}

/** `git config --list --show-scope --show-origin -z`: scope, origin, then `key\nvalue` (no `\n` for a bare key). */
export function parseConfigList(output: string): ConfigEntry[] {
  const fields = output.split('\0');
  const entries: ConfigEntry[] = [];
  for (let index = 0; index + 2 < fields.length; index += 3) {
    const [scope, origin, pair] = fields.slice(index, index + 3);
    const newline = pair.indexOf('\n');
    entries.push(
      newline === -1 ? { scope, origin, key: pair } : { scope, origin, key: pair.slice(0, newline), value: pair.slice(newline + 1) },
    );
  }
  return entries;
}

/** Where a working tree's metadata is: its top, its git directory and the repository's common directory. */
export interface RepositoryLayout {
  top: string;
  gitDir: string;
  commonDir: string;
}

/**
 * A working tree's `.git` must be its own: the directory `<top>/.git`, or a linked worktree's directory whose
 * `gitdir` file points back at `<top>/.git`, or a submodule's directory (under a superproject's `modules/`) whose
 * `core.worktree` names this top. Anywhere else, `core.worktree` would have codeloop commit files from outside the
 * workspace.
 */
function refuseLayout({ top, gitDir }: RepositoryLayout, worktree: ConfigEntry | undefined): string | undefined {
  const own = path.join(top, '.git');
  const submodule = gitDir.split(path.sep).includes('modules');
  if (worktree && !(submodule && path.resolve(gitDir, worktree.value ?? '') === top))
    return `its config (${worktree.origin}) sets core.worktree to ${worktree.value}, which codeloop's git does not follow; remove it`;
  if (gitDir === own || (submodule && worktree)) return undefined;
  const back = readSmallFile(path.join(gitDir, 'gitdir'))?.trim();
  if (back && path.resolve(gitDir, back) === own) return undefined;
  return `its .git points at ${gitDir}, the metadata of another repository; codeloop's git works only in a repository's own tree`;
}

const FILE_STAMP_NONE = 'none';

function stampOf(file: string): string {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : FILE_STAMP_NONE;
}

function readSmallFile(file: string): string | undefined {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (!stats?.isFile() || stats.size > 4096) return undefined;
  return readFileSync(file, 'utf8');
}

interface CachedPolicy {
  stamps: Map<string, string>;
  policy: RepositoryPolicy;
}

const cache = new Map<string, CachedPolicy>();
const CACHE_LIMIT = 512;

/**
 * The policy for git run from `cwd`, read once and kept while no file it came from changes (each config file git
 * read, the `.git` entry, the git directory's `config.worktree`): a repository a task can still write to is read
 * again the moment it changes. Outside any working tree (not a repository, or a bare one) it is read afresh each time.
 */
export async function repositoryPolicy(cwd: string, git: RawGit): Promise<RepositoryPolicy> {
  const cached = cache.get(cwd);
  if (cached && [...cached.stamps].every(([file, stamp]) => stampOf(file) === stamp)) return cached.policy;
  const where = await git(cwd, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir']);
  const [top, gitDir, common] = where.code === 0 ? where.stdout.trim().split('\n') : [];
  const layout = top && gitDir && common ? { top, gitDir, commonDir: path.resolve(cwd, common) } : undefined;
  const listing = await git(cwd, ['config', '--list', '--show-scope', '--show-origin', '-z']);
  const entries = listing.code === 0 ? parseConfigList(listing.stdout) : [];
  const policy = policyOf(entries, layout);
  if (!layout) return policy;
  const files = new Set([
    path.join(layout.top, '.git'),
    path.join(layout.commonDir, 'config'),
    path.join(layout.gitDir, 'config.worktree'),
    // git names a file it read relative to the top of the working tree.
    ...entries
      .filter((entry) => entry.origin.startsWith('file:'))
      .map((entry) => path.resolve(layout.top, entry.origin.slice('file:'.length))),
  ]);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(cwd, { stamps: new Map([...files].map((file) => [file, stampOf(file)])), policy });
  return policy;
}

/**
 * For git run with the user's or the worker's own config (`task push`, a batch's fetch): the overrides that turn off
 * the programs the repository's own config names (its local and worktree scopes), read with `env` when given.
 */
export async function repositoryProgramsOff(repo: string, env?: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const listing = await execa('git', ['-C', repo, 'config', '--list', '--show-scope', '--show-origin', '-z'], {
    reject: false,
    stdin: 'ignore',
    ...(env ? { env, extendEnv: false } : {}),
  });
  const entries = listing.exitCode === 0 ? parseConfigList(String(listing.stdout)) : [];
  return programsOff(entries, (scope) => scope === 'local' || scope === 'worktree');
}

/**
 * A repository's `remote.<name>.uploadpack` / `receivepack` is not overridden by config given outside it (git takes
 * the first of several values), so the user's git names the standard programs on the command line of every command
 * that reaches a remote.
 */
export function withStandardRemotePrograms(args: readonly string[]): string[] {
  const [command, ...rest] = args;
  if (command === 'push') return [command, '--receive-pack=git-receive-pack', ...rest];
  if (command === 'fetch' || command === 'pull' || command === 'ls-remote') return [command, '--upload-pack=git-upload-pack', ...rest];
  return [...args];
}
