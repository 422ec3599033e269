import { execFileSync } from 'node:child_process';
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { detectGates } from '../../src/activities/verification/gates.js';
import { runGate } from '../../src/activities/verification/run-gate.js';
import { gateVerdict } from '../../src/shared/gates.js';
import { sandboxedShell, unsandboxed } from '../support/sandbox.js';
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

test('a gate whose own program is missing is unverified, never passed; a failing one against its baseline passes only when nothing is new', async () => {
  const workspace = makeWorkspace({
    'test_a.py': 'def test_old():\n    assert False\n\ndef test_new():\n    assert True\n',
  });
  const missing = await runGate(shell, workspace, { name: 'build', command: 'nub build', timeoutSeconds: 30 });
  expect(missing).toMatchObject({ passed: false, unavailable: true, unverified: 'nub is not installed where the gates run' });
  expect(gateVerdict(missing)).toBe('unverified');
  const noModule = await runGate(shell, workspace, { name: 'tests', command: 'python3 -m nosuchrunner -q', timeoutSeconds: 30 });
  expect(noModule).toMatchObject({ passed: false, unverified: 'nosuchrunner is not installed where the gates run' });

  const gate = { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 };
  const baseline = await runGate(shell, workspace, gate);
  expect(baseline).toMatchObject({ passed: false, failures: ['test_a.py::test_old'] });
  expect(await runGate(shell, workspace, gate, baseline)).toMatchObject({ passed: true, newFailures: [] });

  const broken = makeWorkspace({ 'test_a.py': 'def test_old():\n    assert False\n\ndef test_new():\n    assert False\n' });
  expect(await runGate(shell, broken, gate, baseline)).toMatchObject({ passed: false, newFailures: ['test_a.py::test_new'] });
}, 60_000);

test('a test that runs a program which is not installed is a failing test, not a gate that could not run', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '[project]\nname = "tracker"\n[project.scripts]\ntracker = "tracker.cli:main"\n',
    'tests/test_cli.py':
      'import subprocess\n\ndef test_cli_adds():\n    done = subprocess.run("tracker add milk", shell=True, capture_output=True, text=True)\n' +
      '    assert done.returncode == 0, done.stderr\n',
  });
  const result = await runGate(shell, workspace, { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 });
  expect(result.summary).toContain('tracker: not found');
  expect(result).toMatchObject({ passed: false, failures: ['tests/test_cli.py::test_cli_adds'] });
  expect(result.unavailable).toBeUndefined();
  expect(gateVerdict(result)).toBe('failed');
}, 60_000);

test('pytest addopts naming a plugin that is not installed are left out, and the command that works is named', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-ra --cov=humanize --cov-report=term-missing -n auto"\n',
    'tests/test_a.py': 'def test_a():\n    assert True\n',
  });
  const result = await runGate(shell, workspace, { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 });
  expect(result).toMatchObject({
    passed: true,
    command: "python3 -m pytest -q -o 'addopts=-ra'",
    summary: expect.stringMatching(/^1 passed/),
  });
  expect(result.notes?.[0]).toContain('(--cov=humanize --cov-report=term-missing -n)');
}, 60_000);

test('files that cannot be collected: one line per cause, the other tests still run and are compared', async () => {
  const files = {
    'tests/test_b.py': 'import freezegun\n\ndef test_b():\n    pass\n',
    'tests/test_c.py': 'import freezegun\n\ndef test_c():\n    pass\n',
    'tests/test_d.py': 'import humanize_missing\n',
    'tests/test_ok.py': 'def test_ok():\n    assert True\n',
  };
  const gate = { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 };
  const baseline = await runGate(shell, makeWorkspace(files), gate);
  expect(baseline.causes).toEqual([
    "ModuleNotFoundError: No module named 'freezegun' (tests/test_b.py, tests/test_c.py)",
    "ModuleNotFoundError: No module named 'humanize_missing' (tests/test_d.py)",
  ]);
  expect(baseline.command).toBe('python3 -m pytest -q --continue-on-collection-errors');
  expect(baseline.failures).toEqual(['tests/test_b.py', 'tests/test_c.py', 'tests/test_d.py']);

  const same = await runGate(shell, makeWorkspace(files), gate, baseline);
  expect(same).toMatchObject({ passed: true, newFailures: [] });
  const broken = makeWorkspace({ ...files, 'tests/test_ok.py': 'def test_ok():\n    assert 1 == 2, "broken by the task"\n' });
  const worse = await runGate(shell, broken, gate, baseline);
  expect(worse).toMatchObject({ passed: false, newFailures: ['tests/test_ok.py::test_ok'] });
  expect(worse.summary).toContain('broken by the task');
}, 60_000);

