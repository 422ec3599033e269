import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from './blob-store.js';

/**
 * Blobs as files, `<dir>/<first two characters>/<name>`. Each is written to a temporary file, flushed, renamed into
 * place and its directory flushed, so a blob that `put` reported survives a crash of the machine.
 */
export class FileBlobStore implements BlobStore {
  readonly location: string;

  constructor(private readonly dir: string) {
    this.location = `file://${dir}`;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const file = this.fileOf(name);
    if (
      await stat(file).then(
        () => true,
        () => false,
      )
    )
      return;
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file).catch(async (error) => {
      await unlink(temp).catch(() => undefined);
      throw error;
    });
    const directory = await open(path.dirname(file), 'r');
    await directory.sync().finally(() => directory.close());
  }

  async get(name: string): Promise<Uint8Array | undefined> {
    return readFile(this.fileOf(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  }

  async size(): Promise<number> {
    let total = 0;
    for (const shard of await readdir(this.dir).catch(() => [] as string[]))
      for (const name of await readdir(path.join(this.dir, shard))) total += (await stat(path.join(this.dir, shard, name))).size;
    return total;
  }

  async close(): Promise<void> {}

  private fileOf(name: string): string {
    if (!/^[0-9a-f]{64}$/.test(name)) throw new Error(`not a blob name: ${name}`);
    return path.join(this.dir, name.slice(0, 2), name);
  }
}
