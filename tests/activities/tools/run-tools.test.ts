import { expect, test } from 'vitest';
import { runWorkspaceCommand } from '../../../src/activities/tools/run-command.js';
import { detectTestCommand, runWorkspaceTests } from '../../../src/activities/tools/run-tests.js';
import { firstFailure } from '../../../src/activities/tools/test-report.js';
import { sandboxedShell } from '../../support/sandbox.js';
import { makeWorkspace } from '../../support/workspace.js';

const shell = sandboxedShell({ ...process.env, ANTHROPIC_API_KEY: 'sk-never-shown' });

test('run_command: output, exit code, working directory locked to the workspace', async () => {
  const workspace = makeWorkspace({ 'a.txt': 'hello' });
  const result = await runWorkspaceCommand(shell, workspace, { command: 'pwd; cat a.txt; exit 2', timeout: 60 });
  expect(result.isError).toBe(true);
  expect(result.content).toMatch(new RegExp(`^\\$ pwd; cat a.txt; exit 2\\nexit code 2 in [0-9.]+s\\n${workspace}\\nhello$`));
});

test('run_command: the environment holds no secrets', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), { command: 'env', timeout: 60 });
  expect(result.content).not.toContain('sk-never-shown');
  expect(result.content).not.toContain('ANTHROPIC');
});

test('run_command: output over 4,000 chars keeps the first and last 2,000', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), {
    command: "python3 -c \"print('a'*3000 + 'b'*3000 + 'c'*3000)\"",
    timeout: 60,
  });
  expect(result.content).toContain('a'.repeat(2000));
  expect(result.content).toContain('c'.repeat(2000));
  expect(result.content).not.toContain('bb');
  expect(result.content).toContain('characters omitted');
});

test('run_command: a timeout is an observation', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), { command: 'sleep 10', timeout: 1 });
  expect(result).toMatchObject({ isError: true, content: expect.stringContaining('timed out after') });
}, 10_000);

test('run_command: the deny-list refuses before anything runs', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), { command: 'rm -rf /', timeout: 60 });
  expect(result).toEqual({ isError: true, content: expect.stringMatching(/^command refused \(recursive delete/) });
});

test('run_tests: detects npm test and pytest', () => {
  expect(detectTestCommand(makeWorkspace({ 'package.json': '{"scripts":{"test":"node --test"}}' }))).toBe('npm test --silent --');
  expect(
    detectTestCommand(makeWorkspace({ 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' })),
  ).toBeUndefined();
  expect(detectTestCommand(makeWorkspace({ 'pyproject.toml': '' }))).toBe('python3 -m pytest -q');
  expect(detectTestCommand(makeWorkspace({ 'README.md': '' }))).toBeUndefined();
});

test('run_tests: a failing node suite shows the first failure, not everything', async () => {
  const workspace = makeWorkspace({
    'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
    'a.test.mjs':
      "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.strictEqual(1 + 1, 3));\n" +
      "test('ok', () => {});\ntest('subtracts', () => assert.strictEqual(2 - 1, 5));\n",
  });
  const result = await runWorkspaceTests(shell, workspace, {});
  expect(result.isError).toBe(true);
  expect(result.content).toContain('Failing tests (2):\n  adds\n  subtracts');
  expect(result.content).toContain('not ok 1 - adds');
  expect(result.content).toContain('2 !== 3');
  expect(result.content).not.toContain('1 !== 5');
  expect(result.content).toContain('# fail 2');
  const passing = makeWorkspace({
    'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
    'b.test.mjs': "import test from 'node:test';\ntest('ok', () => {});\n",
  });
  expect(await runWorkspaceTests(shell, passing, {})).toMatchObject({ isError: false });
}, 30_000);

test('firstFailure: pytest output yields the first failing test and the summary', () => {
  const output = [
    '..F.F',
    '=================================== FAILURES ===================================',
    '________________________________ test_subtract _________________________________',
    '    def test_subtract():',
    '>       assert subtract(3, 1) == 3',
    'E       assert 2 == 3',
    '________________________________ test_divide ___________________________________',
    '    def test_divide():',
    '=========================== short test summary info ============================',
    'FAILED test_calc.py::test_subtract - assert 2 == 3',
    '========================= 2 failed, 3 passed in 0.02s ==========================',
  ].join('\n');
  const failure = firstFailure(output);
  expect(failure).toContain('test_subtract');
  expect(failure).toContain('E       assert 2 == 3');
  expect(failure).not.toContain('test_divide');
  expect(failure).toContain('2 failed, 3 passed');
});

test('firstFailure: vitest output yields the first failure block, not the next', () => {
  const output = [
    ' ❯ math.test.ts (2 tests | 2 failed)',
    '   × adds',
    '   × subtracts',
    '⎯⎯⎯ Failed Tests 2 ⎯⎯⎯',
    ' FAIL  math.test.ts > adds',
    'AssertionError: expected 2 to be 3',
    ' ❯ math.test.ts:3:20',
    ' FAIL  math.test.ts > subtracts',
    'AssertionError: expected 1 to be 5',
    '      Tests  2 failed (2)',
  ].join('\n');
  const failure = firstFailure(output);
  expect(failure).toContain('FAIL  math.test.ts > adds\nAssertionError: expected 2 to be 3\n ❯ math.test.ts:3:20');
  expect(failure).not.toContain('expected 1 to be 5');
  expect(failure).toContain('Tests  2 failed (2)');
});

test('firstFailure: at most 50 lines of traceback', () => {
  const output = ['FAIL src/a.test.ts > adds', ...Array.from({ length: 200 }, (_, index) => `  at frame ${index}`)].join('\n');
  expect(firstFailure(output).split('\n').length).toBeLessThanOrEqual(50);
});

test('run_tests: with several failures, only the first shows, its traceback cut to 50 lines; verbose shows all', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '',
    'test_calc.py': [
      'def descend(depth):',
      '    assert depth > 0, "bottomed out"',
      '    return descend(depth - 1)',
      '',
      'def test_passes_quietly():',
      '    print("output of a passing test")',
      '',
      'def test_deep_failure():',
      '    descend(80)',
      '',
      'def test_second_failure():',
      '    assert 1 == 2',
      '',
    ].join('\n'),
  });
  const result = await runWorkspaceTests(shell, workspace, {});
  expect(result.isError).toBe(true);
  expect(result.content).toContain('Failing tests (2):\n  test_calc.py::test_deep_failure\n  test_calc.py::test_second_failure');
  expect(result.content).not.toContain('assert 1 == 2');
  expect(result.content).not.toContain('test_passes_quietly');
  expect(result.content).not.toContain('output of a passing test');
  expect(result.content).toContain('2 failed, 1 passed');
  // Between the command's two header lines and the "…" before the summary: the first traceback, cut at 50 of its ~250 lines.
  const lines = result.content.split('\n');
  const traceback = lines.slice(lines.indexOf('') + 1, lines.indexOf('…'));
  expect(traceback[0]).toMatch(/^_+ test_deep_failure _+$/);
  expect(traceback).toHaveLength(50);

  const verbose = await runWorkspaceTests(shell, workspace, { verbose: true });
  expect(verbose.content).toContain('test_second_failure');
}, 30_000);

