import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEPENDENCY_DIRS } from '../dependency-links.js';
import { worktreeViewOf, type WorktreeView } from './worktree-view.js';

/** Where a worktree's repository metadata is shown inside the sandbox (its real path is hidden by the worktree). */
export const REPOSITORY_INSIDE = '/run/codeloop/repository.git';

/** A copy-on-write dependency directory: the checkout's, read-only below, the task's writes in a directory of its own. */
export interface Overlay {
  lower: string;
  upper: string;
  work: string;
  merged: string;
}

/** How a command sees its workspace: bubblewrap's arguments for it, where it starts, and overlays to mount first. */
export interface WorkspaceMounts {
  args: string[];
  cwd: string;
  overlays: Overlay[];
  /** The repository's checkout (or the workspace itself): what package caches are kept per. */
  project: string;
}

/**
 * Whose dependency directories a task's commands use in a worktree: the checkout's (`node_modules`, `.venv`, `venv`,
 * installed there by the developer), or its own (installed in the worktree by the task's `setup`).
 */
export type DependencySource = 'checkout' | 'own';

/**
 * The workspace inside the sandbox. A checkout is bound where it is, its `.git` read-only. A linked worktree (a task's
 * branch, a batch task) is shown at its checkout's path, with the repository's metadata read-only and, unless the
 * task installs its own, the checkout's dependency directories beside it: copy-on-write where the worker can mount
 * overlays (writes land in a directory of the task's, removed with the worktree; the checkout's never change),
 * read-only otherwise.
 */
export function workspaceMounts(
  workspace: string,
  options: { dependencies: DependencySource; overlays: boolean; readOnly?: boolean },
): WorkspaceMounts {
  const bind = options.readOnly ? '--ro-bind' : '--bind';
  const view = worktreeViewOf(workspace);
  if (!view)
    return { args: [bind, workspace, workspace, ...checkoutGitMounts(workspace)], cwd: workspace, overlays: [], project: workspace };
  const state = worktreeStateDir(view.worktree);
  mkdirSync(state, { recursive: true });
  const args = [bind, view.worktree, view.checkout, ...gitFileMounts(view, state)];
  const overlays: Overlay[] = [];
  if (options.dependencies === 'checkout' && !options.readOnly) {
    for (const name of checkoutDependencies(view)) {
      const lower = path.join(view.checkout, name);
      if (!options.overlays || /[,:\\]/.test(lower + state)) {
        args.push('--ro-bind', lower, lower);
        continue;
      }
      const [upper, work, merged] = ['upper', 'work', 'merged'].map((part) => path.join(state, name, part));
      for (const dir of [upper, work, merged]) mkdirSync(dir, { recursive: true });
      overlays.push({ lower, upper, work, merged });
      args.push('--bind', merged, lower);
    }
  }
  return { args, cwd: path.join(view.checkout, view.below), overlays, project: view.checkout };
}

/**
 * A worktree's own directory of codeloop's, beside it: the `.git` file its commands see and its dependency layers.
 * Task ids never start with a dot, so it never meets another task's worktree; it goes when the worktree does.
 */
export function worktreeStateDir(worktree: string): string {
  return path.join(path.dirname(worktree), '.codeloop-deps', path.basename(worktree));
}

/** The checkout's `.git`, read-only: nothing the agent runs can plant a hook or config entry there. */
function checkoutGitMounts(workspace: string): string[] {
  const dotGit = path.join(workspace, '.git');
  return lstatSync(dotGit, { throwIfNoEntry: false }) ? ['--ro-bind', dotGit, dotGit] : [];
}

/**
 * The worktree's `.git` file names its metadata by the checkout's path, which the worktree hides inside; a `.git` file
 * of codeloop's, bound over it, names the same metadata where the sandbox shows the repository (read-only).
 */
function gitFileMounts(view: WorktreeView, state: string): string[] {
  const file = path.join(state, 'git-file');
  const content = `gitdir: ${REPOSITORY_INSIDE}/worktrees/${path.basename(view.gitDir)}\n`;
  if (readIfPresent(file) !== content) writeFileSync(file, content);
  return ['--ro-bind', view.commonDir, REPOSITORY_INSIDE, '--ro-bind', file, path.join(view.checkout, '.git')];
}

/**
 * The checkout's dependency directories the worktree has none of: real directories (not links), where the worktree
 * has nothing, an empty mount point, or a link an older codeloop made to the checkout's (replaced here: seen at the
 * checkout's path, it would point at itself).
 */
function checkoutDependencies(view: WorktreeView): string[] {
  return DEPENDENCY_DIRS.filter((name) => {
    if (!lstatSync(path.join(view.checkout, name), { throwIfNoEntry: false })?.isDirectory()) return false;
    const own = path.join(view.worktree, name);
    const entry = lstatSync(own, { throwIfNoEntry: false });
    if (entry?.isSymbolicLink() && path.resolve(view.worktree, readlinkSync(own)) === path.join(view.checkout, name)) unlinkSync(own);
    else if (entry && !(entry.isDirectory() && readdirSync(own).length === 0)) return false;
    return true;
  });
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
