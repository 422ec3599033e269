import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { detectTestCommand, runWorkspaceTests } from '../../../src/activities/tools/run-tests.js';
import { detectGates } from '../../../src/activities/verification/gates.js';
import { runGate } from '../../../src/activities/verification/run-gate.js';
import { collectionErrors, describeCollectionErrors } from '../../../src/activities/tools/collection-errors.js';
import {
  countLine,
  failingTests,
  failureKey,
  failuresIn,
  firstFailure,
  splitByBaseline,
} from '../../../src/activities/tools/test-report.js';
import { sandboxedShell } from '../../support/sandbox.js';
import { makeWorkspace } from '../../support/workspace.js';

const shell = sandboxedShell(process.env);

/** What each runner prints for two failing tests, trimmed to the lines that matter and kept in their shape. */
const RUNNER_OUTPUTS: Record<string, { output: string; ids: string[] }> = {
  pytest: {
    output: [
      '..FF',
      '=========================== short test summary info ============================',
      'FAILED tests/test_calc.py::test_subtract - assert 2 == 3',
      'FAILED tests/test_calc.py::TestDivide::test_by_zero - ZeroDivisionError',
      '2 failed, 2 passed in 0.03s',
    ].join('\n'),
    ids: ['tests/test_calc.py::test_subtract', 'tests/test_calc.py::TestDivide::test_by_zero'],
  },
  vitest: {
    output: [
      ' ❯ tests/math.test.ts (3 tests | 2 failed) 6ms',
      '   × math > adds 3ms',
      '   × subtracts 1ms',
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯',
      ' FAIL  tests/math.test.ts > math > adds',
      'AssertionError: expected 2 to be 3 // Object.is equality',
      ' FAIL  tests/math.test.ts > subtracts',
      '      Tests  2 failed | 1 passed (3)',
    ].join('\n'),
    ids: ['tests/math.test.ts > math > adds', 'tests/math.test.ts > subtracts'],
  },
  jest: {
    output: [
      'FAIL ./math.test.js',
      '  math',
      '    ✕ adds (3 ms)',
      '    ✕ subtracts (1 ms)',
      '  ● math › adds',
      '    expect(received).toBe(expected) // Object.is equality',
      '  ● math › subtracts',
      'Tests:       2 failed, 2 total',
    ].join('\n'),
    ids: ['math › adds', 'math › subtracts'],
  },
  'node:test (TAP)': {
    output: [
      'TAP version 13',
      '# Subtest: adds',
      'not ok 1 - adds',
      '  ---',
      '  duration_ms: 0.8',
      '# Subtest: subtracts',
      'not ok 2 - subtracts',
      '1..2',
      '# tests 2',
      '# fail 2',
    ].join('\n'),
    ids: ['adds', 'subtracts'],
  },
  'node:test (spec)': {
    output: [
      '✖ adds (1.1ms)',
      '  AssertionError [ERR_ASSERTION]',
      '✖ subtracts (0.2ms)',
      'ℹ fail 2',
      '✖ failing tests:',
      '✖ adds (1.1ms)',
    ].join('\n'),
    ids: ['adds', 'subtracts'],
  },
  mocha: {
    output: [
      '  math',
      '    1) adds',
      '    2) subtracts',
      '  0 passing (5ms)',
      '  2 failing',
      '  1) math',
      '       adds:',
      '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
    ].join('\n'),
    ids: ['adds', 'subtracts'],
  },
  tape: {
    output: [
      'TAP version 13',
      '# adds numbers',
      'ok 1 should be truthy',
      'not ok 2 should be strictly equal',
      '  ---',
      '    operator: equal',
      '# parses flags',
      'not ok 3 should be deeply equivalent',
      '1..3',
      '# tests 3',
      '# pass  1',
      '# fail  2',
    ].join('\n'),
    ids: ['adds numbers > should be strictly equal', 'parses flags > should be deeply equivalent'],
  },
  'go test': {
    output: [
      '--- FAIL: TestAdd (0.00s)',
      '    calc_test.go:8: got 2, want 3',
      '--- FAIL: TestSub (0.00s)',
      'FAIL',
      'FAIL\texample.com/calc\t0.002s',
    ].join('\n'),
    ids: ['TestAdd', 'TestSub'],
  },
  'cargo test': {
    output: [
      'test tests::adds ... FAILED',
      'test tests::subtracts ... FAILED',
      'test tests::ok ... ok',
      '---- tests::adds stdout ----',
      "thread 'tests::adds' panicked at src/lib.rs:9:9:",
      'test result: FAILED. 1 passed; 2 failed; 0 ignored',
    ].join('\n'),
    ids: ['tests::adds', 'tests::subtracts'],
  },
  'jest, a file that does not load': {
    output: [
      'FAIL tests/broken.test.js',
      '  ● Test suite failed to run',
      '',
      "    Cannot find module './nope' from 'tests/broken.test.js'",
      'FAIL tests/math.test.js',
      '  ● math › adds',
      'Tests:       1 failed, 1 passed, 2 total',
    ].join('\n'),
    ids: ['tests/broken.test.js', 'math › adds'],
  },
  'vitest, a file that does not load': {
    output: [
      ' FAIL  tests/broken.test.ts [ tests/broken.test.ts ]',
      "Error: Cannot find module './nope'",
      ' Test Files  1 failed (1)',
    ].join('\n'),
    ids: ['tests/broken.test.ts'],
  },
  'go test, a package that does not build': {
    output: ['# example.com/calc', './calc.go:3:40: undefined: c', 'FAIL\texample.com/calc [build failed]', 'FAIL'].join('\n'),
    ids: ['example.com/calc [build failed]'],
  },
};

