import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { refuse } from './tool-outcome.js';
import type { WorkspacePath } from './workspace-path.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/**
 * A workspace directory held open, and the name of the entry a tool is after inside it. Names are looked up through
 * `/proc/self/fd/<fd>/<name>`, which the kernel resolves from the open directory itself: once a directory is held,
 * renaming it or swapping its path for a symlink cannot send a lookup anywhere else. Linux only, like the sandbox.
 */
export interface HeldDirectory {
  name: string;
  /** The path as the model gave it, for messages. */
  requested: string;
  /** Path of `entry` (default: the entry the tool is after) inside the held directory. */
  pathOf(entry?: string): string;
}

/** What a name in a held directory turned out to be. A `file` is open for reading; the caller closes it. */
export type OpenedEntry =
  { kind: 'missing' } | { kind: 'file'; handle: FileHandle; stats: Stats } | { kind: 'other'; isDirectory: boolean; description: string };

/** How `withParentDirectory` treats a directory on the way that does not exist. */
export type MissingDirectories = { create: true } | { create: false; refuseMissing: () => never };

/**
 * Runs `body` with the directory that holds `file` open, walking down from the workspace root one component at a
 * time with `O_NOFOLLOW | O_DIRECTORY`. `resolveInWorkspace` already turned every symlink into its real path, so a
 * symlink met here was swapped in since: the call is refused instead of followed. Missing directories are either
 * made on the way (`mkdir` never follows a symlink either) or refused.
 */
export async function withParentDirectory<T>(
  file: WorkspacePath,
  requested: string,
  missing: MissingDirectories,
  body: (directory: HeldDirectory) => Promise<T>,
): Promise<T> {
  if (!existsSync('/proc/self/fd'))
    throw new Error('the file tools open workspace paths through /proc/self/fd: mount /proc on this worker');
  const parts = file.relative === '.' ? [] : file.relative.split('/');
  const name = parts.pop() ?? '.';
  let handle = await open(file.root, O_RDONLY | O_DIRECTORY);
  try {
    for (const [index, part] of parts.entries()) {
      const child = await openChildDirectory(handle, part, missing.create);
      if (typeof child !== 'string') {
        await handle.close();
        handle = child;
        continue;
      }
      const where = parts.slice(0, index + 1).join('/');
      if (child === 'symlink') refuse(describeChange(requested, where));
      if (!missing.create) missing.refuseMissing();
      refuse(
        `cannot create ${requested}: ${where} ${child === 'missing' ? 'was removed while it was being made; try again' : 'is not a directory'}`,
      );
    }
    const fd = handle.fd;
    return await body({ name, requested, pathOf: (entry = name) => `/proc/self/fd/${fd}/${entry}` });
  } finally {
    await handle.close();
  }
}

/**
 * Opens the entry a held directory names if it is a regular file. `lstat` comes first, so a FIFO, socket or device
 * is never opened at all; the open itself is `O_NONBLOCK | O_NOFOLLOW` and `fstat` has the last word, so an entry
 * swapped for a FIFO between the two steps cannot make the open block, and one swapped for a symlink is not
 * followed.
 */
export async function openRegularFile(directory: HeldDirectory): Promise<OpenedEntry> {
  const target = directory.pathOf();
  const entry = await lstat(target).catch(ignoreMissing);
  if (!entry) return { kind: 'missing' };
  if (!entry.isFile()) return describeEntry(entry);
  let handle: FileHandle;
  try {
    handle = await open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP') return refuse(describeChange(directory.requested, directory.requested));
    if (code === 'ENXIO') return { kind: 'other', isDirectory: false, description: 'a socket' };
    throw error;
  }
  const stats = await handle.stat();
  if (stats.isFile()) return { kind: 'file', handle, stats };
  await handle.close();
  return describeEntry(stats);
}

/** The refusal for an entry that exists but is not a regular file; `rule` says what the tool handles instead. */
export function refuseNonRegular(requested: string, entry: Extract<OpenedEntry, { kind: 'other' }>, rule: string): never {
  return refuse(`${requested} is ${entry.description}, not a regular file; ${rule}`);
}

async function openChildDirectory(
  parent: FileHandle,
  name: string,
  create: boolean,
): Promise<FileHandle | 'missing' | 'symlink' | 'not-a-directory'> {
  const child = `/proc/self/fd/${parent.fd}/${name}`;
  try {
    return await open(child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && create) {
      try {
        await mkdir(child);
      } catch (failure) {
        const failed = (failure as NodeJS.ErrnoException).code;
        if (failed === 'ENOENT') return 'missing';
        if (failed !== 'EEXIST') throw failure;
      }
      return openChildDirectory(parent, name, false);
    }
    if (code === 'ENOENT') return 'missing';
    if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
    const entry = await lstat(child).catch(ignoreMissing);
    return entry?.isSymbolicLink() ? 'symlink' : entry ? 'not-a-directory' : 'missing';
  }
}

function describeChange(requested: string, where: string): string {
  return `${requested} changed while it was being opened (${where} is now a symlink); nothing was read or written, try again`;
}

function describeEntry(stats: Stats): Extract<OpenedEntry, { kind: 'other' }> {
  return { kind: 'other', isDirectory: stats.isDirectory(), description: describeType(stats) };
}

function describeType(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return stats.isSymbolicLink() ? 'a symlink' : 'a special file';
}

function ignoreMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
  throw error;
}
