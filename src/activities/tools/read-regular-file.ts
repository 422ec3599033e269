import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { isInside, realPathOfOpen } from './glob-in-workspace.js';
import { readUpTo } from './text-file.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/** Why a file was not read: not a regular file inside the workspace, or over the size limit. */
export type UnreadFile = 'not-regular' | 'too-large';

/**
 * The bytes of a regular file inside `root` (a real path), for tools that read many files by glob. `lstat` comes
 * first, so a FIFO, socket, device or symlink is never opened, and a file over `maxBytes` is not read at all. The
 * open itself is `O_NONBLOCK | O_NOFOLLOW`, `fstat` and the kernel's path of the open file have the last word: an
 * entry swapped for a FIFO or a symlink since cannot block the read or lead it outside, and a file that grew since is
 * read only to its old size and a byte.
 */
export async function readRegularFile(root: string, absolute: string, maxBytes: number): Promise<Buffer | UnreadFile> {
  const entry = await lstat(absolute).catch(() => undefined);
  if (!entry?.isFile()) return 'not-regular';
  if (entry.size > maxBytes) return 'too-large';
  const handle = await open(absolute, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY).catch(() => undefined);
  if (!handle) return 'not-regular';
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || !isInside(root, await realPathOfOpen(handle))) return 'not-regular';
    // One byte past the size it has now tells a file that grew; the buffer is sized to the file, not the limit.
    const bytes = await readUpTo(handle, Math.min(opened.size, maxBytes) + 1);
    return bytes.length > maxBytes ? 'too-large' : bytes;
  } finally {
    await handle.close();
  }
}
