import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/** Far above any real manifest, config or instructions file; a bigger one is not read into the worker's memory. */
export const PROJECT_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A file the worker reads for itself from a workspace (a manifest, `codeloop.json`, `AGENTS.md`, a tasks file), as
 * carefully as the file tools read for the model: only a regular file, reached through no symlink (a symlink could
 * lead to `/proc/self/environ` or the worker's keys, whose text would then reach the model), never a FIFO or device
 * (opening one would block a thread of the worker for ever), at most `maxBytes`. `undefined` when there is no such
 * file; otherwise its text, or why it was not read, in words a person can act on.
 *
 * `file` is an absolute path under a workspace whose own path is real: a directory on the way that is a symlink is
 * refused as well as the file itself, unless `anyDirectory` says the directory is codeloop's own choosing.
 */
export function readProjectFile(
  file: string,
  maxBytes = PROJECT_FILE_MAX_BYTES,
  { anyDirectory = false } = {},
): string | { problem: string } | undefined {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: code === 'ELOOP' ? 'it is a symlink' : `it cannot be opened (${code ?? (error as Error).message})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { problem: 'it is not a regular file' };
    if (!anyDirectory && realDirectory(path.dirname(file)) !== path.dirname(file))
      return { problem: 'it is reached through a symlinked directory' };
    if (stats.size > maxBytes) return { problem: `it is larger than ${formatBytes(maxBytes)}` };
    return readFileSync(fd, 'utf8');
  } catch (error) {
    return { problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

function realDirectory(directory: string): string | undefined {
  try {
    return realpathSync(directory);
  } catch {
    return undefined;
  }
}

const formatBytes = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MB` : `${bytes / 1024} KB`);