test.each(Object.entries(RUNNER_OUTPUTS))('failingTests names the failing tests of %s', (_runner, { output, ids }) => {
  expect(failingTests(output)).toEqual(ids);
});

test("firstFailure with a name shows that test's report, and tape's `# fail  2` is its summary", () => {
  const { output } = RUNNER_OUTPUTS.tape;
  const report = firstFailure(output, 'parses flags > should be deeply equivalent');
  expect(report.split('\n')[0]).toBe('not ok 3 should be deeply equivalent');
  expect(report).toContain('# fail  2');
  expect(firstFailure(RUNNER_OUTPUTS['cargo test'].output, 'tests::adds')).toContain('panicked at src/lib.rs:9:9');
});

test('failuresIn: without test names, the error lines, stable when line numbers shift', () => {
  const before = failuresIn('src/app.ts(12,5): error TS2322: Type string is not assignable\nok');
  const after = failuresIn('src/app.ts(14,5): error TS2322: Type string is not assignable\nok');
  expect(before).toEqual(after);
  expect(before).toHaveLength(1);
});

const PYTHON_SUITE = {
  'pyproject.toml': '',
  'tests/test_old.py': 'def test_known_broken():\n    assert "before" == "the task"\n',
  'tests/test_calc.py': 'def test_adds():\n    assert 1 + 1 == 2\n',
};

test('run_tests: a failure that was there before the task comes second; the new one, and its report, first', async () => {
  const workspace = makeWorkspace({
    ...PYTHON_SUITE,
    'tests/test_calc.py': 'def test_adds():\n    assert 1 + 1 == 3, "broken by the task"\n',
  });
  const result = await runWorkspaceTests(shell, workspace, {}, ['tests/test_old.py::test_known_broken']);
  expect(result.isError).toBe(true);
  const split = result.content.indexOf('\n\n');
  const [heading, report] = [result.content.slice(0, split), result.content.slice(split + 2)];
  expect(heading).toContain('New failures, since the task started (1):\n  tests/test_calc.py::test_adds');
  expect(heading).toContain('1 other failing test(s) failed before the task too: not yours to fix.');
  expect(heading).not.toContain('test_known_broken');
  expect(report).toMatch(/^_+ test_adds _+$/m);
  expect(report).toContain('broken by the task');
  expect(report).not.toContain('"before" == "the task"');
}, 30_000);

test('run_tests: when every failure was there before the task, the run is no worse and not an error', async () => {
  const result = await runWorkspaceTests(shell, makeWorkspace(PYTHON_SUITE), {}, ['tests/test_old.py::test_known_broken']);
  expect(result.isError).toBe(false);
  expect(result.content).toContain('No new failures: the 1 failing test(s) failed before the task too');
  // Without the baseline the same run is a failure.
  expect(await runWorkspaceTests(shell, makeWorkspace(PYTHON_SUITE), {})).toMatchObject({ isError: true });
}, 30_000);

