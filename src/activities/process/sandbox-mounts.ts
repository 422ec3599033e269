import { existsSync, lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';

/** System directories bound read-only: programs, libraries and the configuration they read. */
const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Where home directories live: a toolchain under one is bound by its own top directory, never the home itself. */
const HOME_PARENTS = ['/root', '/home', '/Users'];

/** How deep a bound tree is searched for entries other users may not read (secrets such as /etc/shadow, keys). */
const MASK_DEPTH = { '/etc': 8, toolchain: 2 } as const;

/**
 * The read-only part of the sandbox's file system, worked out once when the worker starts: system directories,
 * the toolchains on the worker's `PATH` (node, python, their package managers), and masks over every entry in them
 * that other users of the host may not read. Inside the sandbox every bound file appears to belong to the sandbox
 * user, so permissions alone would not keep `/etc/shadow` or a toolchain's credentials file private: only not
 * showing them does.
 */
export function readOnlyMounts(searchPath: string, extra: readonly string[] = []): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRECTORIES) {
    const entry = entryAt(dir);
    if (!entry) continue;
    if (entry.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (entry.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const root of [...toolchainRoots(searchPath), ...extra.filter((dir) => existsSync(dir))]) {
    if (!SYSTEM_DIRECTORIES.some((system) => isWithin(root, system))) args.push('--ro-bind', root, root);
  }
  const masked = [
    ...privateEntries('/etc', MASK_DEPTH['/etc']),
    ...toolchainRoots(searchPath).flatMap((root) => privateEntries(root, MASK_DEPTH.toolchain)),
  ];
  for (const { file, directory } of masked) {
    args.push(...(directory ? ['--tmpfs', file, '--remount-ro', file] : ['--ro-bind', '/dev/null', file]));
  }
  return args;
}

/**
 * The directories to bind so that every program on `PATH` works: a directory under a home is bound by the home's
 * top entry that holds it (`/root/.pyenv/shims` needs all of `/root/.pyenv`), a `bin` directory elsewhere by its
 * parent (its `lib` sits beside it). System directories are bound anyway and so are left out.
 */
export function toolchainRoots(searchPath: string): string[] {
  const roots = new Set<string>();
  for (const entry of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(entry) || !existsSync(entry)) continue;
    const dir = path.resolve(entry);
    if (SYSTEM_DIRECTORIES.some((system) => isWithin(dir, system)) || dir === '/usr/local') continue;
    roots.add(toolchainRoot(dir));
  }
  // A root inside another root is bound by that one already.
  return [...roots].filter((root) => ![...roots].some((other) => other !== root && isWithin(root, other))).sort();
}

function toolchainRoot(dir: string): string {
  const home = homeOf(dir);
  if (home && dir !== home) return path.join(home, path.relative(home, dir).split(path.sep)[0]);
  if (home) return dir;
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

/** `/root`, or `/home/<name>` and `/Users/<name>`, when `dir` is inside one. */
function homeOf(dir: string): string | undefined {
  for (const parent of HOME_PARENTS) {
    if (!isWithin(dir, parent)) continue;
    if (parent === '/root') return parent;
    const name = path.relative(parent, dir).split(path.sep)[0];
    return name ? path.join(parent, name) : undefined;
  }
  return undefined;
}

/** Entries under `root` (to `depth` levels) that other users cannot read, or cannot enter when a directory. */
export function privateEntries(root: string, depth: number): { file: string; directory: boolean }[] {
  const found: { file: string; directory: boolean }[] = [];
  const walk = (dir: string, level: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      const entry = entryAt(file);
      if (!entry || entry.isSymbolicLink()) continue;
      const directory = entry.isDirectory();
      const othersMay = directory ? (entry.mode & 0o005) === 0o005 : (entry.mode & 0o004) !== 0;
      if (!othersMay) found.push({ file, directory });
      else if (directory && level < depth) walk(file, level + 1);
    }
  };
  walk(root, 1);
  return found;
}

function entryAt(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