test('a test gate that ran no test before the task or now is no worse, but unverified', async () => {
  const files = { 'tests/test_b.py': 'import freezegun\n' };
  const gate = { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 };
  const baseline = await runGate(shell, makeWorkspace(files), gate);
  const result = await runGate(shell, makeWorkspace(files), gate, baseline);
  expect(baseline.cannotRun).toBe(
    "no test file could be collected: ModuleNotFoundError: No module named 'freezegun' (tests/test_b.py); fix: install what the tests " +
      'import with codeloop.json\'s "setup" (for instance "pip install -e .[test]")',
  );
  expect(result).toMatchObject({ passed: false, newFailures: [] });
  expect(result.unverified).toContain('it could not run before the task, nor now: no test file could be collected');
  expect(gateVerdict(result)).toBe('unverified');
}, 60_000);

test('a pretest that fails before any test: never "no worse", unverified with the reason and the fix', async () => {
  const files = {
    'package.json': JSON.stringify({
      scripts: { pretest: 'node -e "console.error(\'lint: 3 problems\'); process.exit(1)"', test: 'node --test' },
    }),
    'test/add.test.js':
      "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(1 + 1, 2));\n",
  };
  const gate = { name: 'tests', command: 'npm test --silent', timeoutSeconds: 60 };
  const baseline = await runGate(shell, makeWorkspace(files), gate);
  expect(baseline.cannotRun).toBe(
    'its pretest script (`node -e "console.error(\'lint: 3 problems\'); process.exit(1)"`) fails before any test runs: lint: 3 ' +
      'problems; fix: set codeloop.json\'s "test" to {"hooks": false}, which runs the tests without it',
  );
  const bug = { ...files, 'test/add.test.js': files['test/add.test.js'].replace('2));', '3));') };
  const result = await runGate(shell, makeWorkspace(bug), gate, baseline);
  expect(result.unverified).toContain('it could not run before the task, nor now: its pretest script');
  expect(gateVerdict(result)).toBe('unverified');
  // With the fix, the same bug is a failing test.
  const fixed = { ...bug, 'codeloop.json': JSON.stringify({ test: { hooks: false } }) };
  const tests = detectGates(makeWorkspace(fixed)).find((found) => found.name === 'tests')!;
  expect(tests.command).toBe('npm test --silent --ignore-scripts');
  expect(gateVerdict(await runGate(shell, makeWorkspace(fixed), tests))).toBe('failed');
}, 60_000);

test("a runner the test script cannot find: the reason, and the script's own runner as the fix", async () => {
  const workspace = makeWorkspace({
    'package.json': JSON.stringify({ scripts: { test: 'nyc --reporter=text tape test/*.js' } }),
    'node_modules/.bin/tape': '#!/bin/sh\necho "ok 1 adds"\n',
    'test/add.js': '',
  });
  chmodSync(path.join(workspace, 'node_modules/.bin/tape'), 0o755);
  const baseline = await runGate(shell, workspace, { name: 'tests', command: 'npm test --silent', timeoutSeconds: 60 });
  expect(baseline.cannotRun).toBe(
    'nyc is not installed where the tests run (exit 127: command not found); fix: set codeloop.json\'s "test" to ' +
      '"npx --no-install tape test/*.js"',
  );
}, 60_000);

test('a unittest suite whose gate is pytest, not installed in its virtualenv: unverified, and the fix is unittest', async () => {
  const workspace = makeWorkspace({
    'setup.py': '',
    'tests/test_calc.py':
      'import unittest\n\nclass TestCalc(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(1 + 1, 2)\n',
  });
  execFileSync('python3', ['-m', 'venv', '--without-pip', path.join(workspace, '.venv')]);
  const python = `${workspace}/.venv/bin/python`;
  const result = await runGate(shell, workspace, { name: 'tests', command: `${python} -m pytest -q`, timeoutSeconds: 60 });
  expect(result.unverified).toBe(
    `pytest is not installed where the gates run; fix: set codeloop.json's "test" to "${python} -m unittest discover -s tests"`,
  );
  // Detected, the gate is unittest in the first place, and passes.
  const detected = detectGates(workspace).find((found) => found.name === 'tests')!;
  expect(detected.command).toBe(`${python} -m unittest discover -s tests`);
  expect(await runGate(shell, workspace, detected)).toMatchObject({ passed: true, summary: expect.stringMatching(/^Ran 1 test in /) });
  writeFileSync(path.join(workspace, 'Makefile'), 'test:\n\t.venv/bin/python -m unittest discover -s tests\n');
  expect(detectGates(workspace).find((found) => found.name === 'tests')?.command).toBe('make test');
}, 60_000);

