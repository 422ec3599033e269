import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addVirtualenv, type PythonSetup } from './python-venv.js';

/** A published project at a pinned version: its registry artifact, checked against the registry's own digest. */
export interface PublishedProject {
  /** e.g. `six-1.16.0`: the cache directory's name. */
  id: string;
  url: string;
  /** `sha256-<hex>` (PyPI) or `sha512-<base64>` (npm's `integrity`). */
  digest: string;
  /** npm packages installed next to it, as a developer would (`npm install` of the tarball's own manifest and these). */
  npmInstall?: string[];
  /**
   * A package cut from a monorepo: its manifest's devDependencies are the whole monorepo's build and lint tools,
   * installed at the monorepo's root (and not installable together outside it), so only its `dependencies` and
   * `npmInstall` are installed.
   */
  cutFromMonorepo?: boolean;
  /** A Python project's `.venv` in the checkout, as its contributor docs set it up (see `addVirtualenv`). */
  python?: PythonSetup;
  /** Files the published artifact leaves out but the project's repository has, e.g. its test runner's config. */
  extraFiles?: Record<string, string>;
  /** A zip (the Go module proxy's) rather than a gzipped tarball, with the project in this folder inside it. */
  zip?: { folder: string };
}

const CACHE = path.resolve('.cache/real-repos');

/**
 * The project unpacked (and its npm packages installed) once into `.cache/real-repos/<id>/`, then copied into a
 * scratch directory (or `at`, emptied first: the sandbox keeps a project's package and build caches by its path, so
 * sessions on one project at one path share them), given its `.venv` when it is a Python project that has one, and
 * committed to a fresh git repository, as a user's checkout would be. The download is verified before it is unpacked;
 * npm installs with `--ignore-scripts`; an editable install runs the project's build backend.
 */
export async function checkoutOf(project: PublishedProject, at?: string): Promise<string> {
  const cached = await unpacked(project);
  if (at) rmSync(at, { recursive: true, force: true });
  const workspace = at ?? mkdtempSync(path.join(os.tmpdir(), `codeloop-real-${project.id}-`));
  cpSync(cached, workspace, { recursive: true, verbatimSymlinks: true });
  if (project.python) addVirtualenv(project.python, workspace, path.join(CACHE, `${project.id}.venv`));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  // Dependencies stay out of history, as the project's own .gitignore would keep them.
  writeFileSync(path.join(workspace, '.git/info/exclude'), 'node_modules/\n');
  git('add', '-A');
  git('-c', 'user.name=codeloop', '-c', 'user.email=codeloop@localhost', 'commit', '-q', '-m', `${project.id} as published`);
  return workspace;
}

async function unpacked(project: PublishedProject): Promise<string> {
  const dir = path.join(CACHE, project.id);
  const ready = path.join(CACHE, `${project.id}.ready`);
  // The cache holds what this definition makes (its files and installs): a changed definition makes it again.
  const definition = createHash('sha256').update(JSON.stringify(project)).digest('hex');
  if (existsSync(ready) && readFileSync(ready, 'utf8').includes(definition)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const response = await fetch(project.url);
  if (!response.ok) throw new Error(`${project.url}: ${response.status} ${response.statusText}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const [algorithm, expected] = project.digest.split(/-(.*)/s);
  const actual = createHash(algorithm)
    .update(bytes)
    .digest(algorithm === 'sha256' ? 'hex' : 'base64');
  if (actual !== expected) throw new Error(`${project.url}: ${algorithm} is ${actual}, expected ${expected}`);
  const archive = path.join(CACHE, `${project.id}.${project.zip ? 'zip' : 'tgz'}`);
  writeFileSync(archive, bytes);
  if (project.zip) {
    const unzipped = path.join(CACHE, `${project.id}.unzipped`);
    rmSync(unzipped, { recursive: true, force: true });
    execFileSync('python3', ['-m', 'zipfile', '-e', archive, unzipped]);
    rmSync(dir, { recursive: true });
    renameSync(path.join(unzipped, project.zip.folder), dir);
    rmSync(unzipped, { recursive: true });
  } else {
    execFileSync('tar', ['xzf', archive, '-C', dir, '--strip-components=1']);
  }
  rmSync(archive);
  for (const [file, content] of Object.entries(project.extraFiles ?? {})) writeFileSync(path.join(dir, file), content);
  if (project.npmInstall) npmInstall(project, dir);
  writeFileSync(ready, `${new Date().toISOString()} ${definition}\n`);
  return dir;
}

/** `npm install` of the project's manifest and `npmInstall`; for a package cut from a monorepo, without its devDependencies. */
function npmInstall(project: PublishedProject, dir: string): void {
  const flags = ['--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const manifest = path.join(dir, 'package.json');
  const published = readFileSync(manifest, 'utf8');
  if (project.cutFromMonorepo) {
    const { devDependencies: _monorepoTools, ...own } = JSON.parse(published) as Record<string, unknown>;
    writeFileSync(manifest, JSON.stringify(own, null, 2));
  }
  try {
    execFileSync('npm', ['install', ...flags, ...project.npmInstall!], { cwd: dir, stdio: 'pipe', timeout: 600_000 });
  } finally {
    writeFileSync(manifest, published);
  }
}
