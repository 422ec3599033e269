import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The whole environment codeloop's own git runs with on a workspace: none of the worker's (no API key, no database
 * password, no `GIT_DIR` or `GIT_SSH_COMMAND` of the operator's), no system or global config, no home to read a
 * config from, no terminal to ask on, and C messages. Whatever a repository manages to make git run (nothing, if the
 * flags below hold) finds no secret in its environment.
 */
export function gitEnvironment(searchPath = process.env.PATH ?? '/usr/bin:/bin'): Record<string, string> {
  return {
    PATH: searchPath,
    HOME: emptyHome(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: ':',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  };
}

/**
 * Config given on git's command line, which outranks a repository's own: every setting through which a repository
 * can make git run a program, turned off. Filters, diff and merge drivers have names a repository picks, so those are
 * turned off per repository (see `repositoryOverrides`); these are the ones with fixed names. git passes them on to
 * any git it starts itself.
 */
export const HARDENED_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=:',
  'core.askPass=',
  'core.sshCommand=',
  'credential.helper=',
  'diff.external=',
  // A nested repository is never looked into (its own config is the agent's): its commit is read from its refs, and
  // changes inside it are not asked about, which would run `git status` there.
  'diff.ignoreSubmodules=dirty',
  'status.submoduleSummary=false',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  // codeloop's git on a workspace never reaches a remote.
  'protocol.allow=never',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
];

/** Commits made by codeloop carry its own identity, so nothing depends on the host's git config. */
export const IDENTITY: readonly string[] = ['user.name=codeloop', 'user.email=codeloop@localhost'];

/** `-c` arguments for each `key=value`. */
export const configArgs = (settings: readonly string[]): string[] => settings.flatMap((setting) => ['-c', setting]);

let home: string | undefined;

/** A directory of codeloop's own that holds nothing, made once per worker process. */
function emptyHome(): string {
  home ??= mkdtempSync(path.join(os.tmpdir(), 'codeloop-git-home-'));
  return home;
}
