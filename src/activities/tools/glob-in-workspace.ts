import { constants, existsSync, type Dirent, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { countSandboxRefusal } from '../activity-metrics.js';
import { countBraceExpansions } from './brace-expansions.js';
import { createGitignoreRules, readHeldIgnoreFile, type GitignoreRules } from './gitignore-rules.js';
import { isIgnoredDirectory } from './ignored-paths.js';
import type { HeldDirectory } from './safe-open.js';
import { refuse } from './tool-outcome.js';

/** Longest glob accepted: a real one is a few dozen characters. */
const MAX_PATTERN_CHARS = 1_000;
/** Most patterns one glob may expand to; `*.{ts,tsx,js,jsx}` is 4. */
const MAX_EXPANDED_PATTERNS = 100;

export interface GlobRequest {
  /** The workspace root: nothing whose real path is outside it is listed, read or returned. */
  root: string;
  /** Directory the pattern is relative to: the root or a directory inside it. */
  cwd: string;
  pattern: string;
  /** The tool input that holds the pattern (`pattern`, `file_glob`), for refusals. */
  option: string;
  onlyFiles: boolean;
  /** Directory levels to descend; unlimited when absent. */
  deep?: number;
}

/**
 * A glob over model-chosen patterns that cannot see past the workspace, for `list_files` and `search_codebase`.
 * Three layers, each enough for the common routes out and together enough for the rest:
 * - the pattern, after brace expansion, must be relative: absolute, `~` and `..` patterns are refused with the fix;
 * - the walk lists a directory (or looks up a name in one) only if its real path is inside the root, checked on the
 *   opened directory so a symlinked start (`link-dir/*`) or a directory swapped for a symlink mid-walk is never
 *   read, and it follows no symlink below its start;
 * - every match is resolved to its real path and dropped when that lands outside (a symlinked file or directory).
 * Returns paths relative to `cwd`, normalised (`./src/a.ts` is `src/a.ts`) and sorted; directories end in `/`.
 *
 * What the walk skips, so the model sees the project rather than its noise:
 * - the fixed directories of `isIgnoredDirectory` (`.git`, `node_modules`, `dist`, caches…), at any depth;
 * - whatever the workspace's gitignore rules ignore (see `GitignoreRules`), files and directories alike.
 * Naming a place opens the fixed list, never gitignore. The walk starts where the pattern's leading literal
 * directories (after brace expansion) lead from `cwd`, and that start is walked even inside a fixed-list directory:
 * `dist/**` or `{src,dist}/**`, or `list_files` with `path: "dist"`, sees a `dist/` that is not gitignored, while
 * `**` or `d?st/**` does not. Below the start the fixed list applies again (`dist/node_modules` stays out). A
 * gitignored start shows nothing, nor does anything gitignored below it: the project says it is not source. A
 * pattern without wildcards names one entry and finds it whatever the lists say, as `read_file` would read it.
 */
export async function globInWorkspace(request: GlobRequest): Promise<string[]> {
  // Without /proc every confined call would fail, and fail quietly: fast-glob skips what it cannot read.
  if (!existsSync('/proc/self/fd')) throw new Error('the glob tools check paths through /proc/self/fd: mount /proc on this worker');
  const root = await realpath(request.root);
  const base = path.relative(root, await realpath(request.cwd));
  refuseEscapingPattern(request.pattern, request.option, base ? `${base} (the directory it applies to)` : 'the workspace root');
  const entries = await fg(request.pattern, {
    cwd: request.cwd,
    deep: request.deep,
    dot: true,
    onlyFiles: request.onlyFiles,
    markDirectories: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    objectMode: true,
    fs: fileSystemInside(root, createGitignoreRules(root)),
  });
  const realParents = new Map<string, Promise<string | undefined>>();
  const inside = await Promise.all(
    entries.map(async (entry) => {
      const absolute = path.resolve(request.cwd, entry.path);
      const real = entry.dirent.isSymbolicLink()
        ? await realpath(absolute).catch(() => undefined)
        : await realParent(realParents, path.dirname(absolute)).then((parent) => parent && path.join(parent, path.basename(absolute)));
      return real !== undefined && isInside(root, real);
    }),
  );
  return entries
    .filter((_, index) => inside[index])
    .map((entry) => path.posix.normalize(entry.path))
    .sort();
}

/** True when `real` is `root` or below it; both must be real paths. */
export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Where an open file or directory really is: the kernel's own answer, which no later rename or symlink can change. */
export function realPathOfOpen(handle: FileHandle): Promise<string> {
  return readlink(`/proc/self/fd/${handle.fd}`);
}

/**
 * Refuses a glob that could lead out of the workspace: absolute, `~` or `..` after brace expansion, or too long or
 * too many expansions to check; the refusal names the fix. `relativeTo` says what the pattern is relative to.
 */
export function refuseEscapingPattern(pattern: string, option: string, relativeTo: string): void {
  if (pattern.length > MAX_PATTERN_CHARS)
    refuse(`${option} is ${pattern.length} characters long; keep it under ${MAX_PATTERN_CHARS}, e.g. src/**/*.ts`);
  if (countBraceExpansions(pattern) > MAX_EXPANDED_PATTERNS) {
    refuse(`${option} ${pattern} expands to more than ${MAX_EXPANDED_PATTERNS} patterns; use fewer or smaller brace sets`);
  }
  for (const expanded of fg.generateTasks(pattern).flatMap((task) => task.patterns)) {
    const plain = expanded.replace(/^!/, '').replace(/\\(.)/g, '$1');
    if (!plain.startsWith('/') && !plain.startsWith('~') && !plain.split('/').includes('..')) continue;
    const expansion = expanded === pattern ? '' : ` (it expands to ${expanded})`;
    countSandboxRefusal('pattern_outside_workspace');
    refuse(
      `${option} ${pattern} leads outside the workspace${expansion}; ${option} is relative to ${relativeTo}: ` +
        'drop the leading /, ~ or .. and name paths from there, e.g. src/**/*.ts',
    );
  }
}

/**
 * The two calls fast-glob makes to the file system, confined: `readdir` walks a directory and `lstat` looks up a
 * pattern without wildcards. Each opens the directory first and goes on only if the kernel says it is inside
 * `root`, then works through the open directory, so a path swapped for a symlink meanwhile cannot redirect it. An
 * error just skips the entry (`suppressErrors`). `readdir` also leaves out the entries the walk skips: fast-glob
 * never sees them, so it never descends into them either.
 */
function fileSystemInside(root: string, rules: GitignoreRules): Partial<fg.FileSystemAdapter> {
  const readdirInside = (directory: string, _options: unknown, callback: (error: Error | null, entries?: Dirent[]) => void) =>
    settle(
      inDirectoryInside(root, directory, async (held, real) => {
        const entries = await readdir(held, { withFileTypes: true });
        const relative = path.relative(root, real);
        const ownFile = entries.find((entry) => entry.name === '.gitignore' && entry.isFile());
        await rules.load(relative, async () => ownFile && readHeldIgnoreFile(heldEntry(held, relative, '.gitignore')));
        if (rules.ignores(relative, true)) return [];
        return entries.filter((entry) => {
          const child = path.posix.join(relative, entry.name);
          return !(entry.isDirectory() && isIgnoredDirectory(child)) && !rules.ignores(child, entry.isDirectory());
        });
      }),
      callback,
    );
  const lstatInside = (file: string, callback: (error: Error | null, stats?: Stats) => void) =>
    settle(
      inDirectoryInside(root, path.dirname(file), (held) => lstat(path.join(held, path.basename(file)))),
      callback,
    );
  return {
    readdir: readdirInside as unknown as fg.FileSystemAdapter['readdir'],
    lstat: lstatInside as unknown as fg.FileSystemAdapter['lstat'],
  };
}

async function inDirectoryInside<T>(root: string, directory: string, body: (held: string, real: string) => Promise<T>): Promise<T> {
  const handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const real = await realPathOfOpen(handle);
    if (!isInside(root, real)) throw new Error(`${directory} is outside the workspace`);
    return await body(`/proc/self/fd/${handle.fd}`, real);
  } finally {
    await handle.close();
  }
}

function settle<T>(work: Promise<T>, callback: (error: Error | null, value?: T) => void): void {
  work.then(
    (value) => callback(null, value),
    (error: Error) => callback(error),
  );
}

/** An entry of a directory held open, for `openRegularFile`. */
function heldEntry(held: string, directory: string, name: string): HeldDirectory {
  return { name, requested: path.posix.join(directory, name), pathOf: (entry = name) => `${held}/${entry}` };
}

/** Real path of a directory a match sits in, looked up once per directory however many matches it holds. */
function realParent(cache: Map<string, Promise<string | undefined>>, directory: string): Promise<string | undefined> {
  let real = cache.get(directory);
  if (!real) cache.set(directory, (real = realpath(directory).catch(() => undefined)));
  return real;
}
