import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Removes a directory tree; gone already is fine. Node's `rm` builds each path whole and fails with ENAMETOOLONG on a
 * tree deeper than the path limit (which a task can make with a loop of `mkdir`); `rm -rf` walks it relative to each
 * directory and gets through.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw error;
    await run('rm', ['-rf', '--', dir]);
  }
}
