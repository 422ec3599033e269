import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A workspace inside a linked git worktree (a task's branch, a batch task's worktree) and the checkout it was cut from.
 * Inside the sandbox the worktree is shown at the checkout's own path, so everything that names the checkout's path
 * (an editable install's `.pth`, a virtualenv's scripts, tsconfig `paths`, tool configs) reaches the task's code.
 */
export interface WorktreeView {
  /** The worktree's top, on the host. */
  worktree: string;
  /** The checkout whose repository the worktree belongs to: where the sandbox shows the worktree. */
  checkout: string;
  /** The repository's metadata (`<checkout>/.git`). */
  commonDir: string;
  /** The worktree's own metadata (`<checkout>/.git/worktrees/<name>`). */
  gitDir: string;
  /** Where the workspace lies below the worktree's top ('' at the top). */
  below: string;
}

/**
 * The view of `workspace` when it lies in a linked worktree of a non-bare repository: its `.git` file names a
 * directory under `<repository>/.git/worktrees/` whose `gitdir` points back at it. Anything else (a checkout, not a
 * repository, a `.git` pointing anywhere else) has none, and is shown where it is. Only small regular files are read.
 */
export function worktreeViewOf(workspace: string): WorktreeView | undefined {
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const entry = lstatSync(dotGit, { throwIfNoEntry: false });
    if (entry?.isDirectory()) return undefined;
    if (entry?.isFile()) return viewFrom(dir, dotGit, path.relative(dir, workspace));
    if (path.dirname(dir) === dir) return undefined;
  }
}

function viewFrom(worktree: string, dotGit: string, below: string): WorktreeView | undefined {
  const pointer = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit) ?? '')?.[1]?.trim();
  if (!pointer) return undefined;
  const gitDir = path.resolve(worktree, pointer);
  const back = readSmall(path.join(gitDir, 'gitdir'))?.trim();
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  if (!back || path.resolve(gitDir, back) !== dotGit || !common) return undefined;
  const commonDir = path.resolve(gitDir, common);
  if (path.basename(commonDir) !== '.git' || path.dirname(gitDir) !== path.join(commonDir, 'worktrees')) return undefined;
  return { worktree, checkout: path.dirname(commonDir), commonDir, gitDir, below };
}

function readSmall(file: string): string | undefined {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (!stats?.isFile() || stats.size > 4096) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
