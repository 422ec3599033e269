import { lstatSync, readlinkSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Installed dependencies a checkout usually keeps out of git. A worktree has none of them, so its tests could not
 * run; each one the checkout has (and git ignores) is linked into the worktree instead, and read-only in the sandbox.
 */
export const DEPENDENCY_DIRS = ['node_modules', '.venv', 'venv'] as const;

const isRealDirectory = (file: string) => lstatSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
const isSymlink = (file: string) => lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;

/** Links `<repo>/<dir>` into the worktree for each dependency directory `ignored` says git ignores. */
export async function linkDependencies(repo: string, worktree: string, ignored: (name: string) => Promise<boolean>): Promise<string[]> {
  const linked: string[] = [];
  for (const name of DEPENDENCY_DIRS) {
    const target = path.join(repo, name);
    const link = path.join(worktree, name);
    if (!isRealDirectory(target) || lstatSync(link, { throwIfNoEntry: false }) || !(await ignored(name))) continue;
    await symlink(target, link, 'dir');
    linked.push(name);
  }
  return linked;
}

/** The dependency links in a worktree: left out of its commits, whatever the `.gitignore` says about links. */
export function dependencyLinks(worktree: string): string[] {
  return DEPENDENCY_DIRS.filter((name) => isSymlink(path.join(worktree, name)));
}

/**
 * Read-only binds for a worktree's dependency links. Only a link to the same-named directory of the worktree's own
 * repository is bound: the agent can make links too, and one to anywhere else must stay dangling in the sandbox.
 */
export function dependencyMounts(workspace: string, repo: string | undefined): string[] {
  if (!repo) return [];
  return dependencyLinks(workspace).flatMap((name) => {
    const expected = path.join(repo, name);
    const target = path.resolve(workspace, readlinkSync(path.join(workspace, name)));
    return target === expected && isRealDirectory(expected) ? ['--ro-bind', expected, expected] : [];
  });
}