test("run_tests: codeloop.json's test command, and npm test without its pretest hook", async () => {
  const failingPretest = {
    'package.json': JSON.stringify({ scripts: { pretest: 'echo lint failed; exit 1', test: 'node --test' } }),
    'a.test.mjs': "import test from 'node:test';\ntest('passes', () => {});\n",
  };
  const withHooks = await runWorkspaceTests(shell, makeWorkspace(failingPretest), {});
  expect(withHooks).toMatchObject({ isError: true, content: expect.stringContaining('lint failed') });

  const noHooks = makeWorkspace({ ...failingPretest, 'codeloop.json': JSON.stringify({ test: { hooks: false } }) });
  expect(detectTestCommand(noHooks)).toBe('npm test --silent --ignore-scripts --');
  const result = await runWorkspaceTests(shell, noHooks, {});
  expect(result).toMatchObject({ isError: false });
  expect(result.content).not.toContain('lint failed');

  const own = makeWorkspace({ ...failingPretest, 'codeloop.json': JSON.stringify({ test: 'node --test a.test.mjs' }) });
  expect(await runWorkspaceTests(shell, own, {})).toMatchObject({
    isError: false,
    content: expect.stringMatching(/^\$ node --test a\.test\.mjs\n/),
  });

  const invalid = makeWorkspace({ ...failingPretest, 'codeloop.json': '{"test": {"hook": false}}' });
  expect(await runWorkspaceTests(shell, invalid, {})).toMatchObject({
    isError: true,
    content: expect.stringMatching(/^codeloop\.json is invalid: .*hook.*; fix it so run_tests knows how to run the tests$/),
  });
}, 30_000);

test('run_tests after an edit that keeps the size and the second runs the new code: no stale Python bytecode', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '',
    'calc.py': 'STEP = 1\n',
    'test_calc.py': 'from calc import STEP\n\ndef test_step():\n    assert STEP == 1\n',
  });
  expect(await runWorkspaceTests(shell, workspace, {})).toMatchObject({ isError: false });
  // The same size and, as Python's bytecode cache sees it, the same mtime: only a fresh compile sees the change.
  const file = path.join(workspace, 'calc.py');
  const { mtime } = statSync(file);
  writeFileSync(file, 'STEP = 2\n');
  utimesSync(file, mtime, mtime);
  expect(await runWorkspaceTests(shell, workspace, {})).toMatchObject({
    isError: true,
    content: expect.stringContaining('test_calc.py::test_step'),
  });
  expect(existsSync(path.join(workspace, '__pycache__'))).toBe(false);
}, 30_000);

test('pytest ids are kept whole, parameters with spaces included; files that could not be collected are named too', () => {
  const output = [
    "FAILED tests/test_a.py::test_words[a b] - AssertionError: assert 'a b' == 'x'",
    'FAILED tests/test_a.py::test_words[c - d] - assert 1 == 2',
    'FAILED tests/test_a.py::TestA::test_long',
    'ERROR tests/test_b.py',
    'ERROR tests/test_c.py - ModuleNotFoundError',
  ].join('\n');
  expect(failingTests(output)).toEqual([
    'tests/test_a.py::test_words[a b]',
    'tests/test_a.py::test_words[c - d]',
    'tests/test_a.py::TestA::test_long',
    'tests/test_b.py',
    'tests/test_c.py',
  ]);
});

test('failureKey: positional parameter ids lose their numbers, parameters given as values keep them', () => {
  expect(failureKey('t.py::test_obj[o0]')).toBe('t.py::test_obj[o]');
  expect(failureKey('t.py::test_obj[case12-other3]')).toBe('t.py::test_obj[case-other]');
  expect(failureKey('t.py::test_pair[1-2]')).toBe('t.py::test_pair[1-2]');
  expect(failureKey('t.py::test_plain')).toBe('t.py::test_plain');
  expect(
    splitByBaseline(['t.py::test_obj[o1]', 't.py::test_obj[o2]', 't.py::test_x'], ['t.py::test_obj[o0]', 't.py::test_obj[o1]']),
  ).toEqual({
    fresh: ['t.py::test_x'],
    before: ['t.py::test_obj[o1]', 't.py::test_obj[o2]'],
  });
});

test("countLine: a passing run's count in one line", () => {
  expect(countLine('....\n4 passed in 0.01s\n')).toBe('4 passed in 0.01s');
  expect(countLine('== 12 passed, 1 warning in 0.40s ==')).toBe('12 passed, 1 warning in 0.40s');
  expect(
    countLine(
      'TAP version 13\nok 1 - a\n1..1\n# tests 1\n# suites 0\n# pass 1\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 50',
    ),
  ).toBe('tests 1, pass 1');
  expect(countLine(' ✓ a.test.ts (2 tests) 3ms\n      Tests  2 passed (2)\n   Duration  1s')).toBe('Tests  2 passed (2)');
  expect(countLine('all good')).toBe('all good');
});

