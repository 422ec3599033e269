import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const RUFF_VERSION = '0.17.6';
const venv = path.resolve('.tools/ruff-venv');
const ruff = path.join(venv, 'bin', 'ruff');

/** A pinned ruff for the lint tests, installed into `.tools/` on first use, the way the Temporal CLI is. */
export function ensureRuff(): string {
  if (existsSync(ruff)) return ruff;
  const run = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'pipe' }).status === 0;
  if (!run('python3', ['-m', 'venv', venv]) || !run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', `ruff==${RUFF_VERSION}`])) {
    throw new Error(`could not install ruff ${RUFF_VERSION} into ${venv} with pip`);
  }
  return ruff;
}

/**
 * A directory holding only the pinned ruff (a standalone binary, so a copy of it works and the sandbox, which binds
 * `PATH`'s directories, finds it), for a `PATH` that finds ruff without also finding the venv's `python3`.
 */
export function ruffOnlyDirectory(): string {
  const dir = path.resolve('.tools/ruff-only');
  if (!existsSync(path.join(dir, 'ruff'))) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(ensureRuff(), path.join(dir, 'ruff'));
  }
  return dir;
}
