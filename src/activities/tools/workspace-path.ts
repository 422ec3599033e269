import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { countSandboxRefusal } from '../activity-metrics.js';
import { worktreeViewOf } from '../process/worktree-view.js';
import { refuse } from './tool-outcome.js';

export interface WorkspacePath {
  /** Real absolute path of the workspace root. */
  root: string;
  /** Real absolute path (symlinks resolved, dangling ones included). */
  absolute: string;
  /** Path relative to the workspace root, with forward slashes. */
  relative: string;
}

/** Linux's own limit on symlinks followed in one lookup (`MAXSYMLINKS`). */
const MAX_SYMLINKS = 40;

/**
 * Resolves a model-supplied path inside the workspace. The check runs on the real path, so `..`, absolute paths
 * and symlinks that lead outside are all refused the same way. A path that does not exist yet (a new file) is
 * checked through its nearest existing ancestor, and a symlink whose target does not exist is checked by where it
 * points: a write through it would land there.
 *
 * This check alone can be raced (a directory swapped for a symlink after it ran), so the file tools open what it
 * returns with `openParentDirectory`, which follows no symlink at all.
 */
export function resolveInWorkspace(workspace: string, requested: string): WorkspacePath {
  const root = realpathSync(workspace);
  const real = realPath(path.resolve(root, asSeenOnHost(root, requested)), requested);
  const relative = path.relative(root, real);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    countSandboxRefusal('path_outside_workspace');
    refuse(`path ${requested} is outside the workspace; use a path relative to the workspace root`);
  }
  return { root, absolute: real, relative: relative.split(path.sep).join('/') || '.' };
}

/** `realpath` for paths that may not exist, following dangling symlinks by reading them (`lstat` + `readlink`). */
function realPath(candidate: string, requested: string, followed = 0): string {
  let existing = candidate;
  let entry = entryAt(existing);
  const missing: string[] = [];
  while (!entry) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
    entry = entryAt(existing);
  }
  if (!entry.isSymbolicLink())
    return path.join(
      whileUnchanged(() => realpathSync(existing), requested),
      ...missing,
    );
  if (followed >= MAX_SYMLINKS) refuse(`path ${requested} goes through more than ${MAX_SYMLINKS} symlinks`);
  // Everything above `existing` exists (lstat reached it), so its directory resolves; the link's target may not.
  const target = whileUnchanged(() => path.resolve(realpathSync(path.dirname(existing)), readlinkSync(existing)), requested);
  return realPath(path.join(target, ...missing), requested, followed + 1);
}

/** Runs a lookup that can only fail if what `lstat` just saw has changed since: a race, refused like one. */
function whileUnchanged<T>(lookup: () => T, requested: string): T {
  try {
    return lookup();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EINVAL' && code !== 'ENOTDIR') throw error;
    return refuse(`path ${requested} changed while it was being resolved; nothing was read or written, try again`);
  }
}

/** The entry itself (a link is not followed), or `undefined` when the path cannot be reached (ENOENT, ENOTDIR, ELOOP). */
function entryAt(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A task worktree's commands see it at its checkout's path (see `workspaceMounts`), so their output names files
 * there; such an absolute path is taken for the same file in the worktree.
 */
function asSeenOnHost(root: string, requested: string): string {
  if (!path.isAbsolute(requested)) return requested;
  const view = worktreeViewOf(root);
  if (!view) return requested;
  const inside = path.join(view.checkout, view.below);
  const relative = path.relative(inside, requested);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative)) ? path.join(root, relative) : requested;
}
