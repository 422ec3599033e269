import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { missingGateTools } from '../../src/activities/host-gate-tools.js';
import { makeWorkspace } from '../support/workspace.js';

/** A directory holding executables that print nothing and exit with `status`. */
function fakeBin(names: Record<string, number>): string {
  const dir = path.join(makeWorkspace({}), 'bin');
  mkdirSync(dir);
  for (const [name, status] of Object.entries(names)) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\nexit ${status}\n`);
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

test('the worker says at start-up which gates of Python projects it cannot run', () => {
  expect(missingGateTools(fakeBin({}))).toEqual([
    'python3 is not on PATH: Python tests gates cannot run here, and tasks on Python projects end unverified',
    'ruff is not on PATH: Python projects get no ruff gate, and edits a syntax check',
  ]);
  const noPytest = fakeBin({ python3: 1, ruff: 0 });
  expect(missingGateTools(noPytest)).toEqual([
    `pytest is not installed for ${noPytest}/python3: Python tests gates cannot run here, and tasks on Python projects end unverified`,
  ]);
  expect(missingGateTools(fakeBin({ python3: 0, ruff: 0 }))).toEqual([]);
});