test('run_tests: a passing suite is one line with its count', async () => {
  const workspace = makeWorkspace({ 'pyproject.toml': '', 'test_a.py': 'def test_a():\n    print("chatter " * 500)\n' });
  const result = await runWorkspaceTests(shell, workspace, {});
  expect(result.isError).toBe(false);
  expect(result.content).toMatch(/^\$ python3 -m pytest -q\nexit code 0 in [\d.]+s: 1 passed in [\d.]+s$/);
}, 30_000);

test('run_tests: a runner that is not installed (exit 127) is named, with the scripts and runners the project has', async () => {
  const workspace = makeWorkspace({
    'package.json': JSON.stringify({ scripts: { test: 'nyc-not-here tape test/*.js', 'test:unit': 'node --test', lint: 'eslint .' } }),
    'node_modules/.bin/tape': '#!/bin/sh\n',
  });
  const result = await runWorkspaceTests(shell, workspace, {});
  expect(result.isError).toBe(true);
  expect(result.content).toContain('`nyc-not-here` is not installed where the tests run (exit 127: command not found)');
  expect(result.content).toContain('Scripts in package.json that do not use it: test:unit: `node --test`; lint: `eslint .`.');
  expect(result.content).toContain('Installed in the project: node_modules/.bin/tape.');
}, 30_000);

test('run_tests: a src/ layout runs with PYTHONPATH=src, so the tests import the workspace copy', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '[project]\nname = "humble"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'src/humble/__init__.py': 'def ordinal(n):\n    return f"{n}th"\n',
    'tests/test_ordinal.py':
      'import humble\n\ndef test_ordinal():\n    assert humble.ordinal(4) == "4th"\n    assert "/src/humble/" in humble.__file__\n',
  });
  expect(detectTestCommand(workspace)).toBe('PYTHONPATH=src python3 -m pytest -q');
  expect(await runWorkspaceTests(shell, workspace, {})).toMatchObject({ isError: false, content: expect.stringContaining('1 passed') });
  const configured = makeWorkspace({ 'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n', 'src/humble/__init__.py': '' });
  expect(detectTestCommand(configured)).toBe('python3 -m pytest -q');
}, 30_000);

test('run_command: colour codes a program forces are stripped from its output', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), { command: "printf '\\033[31mFAILED\\033[0m test_a'", timeout: 60 });
  expect(result.content).toMatch(/\nFAILED test_a$/);
});

test('run_command without network: a package manager fails at once instead of retrying a registry it cannot reach', async () => {
  const started = Date.now();
  const result = await runWorkspaceCommand(shell, makeWorkspace(), { command: 'npx --yes codeloop-no-such-package-xyz', timeout: 120 });
  expect(result.isError).toBe(true);
  expect(Date.now() - started).toBeLessThan(20_000);
  const pip = await runWorkspaceCommand(shell, makeWorkspace(), {
    command: 'python3 -m pip download --no-deps -d /tmp/p codeloop-no-such-xyz',
    timeout: 120,
  });
  expect(pip.isError).toBe(true);
  expect(Date.now() - started).toBeLessThan(40_000);
}, 60_000);

test('run_command: git has an identity, so commit and stash work in a repository the agent makes', async () => {
  const result = await runWorkspaceCommand(shell, makeWorkspace(), {
    command:
      'git init -q r && cd r && echo a > f && git add f && git commit -qm first && echo b > f && git stash -q && git log --format=%an',
    timeout: 60,
  });
  expect(result).toMatchObject({ isError: false, content: expect.stringMatching(/\ncodeloop agent$/) });
});

test('run_tests: a test runner whose Python module is not installed is named too', async () => {
  const workspace = makeWorkspace({ 'codeloop.json': JSON.stringify({ test: 'python3 -m codeloop_no_such_runner -q' }) });
  const result = await runWorkspaceTests(shell, workspace, {});
  expect(result.isError).toBe(true);
  expect(result.content).toContain(
    '`codeloop_no_such_runner` is not installed where the tests run (the command could not start), and installing it needs the network.',
  );
});
