import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import type { HeldDirectory } from './safe-open.js';
import { refuse } from './tool-outcome.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** Errors of a file system without hard links, where a new file falls back to a check and a rename. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Atomic write: a temp file beside the target in the held directory, then a rename over the target (`replace`) or a
 * hard link to its name, which fails if the name exists, so a file that appeared since the caller looked is never
 * overwritten. A retried or killed activity never leaves a half-written file; `mode` carries an edited file's
 * permissions over. Returns false, writing nothing, when the name exists and `replace` is off.
 */
export async function writeFileAtomic(
  directory: HeldDirectory,
  content: Uint8Array,
  options: { replace: boolean; mode?: number },
): Promise<boolean> {
  const temp = directory.pathOf(`.${directory.name.slice(0, 200)}.codeloop-${randomBytes(4).toString('hex')}`);
  const target = directory.pathOf();
  let placed: 'renamed' | 'linked' | 'exists' | undefined;
  try {
    await writeNewFile(temp, content, options.mode);
    placed = options.replace ? await rename(temp, target).then(() => 'renamed' as const) : await linkNew(temp, target);
    return placed !== 'exists';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return refuse(`${directory.requested} was moved or removed while it was being written; nothing was written, try again`);
  } finally {
    if (placed !== 'renamed') await unlink(temp).catch(() => undefined);
  }
}

async function writeNewFile(file: string, content: Uint8Array, mode: number | undefined): Promise<void> {
  const handle = await open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
  try {
    await handle.writeFile(content);
    if (mode !== undefined) await handle.chmod(mode & 0o7777);
  } finally {
    await handle.close();
  }
}

async function linkNew(temp: string, target: string): Promise<'linked' | 'renamed' | 'exists'> {
  try {
    await link(temp, target);
    return 'linked';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return 'exists';
    if (!NO_HARD_LINKS.has(code)) throw error;
  }
  if (
    await lstat(target).then(
      () => true,
      () => false,
    )
  )
    return 'exists';
  await rename(temp, target);
  return 'renamed';
}
