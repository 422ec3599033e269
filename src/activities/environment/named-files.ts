import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { worktreeStateDir } from '../process/workspace-mounts.js';

/** Where a worktree's copied named files are listed: beside it, with its other state. */
const listPath = (worktree: string) => path.join(worktreeStateDir(worktree), 'named-files.json');

/** Records the named files copied into a worktree (paths relative to its top), so its commits leave them out. */
export function recordNamedFiles(worktree: string, files: readonly string[]): void {
  mkdirSync(worktreeStateDir(worktree), { recursive: true });
  writeFileSync(listPath(worktree), JSON.stringify(files));
}

/** The named files codeloop copied into a worktree: never part of a commit, whatever the `.gitignore` says. */
export function namedFilesOf(worktree: string): string[] {
  try {
    const files: unknown = JSON.parse(readFileSync(listPath(worktree), 'utf8'));
    return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string') : [];
  } catch {
    return [];
  }
}
