import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How many standard libraries the tree holds: four CPythons make the 0.9 GB, 11,600-file tree the issue measured. */
const LIBRARIES = 4;

export interface SearchTree {
  root: string;
  /** The interpreters whose standard libraries it holds, oldest first. */
  versions: string[];
}

/**
 * The large tree `npm run bench -- search` searches, built the same way every time: the standard libraries of the
 * four newest CPython 3 interpreters on this machine (pyenv's, or `python3.X` on `PATH`), each copied as installed
 * (`__pycache__` included) but for `site-packages`, into `cpython-<version>/`. It lives in the system's temp directory
 * and is rebuilt only when the interpreters differ.
 */
export function buildSearchTree(): SearchTree {
  const libraries = findStandardLibraries().slice(-LIBRARIES);
  if (libraries.length < LIBRARIES) {
    throw new Error(
      `the search bench copies the standard libraries of ${LIBRARIES} CPython 3 interpreters; this machine has ${libraries.length}: ` +
        libraries.map((library) => library.version).join(', '),
    );
  }
  const versions = libraries.map((library) => library.version);
  const root = path.join(os.tmpdir(), 'codeloop-bench-search-tree');
  const manifest = path.join(root, '.versions');
  const stamp = ['without site-packages', ...versions].join('\n');
  if (existsSync(manifest) && readFileSync(manifest, 'utf8') === stamp) return { root, versions };
  rmSync(root, { recursive: true, force: true });
  for (const library of libraries) {
    const target = path.join(root, `cpython-${library.version}`);
    mkdirSync(target, { recursive: true });
    // site-packages holds what was installed later, which differs from machine to machine: left out.
    execFileSync('sh', ['-c', 'tar -C "$0" -cf - --exclude=./site-packages . | tar -C "$1" -xf -', library.path, target]);
  }
  writeFileSync(manifest, stamp);
  return { root, versions };
}

interface Library {
  version: string;
  path: string;
}

function findStandardLibraries(): Library[] {
  const interpreters = new Set<string>();
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  if (existsSync(pyenv)) for (const version of readdirSync(pyenv)) interpreters.add(path.join(pyenv, version, 'bin', 'python3'));
  for (let minor = 6; minor <= 20; minor++) interpreters.add(`python3.${minor}`);
  const found = new Map<string, Library>();
  for (const interpreter of interpreters) {
    const probe = spawnSync(
      interpreter,
      ['-c', 'import platform, sysconfig; print(platform.python_version()); print(sysconfig.get_paths()["stdlib"])'],
      {
        encoding: 'utf8',
      },
    );
    const [version, stdlib] = (probe.stdout ?? '').trim().split('\n');
    if (probe.status !== 0 || !version?.startsWith('3.') || !stdlib || !existsSync(stdlib)) continue;
    const minor = version.split('.').slice(0, 2).join('.');
    if (!found.has(minor)) found.set(minor, { version, path: stdlib });
  }
  return [...found.values()].sort((a, b) => compareVersions(a.version, b.version));
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let index = 0; index < Math.max(x.length, y.length); index++) {
    if ((x[index] ?? 0) !== (y[index] ?? 0)) return (x[index] ?? 0) - (y[index] ?? 0);
  }
  return 0;
}

/**
 * Drops the tree's pages from the page cache, so the next search reads from disk: `posix_fadvise(DONTNEED)` on
 * every file, which needs no privilege and touches nothing else on the machine. Returns false where it cannot.
 */
export function evictFromPageCache(root: string): boolean {
  const script =
    'import os, sys\n' +
    'os.sync()\n' +
    'for d, _, fs in os.walk(sys.argv[1]):\n' +
    '  for f in fs:\n' +
    '    p = os.path.join(d, f)\n' +
    '    if os.path.islink(p): continue\n' +
    '    fd = os.open(p, os.O_RDONLY)\n' +
    '    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)\n' +
    '    os.close(fd)\n';
  return spawnSync('python3', ['-c', script, root], { stdio: 'ignore' }).status === 0;
}
