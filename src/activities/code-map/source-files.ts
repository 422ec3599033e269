import { spawn } from 'node:child_process';
import path from 'node:path';
import { tryGit } from '../git/run-git.js';
import { isIgnoredDirectory } from '../tools/ignored-paths.js';
import { listFiles } from '../tools/list-files.js';
import { readRegularFile } from '../tools/read-regular-file.js';

/** A file of the project: its workspace-relative path and size in bytes. */
export interface ProjectFile {
  path: string;
  size: number;
}

/**
 * The files a code map is built from, and a way to read them. In a git repository with a commit they are the
 * commit's own (`HEAD`), listed by `git ls-tree` and read from git's object store (`git cat-file --batch`): the same
 * bytes for everyone who has that commit, so the map can be cached by it, and nothing on the file system (a symlink,
 * a FIFO, a file swapped in) is ever opened. Elsewhere the working tree, walked and read as the file tools read it.
 * Either way symlinks and submodules are not files here, and neither is anything in the fixed list of dependency,
 * cache and build directories.
 */
export interface ProjectSource {
  /** The commit the files are from; absent for a working tree, which is not cached. */
  commit?: string;
  files: ProjectFile[];
  /** Reads `files` in order, calling `each` with their text; files it cannot read are skipped. */
  read(files: ProjectFile[], each: (file: ProjectFile, text: string) => Promise<void>): Promise<void>;
}

export async function projectSource(workspace: string, maxFileBytes: number): Promise<ProjectSource> {
  const head = await tryGit(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.ok) return commitSource(workspace, head.stdout);
  const listed = (await listFiles(workspace, '**/*', 64)).filter((entry) => !entry.endsWith('/'));
  return {
    files: listed.map((file) => ({ path: file, size: 0 })),
    async read(files, each) {
      for (const file of files) {
        const bytes = await readRegularFile(workspace, path.join(workspace, file.path), maxFileBytes);
        if (typeof bytes !== 'string') await each({ path: file.path, size: bytes.length }, bytes.toString('utf8'));
      }
    },
  };
}

/** `git ls-tree -r -z --long HEAD`: `<mode> <type> <object> <size>\t<path>` for every blob, NUL-separated. */
async function commitSource(workspace: string, commit: string): Promise<ProjectSource> {
  const tree = await tryGit(workspace, ['ls-tree', '-r', '-z', '--long', 'HEAD']);
  if (!tree.ok) throw new Error(`git ls-tree failed in ${workspace}: ${tree.stderr}`);
  const objects = new Map<string, string>();
  const files: ProjectFile[] = [];
  for (const record of tree.stdout.split('\0')) {
    const match = /^(100644|100755) blob ([0-9a-f]+) +(\d+)\t(.+)$/s.exec(record);
    if (!match || inFixedList(match[4]!)) continue;
    objects.set(match[4]!, match[2]!);
    files.push({ path: match[4]!, size: Number(match[3]) });
  }
  return { commit, files, read: (wanted, each) => readObjects(workspace, wanted, objects, each) };
}

function inFixedList(file: string): boolean {
  const parts = file.split('/');
  for (let depth = 1; depth < parts.length; depth++) if (isIgnoredDirectory(parts.slice(0, depth).join('/'))) return true;
  return false;
}

/**
 * Streams blobs out of `git cat-file --batch`, one request line per object, answered `<object> blob <size>\n<bytes>\n`.
 * codeloop's git runs no hook and no fsmonitor program in the agent's repositories (see run-git.ts).
 */
async function readObjects(
  workspace: string,
  wanted: ProjectFile[],
  objects: Map<string, string>,
  each: (file: ProjectFile, text: string) => Promise<void>,
): Promise<void> {
  if (wanted.length === 0) return;
  const child = spawn('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'cat-file', '--batch'], {
    cwd: workspace,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(wanted.map((file) => `${objects.get(file.path)}\n`).join(''));
  let buffered: Buffer = Buffer.alloc(0);
  let index = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      for (;;) {
        const newline = buffered.indexOf(0x0a);
        if (newline === -1) break;
        const header = buffered.subarray(0, newline).toString('latin1');
        const size = Number(/ blob (\d+)$/.exec(header)?.[1] ?? -1);
        if (size < 0) {
          buffered = buffered.subarray(newline + 1);
          index += 1;
          continue;
        }
        if (buffered.length < newline + 1 + size + 1) break;
        const text = buffered.subarray(newline + 1, newline + 1 + size).toString('utf8');
        buffered = buffered.subarray(newline + 1 + size + 1);
        await each(wanted[index++]!, text);
      }
    }
  } finally {
    child.kill();
    await exited;
  }
}
