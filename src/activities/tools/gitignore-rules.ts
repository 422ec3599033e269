import path from 'node:path';
import ignore from 'ignore';
import { openRegularFile, withParentDirectory, type HeldDirectory } from './safe-open.js';
import { readUpTo } from './text-file.js';
import { refuse } from './tool-outcome.js';

/** Largest ignore file read: a real `.gitignore` is a few KiB, and a bigger one is skipped rather than held in memory. */
const MAX_IGNORE_FILE_BYTES = 256 * 1024;

/**
 * The workspace's gitignore rules, read as a walk reaches each directory: `.git/info/exclude`, the root
 * `.gitignore` and the `.gitignore` of every directory on the way, each read at most once per walk. Only files
 * inside the workspace count (a `.gitignore` above it, or `core.excludesFile`, is not read), and only regular ones:
 * a symlinked `.gitignore` is skipped, as git itself skips it, and so is a FIFO, an oversized or unreadable file.
 * Semantics are the `ignore` package's, which follows gitignore(5): `!` negation, `dir/`, `/anchored`, `**`, case
 * sensitive as git is on Linux.
 */
export interface GitignoreRules {
  /**
   * Reads the ignore files of `directory` (workspace-relative, `''` for the root) and of every directory above it
   * that is not read yet. `readOwn`, when given, reads `directory`'s own `.gitignore` through a handle the caller
   * already holds; otherwise it is opened from the root, one directory at a time, following no symlink.
   */
  load(directory: string, readOwn?: () => Promise<string | undefined>): Promise<void>;
  /** True when git would ignore the entry at `relative`, given what is loaded: its directory must be. */
  ignores(relative: string, isDirectory: boolean): boolean;
}

export function createGitignoreRules(root: string): GitignoreRules {
  const matcher = ignore({ ignoreCase: false });
  const loaded = new Map<string, Promise<void>>();
  const load = (directory: string, readOwn?: () => Promise<string | undefined>): Promise<void> => {
    let done = loaded.get(directory);
    if (done) return done;
    const readFile = readOwn ?? (() => readIgnoreFile(root, path.posix.join(directory, '.gitignore')));
    // Rules added later win, as in git: exclude before the root's `.gitignore`, a directory's after its parent's.
    const above = directory === '' ? readIgnoreFile(root, '.git/info/exclude').then((text) => add(text, '')) : load(parentOf(directory));
    done = above.then(() => readFile().then((text) => add(text, directory), ignoreUnreadable));
    loaded.set(directory, done);
    return done;
  };
  const add = (text: string | undefined, directory: string) => {
    if (text) matcher.add(scopedLines(text, directory));
  };
  return {
    load,
    ignores: (relative, isDirectory) => relative !== '' && matcher.ignores(isDirectory ? `${relative}/` : relative),
  };
}

/**
 * The same rules as one ignore file that applies from the workspace root, for a program that walks the workspace
 * itself (ripgrep, which then reads no ignore file of its own): `.git/info/exclude`, then the `.gitignore` of each of
 * `directories` (workspace-relative, `''` for the root), parents before children so that later rules win as in git.
 * Each file is read as `load` reads it: regular files inside the workspace only, none over the size cap.
 */
export async function rootScopedRules(root: string, directories: readonly string[]): Promise<string> {
  const ordered = [...new Set(directories)].sort();
  const texts = await Promise.all([
    readIgnoreFile(root, '.git/info/exclude').then((text) => scopedLines(text, '')),
    ...ordered.map((directory) =>
      readIgnoreFile(root, path.posix.join(directory, '.gitignore')).then((text) => scopedLines(text, directory)),
    ),
  ]);
  return texts.flat().join('\n');
}

function scopedLines(text: string | undefined, directory: string): string[] {
  return text ? text.split(/\r?\n/).flatMap((line) => scopeRule(line, directory) ?? []) : [];
}

/**
 * Reads an ignore file in a directory the caller holds open. Only a regular file is opened (`openRegularFile`
 * checks before and after the open, without blocking or following a symlink), and only up to the cap.
 */
export async function readHeldIgnoreFile(directory: HeldDirectory): Promise<string | undefined> {
  const opened = await openRegularFile(directory).catch(() => undefined);
  if (opened?.kind !== 'file') return undefined;
  try {
    if (opened.stats.size > MAX_IGNORE_FILE_BYTES) return undefined;
    const bytes = await readUpTo(opened.handle, MAX_IGNORE_FILE_BYTES + 1);
    return bytes.length > MAX_IGNORE_FILE_BYTES ? undefined : bytes.toString('utf8').replace(/^\uFEFF/, '');
  } finally {
    await opened.handle.close();
  }
}

/** An ignore file by its workspace-relative path; a missing one, or a symlink on the way, reads as no rules. */
async function readIgnoreFile(root: string, relative: string): Promise<string | undefined> {
  const file = { root, absolute: path.join(root, relative), relative };
  const missing = { create: false, refuseMissing: () => refuse(`${relative} does not exist`) } as const;
  return withParentDirectory(file, relative, missing, readHeldIgnoreFile).catch(() => undefined);
}

/**
 * A rule of the `.gitignore` in `directory`, rewritten to apply from the workspace root: one matcher then holds
 * every file's rules, so a deeper file's negation can re-include what a shallower one ignored, as in git. A pattern
 * with a slash before its end is anchored to its directory (`/a`, `a/b`); one without matches at any depth below it.
 */
function scopeRule(line: string, directory: string): string | undefined {
  if (directory === '') return line;
  if (line.trim() === '' || line.startsWith('#')) return undefined;
  const negated = line.startsWith('!');
  const body = negated ? line.slice(1) : line;
  const anchored = body.trimEnd().replace(/\/$/, '').includes('/');
  const scoped = anchored ? `${escapeGlob(directory)}/${body.replace(/^\//, '')}` : `${escapeGlob(directory)}/**/${body}`;
  return negated ? `!${scoped}` : scoped;
}

/** A directory name taken literally in a pattern: `[`, `*`, `?` and `\` escaped, and a leading `#` or `!`. */
function escapeGlob(directory: string): string {
  return directory.replace(/[\\*?[\]]/g, '\\$&').replace(/^[#!]/, '\\$&');
}

/** An ignore file that cannot be read hides nothing: the walk shows more, never fails. */
function ignoreUnreadable(): void {}

function parentOf(directory: string): string {
  const slash = directory.lastIndexOf('/');
  return slash === -1 ? '' : directory.slice(0, slash);
}