test("firstFailure keeps a long test's failing statement: its header, then the lines around pytest's > and E", () => {
  const body = Array.from({ length: 60 }, (_, n) => `        v${n} = ${n}`);
  const output = [
    '=================================== FAILURES ===================================',
    '__________________________________ test_long ___________________________________',
    '',
    '    @pytest.mark.slow',
    '    def test_long():',
    ...body,
    '>       assert v1 + v2 == v59',
    'E       assert (1 + 2) == 59',
    '',
    'tests/test_a.py:66: AssertionError',
    '1 failed in 0.10s',
  ].join('\n');
  const report = firstFailure(output).split('\n');
  expect(report[0]).toMatch(/^_+ test_long _+$/);
  expect(report[1]).toMatch(/^… \d+ lines of the test's source omitted …$/);
  expect(report).toContain('>       assert v1 + v2 == v59');
  expect(report).toContain('E       assert (1 + 2) == 59');
  expect(report).toContain('tests/test_a.py:66: AssertionError');
  expect(report).not.toContain('    @pytest.mark.slow');
});

test('collectionErrors: one cause per distinct exception line, with its files, never the traceback header', () => {
  const section = (file: string, module: string) => [
    `_______________________ ERROR collecting ${file} _______________________`,
    `ImportError while importing test module '/w/${file}'.`,
    'Hint: make sure your test modules/packages have valid Python names.',
    'Traceback:',
    '/usr/lib/python3.11/importlib/__init__.py:126: in import_module',
    '    return _bootstrap._gcd_import(name[level:], package, level)',
    `${file}:1: in <module>`,
    `    import ${module}`,
    `E   ModuleNotFoundError: No module named '${module}'`,
  ];
  const output = [
    '==================================== ERRORS ====================================',
    ...section('tests/test_b.py', 'freezegun'),
    ...section('tests/test_c.py', 'humanize'),
    ...section('tests/test_d.py', 'freezegun'),
    '=========================== short test summary info ============================',
    'ERROR tests/test_b.py',
  ].join('\n');
  expect(describeCollectionErrors(collectionErrors(output))).toEqual([
    "ModuleNotFoundError: No module named 'freezegun' (tests/test_b.py, tests/test_d.py)",
    "ModuleNotFoundError: No module named 'humanize' (tests/test_c.py)",
  ]);
});

test('unittest, run by a makefile: ids from its FAIL and ERROR headings, a module that does not import as its file, never the closing line', async () => {
  const workspace = makeWorkspace({
    Makefile: 'test:\n\tpython3 -m unittest\n',
    'codeloop.json': JSON.stringify({ test: 'make test' }),
    'tests/__init__.py': '',
    'tests/test_calc.py': [
      'import unittest',
      '',
      'class TestCalc(unittest.TestCase):',
      '    def test_old(self):',
      '        self.assertEqual("old", "failure")',
      '',
      '    def test_new(self):',
      '        self.assertEqual(2 + 2, 5, "the new failure")',
      '',
      '    def test_cases(self):',
      '        for value in (1, 2):',
      '            with self.subTest(value=value):',
      '                self.assertLess(value, 2)',
      '',
    ].join('\n'),
    'tests/test_broken.py': 'import no_such_module\n',
  });
  const gate = detectGates(workspace).find((found) => found.name === 'tests')!;
  const result = await runGate(shell, workspace, gate);
  expect(result.failures?.sort()).toEqual([
    'tests.test_calc.TestCalc.test_cases[value=2]',
    'tests.test_calc.TestCalc.test_new',
    'tests.test_calc.TestCalc.test_old',
    'tests/test_broken.py',
  ]);
  const baseline = { ...result, failures: result.failures!.filter((id) => !id.endsWith('test_new')) };
  const judged = await runGate(shell, workspace, gate, baseline);
  expect(judged.newFailures).toEqual(['tests.test_calc.TestCalc.test_new']);
  // The correction note shows the traceback of the failure it names, not the first one's.
  expect(judged.summary).toMatch(/^FAIL: test_new \(tests\.test_calc\.TestCalc\.test_new\)\n/);
  expect(judged.summary).toContain('the new failure');
  expect(judged.summary).not.toContain('"failure"');
  expect(countLine('Ran 3 tests in 0.001s\n\nOK')).toBe('Ran 3 tests in 0.001s');
}, 60_000);
