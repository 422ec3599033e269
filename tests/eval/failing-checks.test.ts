import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EvalResults } from '../../src/eval/results.js';
import { renderResults } from '../../src/eval/table.js';
import { scriptedSessions } from '../../evals/scripted/index.js';
import { runScriptedEval } from '../../evals/scripted/scripted-eval.js';
import { checksOf, runOf, scratchDir, suiteOf } from '../support/eval.js';
import { testSandbox } from '../support/sandbox.js';
import { connectTemporal, type TestTemporal } from '../support/temporal.js';
import { inject } from 'vitest';

/**
 * Sessions that get built-in cases wrong, the ways the checks exist for, run as `codeloop eval` runs a live worker
 * (the model a scripted loopback server): each kind of check fails, says why, and fails its case.
 */
let temporal: TestTemporal;
let results: EvalResults;
const workdir = scratchDir('eval-failing');
const sessions = {
  'py-bugfix-median': scriptedSessions['py-bugfix-median'].botch,
  'py-refactor-move-module': scriptedSessions['py-refactor-move-module'].botch,
  'py-feature-slugify': scriptedSessions['py-feature-slugify'].plod,
  'py-config-pytest-marker': scriptedSessions['py-config-pytest-marker'].askUnanswerable,
};
/** The suite's own limits, but for one: a cost ceiling below what any session costs, to see that check fail too. */
const COST_CEILING = 0.001;

beforeAll(async () => {
  temporal = await connectTemporal();
  const suite = suiteOf(Object.keys(sessions), (suiteCase) =>
    suiteCase.id === 'py-feature-slugify' ? { ...suiteCase, checks: { ...suiteCase.checks, maxCostUsd: COST_CEILING } } : suiteCase,
  );
  ({ results } = await runScriptedEval({
    suite,
    sessions,
    client: temporal.client,
    connection: temporal.nativeConnection,
    workflowBundlePath: inject('workflowBundlePath'),
    eval: { sandbox: testSandbox, workdir, maxParallel: 4 },
  }));
}, 180_000);
afterAll(async () => {
  await temporal?.close();
  rmSync(workdir, { recursive: true, force: true });
});

test('a wrong fix fails the hidden regression test, and a config edit on the way fails byte-identity', () => {
  const run = runOf(results, 'py-bugfix-median');
  expect(run).toMatchObject({ verdict: 'fail', status: 'completed' });
  const [command] = checksOf(run, 'command');
  expect(command).toMatchObject({ passed: false, target: expect.stringContaining('tests_hidden') });
  expect(command.detail).toMatch(/^exit 1: .*test_even_length_takes_the_mean_of_the_two_middle_values/s);
  expect(checksOf(run, 'unchanged')).toEqual([
    expect.objectContaining({ target: 'pyproject.toml', passed: false, detail: expect.stringContaining('addopts = \\"-q\\"') }),
  ]);
  // What did hold is reported as holding: the task completed, within its limits.
  expect(checksOf(run, 'completed')[0].passed).toBe(true);
  expect(checksOf(run, 'maxIterations')[0].passed).toBe(true);
  // The copy stays for a look, with the agent's edit in it.
  expect(readFileSync(path.join(run.workspace!, 'pyproject.toml'), 'utf8')).toContain('addopts = "-q"');
});

test('half a refactor fails exists (the new module) and absent (the old one), and the hidden test', () => {
  const run = runOf(results, 'py-refactor-move-module');
  expect(run.verdict).toBe('fail');
  expect(checksOf(run, 'exists')).toEqual([{ kind: 'exists', target: 'shop/prices.py', passed: false, detail: 'missing' }]);
  expect(checksOf(run, 'absent')).toEqual([{ kind: 'absent', target: 'shop/utils.py', passed: false, detail: 'present' }]);
  expect(checksOf(run, 'command')[0]).toMatchObject({ passed: false, detail: expect.stringContaining("No module named 'shop.prices'") });
  expect(existsSync(path.join(run.workspace!, 'shop/pricing.py'))).toBe(true);
});

test('a right answer reached the long way fails the iteration limit, and a cost over the ceiling fails maxCostUsd', () => {
  const run = runOf(results, 'py-feature-slugify');
  expect(run.verdict).toBe('fail');
  // The work itself is right: the hidden tests pass.
  expect(checksOf(run, 'command').map((check) => check.passed)).toEqual([true]);
  expect(checksOf(run, 'maxIterations')).toEqual([
    { kind: 'maxIterations', target: '≤ 15', passed: false, detail: `${run.iterations} iterations` },
  ]);
  expect(run.iterations).toBeGreaterThan(15);
  expect(checksOf(run, 'maxCostUsd')).toEqual([
    { kind: 'maxCostUsd', target: `≤ $${COST_CEILING}`, passed: false, detail: `$${run.costUsd.toFixed(4)}` },
  ]);
  expect(run.costUsd).toBeGreaterThan(COST_CEILING);
});

test('a question the case has no answer for ends the run: the task is cancelled and the completed check fails', () => {
  const run = runOf(results, 'py-config-pytest-marker');
  expect(run).toMatchObject({ verdict: 'fail', status: 'cancelled', blockers: 1 });
  expect(run.reason).toBe('blocked on a question the case has no answer for: Should slow tests be skipped by default, or only marked?');
  expect(checksOf(run, 'completed')[0]).toMatchObject({ passed: false, detail: run.reason });
  // The task changed nothing, so the files it must leave alone are still the fixture's.
  expect(checksOf(run, 'unchanged').every((check) => check.passed)).toBe(true);
});

test('the totals and the table say what failed and why', () => {
  expect(results.totals).toMatchObject({ runs: 4, passed: 0, passRate: 0, costPerSolvedUsd: null });
  const table = renderResults(results);
  expect(table).toContain('pass rate 0/4 (0%)');
  expect(table).toContain('no case solved');
  expect(table).toMatch(/py-refactor-move-module#1 fail .*\n.*\n?\s+✗ exists shop\/prices.py: missing/);
  expect(table).toContain('✗ maxCostUsd');
  expect(table).toContain('workspace kept: ');
});
