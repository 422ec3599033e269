import { randomBytes } from 'node:crypto';
import { mkdir, rename, stat, writeFile, chmod, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Atomic write: a temp file beside the target, then rename. A retried or killed activity never leaves a
 * half-written file, and an existing file keeps its mode.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.codeloop-${randomBytes(4).toString('hex')}`);
  const mode = await stat(file).then((info) => info.mode, () => undefined);
  try {
    await writeFile(temp, content);
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
