import { lstatSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../process/sandbox-mounts.js';
import { readProjectFile } from '../project-file.js';

/** A repository inside a working tree, and the commit its `HEAD` names (none for a repository with no commit yet). */
export interface NestedRepository {
  path: string;
  head?: string;
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** Far above any `HEAD`, ref or `.git` file; `packed-refs` of a large repository can be a few MB. */
const MAX_REF_FILE_BYTES = 8 * 1024 * 1024;

/**
 * The nested repositories among `candidates` (paths relative to `worktree`): those holding a `.git` entry. Each is
 * committed as the gitlink git would make of it, its `HEAD` read from its files; git is never run inside it, so its
 * config (the agent's, whatever it names) is never read.
 */
export function readNestedRepositories(worktree: string, candidates: string[]): NestedRepository[] {
  const found: NestedRepository[] = [];
  for (const relative of new Set(candidates.map((candidate) => candidate.replace(/\/+$/, '')))) {
    const dotGit = path.join(worktree, relative, '.git');
    if (!lstatSync(dotGit, { throwIfNoEntry: false })) continue;
    found.push({ path: relative, head: headOf(worktree, dotGit) });
  }
  return found;
}

/**
 * The commit a repository's `HEAD` names, from its files: a detached id, a loose ref, or a line of `packed-refs`.
 * Only metadata inside `worktree` is read: a `.git` file pointing anywhere else names no commit.
 */
function headOf(worktree: string, dotGit: string): string | undefined {
  const gitDir = gitDirOf(dotGit);
  if (!gitDir || !isWithin(gitDir, worktree)) return undefined;
  const head = readRefFile(path.join(gitDir, 'HEAD'))?.trim();
  if (!head) return undefined;
  if (OBJECT_ID.test(head)) return head;
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.split('/').includes('..')) return undefined;
  const commonDir = commonDirOf(gitDir);
  if (!isWithin(commonDir, worktree)) return undefined;
  for (const dir of new Set([gitDir, commonDir])) {
    const loose = readRefFile(path.join(dir, ref))?.trim();
    if (loose && OBJECT_ID.test(loose)) return loose;
  }
  const packed = readRefFile(path.join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const [id, name] = line.trim().split(' ');
    if (name === ref && OBJECT_ID.test(id)) return id;
  }
  return undefined;
}

/** A `.git` directory, or the directory a `.git` file's `gitdir:` line names. */
function gitDirOf(dotGit: string): string | undefined {
  const stats = lstatSync(dotGit, { throwIfNoEntry: false });
  if (stats?.isDirectory()) return dotGit;
  if (!stats?.isFile()) return undefined;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readRefFile(dotGit) ?? '')?.[1]?.trim();
  return pointer ? path.resolve(path.dirname(dotGit), pointer) : undefined;
}

function commonDirOf(gitDir: string): string {
  const common = readRefFile(path.join(gitDir, 'commondir'))?.trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

/** A small regular file's text: never a FIFO, device or symlink, which could block or lead anywhere. */
function readRefFile(file: string): string | undefined {
  const text = readProjectFile(file, MAX_REF_FILE_BYTES, { anyDirectory: true });
  return typeof text === 'string' ? text : undefined;
}
