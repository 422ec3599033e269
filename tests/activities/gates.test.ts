import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { detectGates, runGate } from '../../src/activities/verification/gates.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeWorkspace } from '../support/workspace.js';

const shell = sandboxedShell(process.env);
const testsGate = (files: Record<string, string>) => detectGates(makeWorkspace(files)).find((gate) => gate.name === 'tests');

test.each([
  ['testing/', { 'setup.py': '', 'testing/test_core.py': '' }],
  ['tests/ under a package in src/', { 'pyproject.toml': '', 'src/pkg/tests/test_core.py': '' }],
  ['spec/', { 'pyproject.toml': '', 'spec/core_test.py': '' }],
  ['pyproject testpaths', { 'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["checks"]\n', 'checks/anything.py': '' }],
  ['setup.cfg testpaths', { 'setup.cfg': '[tool:pytest]\ntestpaths = checks\n', 'checks/anything.py': '' }],
])('a pytest tests gate for tests in %s', (_layout, files) => {
  expect(testsGate(files)).toMatchObject({ command: 'python3 -m pytest -q' });
});

test('no tests gate for a Python project without tests, nor for test files only inside ignored directories', () => {
  expect(testsGate({ 'pyproject.toml': '', 'app.py': '' })).toBeUndefined();
  expect(testsGate({ 'pyproject.toml': '', '.venv/lib/test_x.py': '', 'node_modules/x/test_y.py': '' })).toBeUndefined();
});

test('a FIFO or a symlink where a manifest or config is expected is never read, so detection cannot hang', () => {
  for (const name of ['package.json', 'pyproject.toml', 'setup.cfg', 'codeloop.json']) {
    const workspace = makeWorkspace({ 'setup.py': '', 'tests/test_a.py': '' });
    execFileSync('mkfifo', [path.join(workspace, name)]);
    const detect = () => detectGates(workspace);
    if (name === 'codeloop.json') expect(detect).toThrow('codeloop.json cannot be read: it is not a regular file');
    else expect(detect()).toContainEqual(expect.objectContaining({ name: 'tests' }));
  }
  const linked = makeWorkspace({ 'setup.py': '', 'tests/test_a.py': '' });
  symlinkSync('/etc/hostname', path.join(linked, 'codeloop.json'));
  expect(() => detectGates(linked)).toThrow('codeloop.json cannot be read: it is a symlink');
});

test('a gate whose program is missing is unavailable; a failing one against its baseline passes only when nothing is new', async () => {
  const workspace = makeWorkspace({
    'test_a.py': 'def test_old():\n    assert False\n\ndef test_new():\n    assert True\n',
  });
  const missing = await runGate(shell, workspace, { name: 'build', command: 'nub build', timeoutSeconds: 30 });
  expect(missing).toMatchObject({ passed: true, unavailable: true, summary: expect.stringContaining('nub is not installed') });

  const gate = { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 };
  const baseline = await runGate(shell, workspace, gate);
  expect(baseline).toMatchObject({ passed: false, failures: ['test_a.py::test_old'] });
  expect(await runGate(shell, workspace, gate, baseline)).toMatchObject({ passed: true, newFailures: [] });

  const broken = makeWorkspace({ 'test_a.py': 'def test_old():\n    assert False\n\ndef test_new():\n    assert False\n' });
  expect(await runGate(shell, broken, gate, baseline)).toMatchObject({ passed: false, newFailures: ['test_a.py::test_new'] });
}, 60_000);
