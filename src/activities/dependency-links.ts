import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../shared/command-access.js';
import { worktreeViewOf } from './process/worktree-view.js';

/**
 * Installed dependencies a checkout usually keeps out of git. A task's worktree has none of them: in the sandbox it
 * sees the checkout's (see `workspaceMounts`), unless its `setup` installs its own there.
 */
export const DEPENDENCY_DIRS = ['node_modules', '.venv', 'venv'] as const;

/** The dependency directories at a worktree's top (an empty mount point, or the task's own installs): never committed. */
export function dependencyEntries(worktree: string): string[] {
  return DEPENDENCY_DIRS.filter((name) => lstatSync(path.join(worktree, name), { throwIfNoEntry: false }));
}

/**
 * Where the worker finds a workspace's dependency directory `name` on the host, to see which tools it has (eslint,
 * tsc, ruff): the workspace's own when it has one with something in it, otherwise, in a task worktree whose commands
 * run in the sandbox, the checkout's, which they see in the same place. Unsandboxed, a worktree has only its own:
 * the checkout's would run the checkout's code (an editable install points there), not the task's.
 */
export function dependencyDir(workspace: string, name: (typeof DEPENDENCY_DIRS)[number], sandboxMode: SandboxMode = 'on'): string {
  const own = path.join(workspace, name);
  if (hasEntries(own) || sandboxMode === 'off') return own;
  const view = worktreeViewOf(workspace);
  return view && view.below === '' ? path.join(view.checkout, name) : own;
}

function hasEntries(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}
