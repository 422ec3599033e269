import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A Python project's `.venv`, as its contributor docs set one up: the project installed editable, and its test tools. */
export interface PythonSetup {
  /** `pip install -e .`: the venv imports the checkout's own sources, by the checkout's absolute path. */
  editable: boolean;
  /** Requirements installed beside it, pinned (`pytest==9.2.0`). */
  install: string[];
}

/**
 * Puts `.venv` in `workspace`, set up as `setup` says. A virtualenv names absolute paths (its scripts' `#!` lines, and
 * an editable install the checkout's directory), so it only works where it was built: it is built in the checkout
 * itself the first time, then kept in `cache` by the checkout's path (and what it installs), and a later checkout at
 * the same path gets a copy (0.2-0.5 s here, where building took 9-41 s). Returns how long it took, and whether it was
 * built.
 */
export function addVirtualenv(setup: PythonSetup, workspace: string, cache: string): { built: boolean; ms: number } {
  const started = Date.now();
  const venv = path.join(workspace, '.venv');
  const kept = path.join(
    cache,
    createHash('sha256')
      .update(JSON.stringify([workspace, setup]))
      .digest('hex')
      .slice(0, 12),
  );
  const ready = `${kept}.ready`;
  if (existsSync(ready)) {
    cpSync(kept, venv, { recursive: true, verbatimSymlinks: true });
    return { built: false, ms: Date.now() - started };
  }
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'pipe' });
  const pip = path.join(venv, 'bin/pip');
  const quiet = ['--quiet', '--disable-pip-version-check', '--no-input'];
  execFileSync(pip, ['install', ...quiet, ...(setup.editable ? ['-e', '.'] : []), ...setup.install], {
    cwd: workspace,
    stdio: 'pipe',
    timeout: 300_000,
  });
  rmSync(kept, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  cpSync(venv, kept, { recursive: true, verbatimSymlinks: true });
  writeFileSync(ready, `${workspace}\n`);
  return { built: true, ms: Date.now() - started };
}
