// codeloop's entry points compiled once and reused until a source file changes. Compiling each module through tsx's
// loader as it is imported costs about half a CPU-second on every `codeloop` command before it does anything; the
// compiled bundle is the same source through the same compiler (tsx uses esbuild), made once.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How every entry point is compiled: for Node 20, as ES modules, with the installed packages left to Node. */
export const compileOptions = /** @type {const} */ ({
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'silent',
});

/**
 * The CLI compiled from `src/client/main.ts`, each command's module a chunk of its own loaded only when that command
 * runs (as in `main.ts`). It lives in a directory named by a hash of every source file's path, size and modification
 * time, so an edit anywhere under `src/` (or to `package.json`) compiles afresh, and two commands started at once
 * never read a half-written build. Returns the module to import, or undefined when esbuild is not installed or the
 * source does not compile: the caller then runs the source through tsx, which reports any error as usual.
 */
export async function compiledCli(root = checkout) {
  const cacheDir = path.join(root, 'node_modules', '.cache', 'codeloop');
  const target = path.join(cacheDir, `cli-${sourceStamp(root)}`);
  const entry = path.join(target, 'main.js');
  if (existsSync(entry)) return entry;
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const building = `${target}.${process.pid}.tmp`;
  try {
    await esbuild.build({ ...compileOptions, entryPoints: [path.join(root, 'src/client/main.ts')], splitting: true, outdir: building });
    writeFileSync(path.join(building, 'package.json'), '{ "type": "module" }\n');
    renameSync(building, target);
  } catch {
    rmSync(building, { recursive: true, force: true });
    // Another command finished the same build first: use it.
    return existsSync(entry) ? entry : undefined;
  }
  removeOldBuilds(cacheDir, path.basename(target));
  return entry;
}

/** A hash over `src/` and `package.json`: each file's path, size and modification time (about 15 ms for 250 files). */
function sourceStamp(root) {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else stampFile(file);
    }
  };
  const stampFile = (file) => {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${path.relative(root, file)}\0${size}\0${mtimeMs}\n`);
  };
  visit(path.join(root, 'src'));
  stampFile(path.join(root, 'package.json'));
  return hash.digest('hex').slice(0, 16);
}

/** Builds of older sources, once no command started in the last hour can still be loading chunks from them. */
function removeOldBuilds(cacheDir, keep) {
  for (const name of readdirSync(cacheDir)) {
    const dir = path.join(cacheDir, name);
    const age = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (name !== keep && name.startsWith('cli-') && age > 3_600_000) rmSync(dir, { recursive: true, force: true });
  }
}