test('a Go module and a Rust crate get a test command and gates', () => {
  const names = (files: Record<string, string>) => detectGates(makeWorkspace(files)).map(({ name, command }) => `${name}: ${command}`);
  expect(names({ 'go.mod': 'module example.com/calc\n', 'calc.go': 'package calc\n' })).toEqual([
    'vet: go vet ./...',
    'tests: go test ./...',
  ]);
  expect(names({ 'Cargo.toml': '[package]\nname = "calc"\n', 'src/lib.rs': '' })).toEqual([
    'build: cargo build --all-targets',
    'tests: cargo test',
  ]);
});

test('failure lines that differ only in times, durations, addresses and paths are the same failures', async () => {
  const script =
    'import datetime, tempfile; print(datetime.datetime.now().isoformat(), "ERROR cache at", hex(id(object())), "in", ' +
    'tempfile.mkdtemp() + "/cache.db", "after 12.5ms"); raise SystemExit(1)';
  const gate = { name: 'lint', command: `python3 -c '${script}'`, timeoutSeconds: 30 };
  const workspace = makeWorkspace();
  const baseline = await runGate(shell, workspace, gate);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect(await runGate(shell, workspace, gate, baseline)).toMatchObject({ passed: true, newFailures: [] });
}, 60_000);

test('a project with more than 500 lint findings: one new finding fails the lint gate', async () => {
  const eslint = path.resolve('node_modules/.bin/eslint');
  const unused = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, index) => `const unused${from + index} = 1;\n`).join('');
  const files = {
    'eslint.config.js': "export default [{ rules: { 'no-unused-vars': 'error' } }];\n",
    'package.json': '{"type": "module"}',
  };
  const gate = { name: 'lint', command: `${eslint} .`, timeoutSeconds: 120 };
  // codeloop's own eslint, which the sandbox does not show: the gate runs unsandboxed.
  const shell = sandboxedShell(process.env, unsandboxed);
  const baseline = await runGate(shell, makeWorkspace({ ...files, 'src/a.js': unused(0, 679) }), gate);
  expect(baseline.failures).toHaveLength(679);
  const same = await runGate(shell, makeWorkspace({ ...files, 'src/a.js': `// moved\n${unused(0, 679)}` }), gate, baseline);
  expect(same).toMatchObject({ passed: true, newFailures: [] });
  const worse = await runGate(shell, makeWorkspace({ ...files, 'src/a.js': unused(0, 680) }), gate, baseline);
  expect(worse.passed).toBe(false);
  expect(worse.newFailures).toEqual(["#:# error 'unused679' is assigned a value but never used no-unused-vars"]);
}, 120_000);

test('renumbered parametrized cases are the same failures; the summary shows the new failure, not an old one', async () => {
  const cases = (values: string) =>
    'import pytest\n\nclass Box:\n    def __init__(self, v):\n        self.v = v\n\n' +
    `@pytest.mark.parametrize("box", [${values}])\ndef test_box(box):\n    assert box.v > 10\n\n` +
    'def test_new():\n    assert True\n';
  const gate = { name: 'tests', command: 'python3 -m pytest -q', timeoutSeconds: 60 };
  const baseline = await runGate(shell, makeWorkspace({ 'test_a.py': cases('Box(1), Box(2)') }), gate);
  expect(baseline.failures).toEqual(['test_a.py::test_box[box0]', 'test_a.py::test_box[box1]']);
  // A passing case inserted first renumbers both old failures.
  const inserted = await runGate(shell, makeWorkspace({ 'test_a.py': cases('Box(11), Box(1), Box(2)') }), gate, baseline);
  expect(inserted).toMatchObject({ passed: true, newFailures: [] });

  const broken = makeWorkspace({
    'test_a.py': cases('Box(1), Box(2)').replace('def test_new():\n    assert True', 'def test_new():\n    assert "new" == "old"'),
  });
  const worse = await runGate(shell, broken, gate, baseline);
  expect(worse.newFailures).toEqual(['test_a.py::test_new']);
  expect(worse.summary).toMatch(/_+ test_new _+/);
  expect(worse.summary).not.toMatch(/_+ test_box\[box0\] _+/);
}, 60_000);
