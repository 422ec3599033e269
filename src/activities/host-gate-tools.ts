import { spawnSync } from 'node:child_process';
import { findExecutable } from './process/find-executable.js';

/**
 * What this host lacks to run the gates codeloop detects for Python projects, one line each, for the worker to say
 * when it starts: without pytest a Python project's tests gate cannot start, so its tasks end `unverified`; without
 * ruff there is no ruff gate and edits get a syntax check. Checked on the worker's `PATH`, the toolchains its sandbox
 * binds.
 */
export function missingGateTools(searchPath = process.env.PATH ?? ''): string[] {
  const python = findExecutable('python3', [], searchPath);
  const lines: string[] = [];
  if (!python) lines.push('python3 is not on PATH: Python tests gates cannot run here, and tasks on Python projects end unverified');
  else if (spawnSync(python, ['-c', 'import pytest'], { stdio: 'ignore', timeout: 30_000 }).status !== 0) {
    lines.push(`pytest is not installed for ${python}: Python tests gates cannot run here, and tasks on Python projects end unverified`);
  }
  if (!findExecutable('ruff', [], searchPath))
    lines.push('ruff is not on PATH: Python projects get no ruff gate, and edits a syntax check');
  return lines;
}
