import { expect, test } from 'vitest';
import { compareResults, renderComparison } from '../../src/eval/compare.js';
import { computeTotals, defaultResultsFile, type EvalResults, type RunRecord } from '../../src/eval/results.js';
import { renderResults } from '../../src/eval/table.js';

/** A run of `caseId` in round `repeat` that passed or not, with its spend. */
const run = (caseId: string, repeat: number, passed: boolean, costUsd: number, iterations = 5): RunRecord => ({
  caseId,
  tags: [caseId.split('-')[0]],
  repeat,
  verdict: passed ? 'pass' : 'fail',
  status: 'completed',
  iterations,
  tokens: 1000 * iterations,
  costUsd,
  wallMs: 4_000,
  blockers: 0,
  gateRounds: passed ? 0 : 1,
  checks: [
    { kind: 'completed', target: 'task', passed: true },
    ...(passed ? [] : [{ kind: 'command' as const, target: 'pytest', passed: false, detail: 'exit 1' }]),
  ],
});

const results = (label: string, runs: RunRecord[], repeat: number): EvalResults => ({
  version: 1,
  suite: { name: 'suite', file: '/s/suite.yaml' },
  label,
  repeat,
  startedAt: '2026-05-01T10:00:00.000Z',
  finishedAt: '2026-05-01T10:01:30.000Z',
  runs,
  totals: computeTotals(runs, repeat),
});

test('with repeats: the pass rate of each round, their mean and spread, and the cost of a solved case', () => {
  const runs = [
    run('py-a', 1, true, 0.1),
    run('ts-b', 1, true, 0.3),
    run('py-a', 2, true, 0.1),
    run('ts-b', 2, false, 0.5),
    run('py-a', 3, false, 0.2),
    run('ts-b', 3, false, 0.4),
  ];
  const totals = computeTotals(runs, 3);
  expect(totals.rounds).toEqual([1, 0.5, 0]);
  expect(totals.meanPassRate).toBe(0.5);
  expect(totals.spread).toBe(0.5); // sample standard deviation of 1, 0.5, 0
  expect(totals).toMatchObject({ cases: 2, runs: 6, passed: 3, passRate: 0.5 });
  expect(totals.costUsd).toBeCloseTo(1.6);
  expect(totals.costPerSolvedUsd).toBeCloseTo(1.6 / 3);
  expect(totals.byTag).toEqual({ py: { runs: 3, passed: 2 }, ts: { runs: 3, passed: 1 } });

  const table = renderResults(results('m', runs, 3));
  expect(table).toMatch(/^py-a\s+2\/3\s+5\.0\s+5,000\s+\$0\.1333\s+4s\s+0\s+1$/m);
  expect(table).toContain('pass rate 3/6 (50%); over 3 rounds: mean 50% ± 50% (min 0%, max 100%)');
  expect(table).toContain('cost $1.6000 in all, $0.5333 per solved case');
  expect(table).toContain('by tag: py 2/3 · ts 1/3');
  expect(table).toContain('✗ command pytest: exit 1');
});

test('compare: fixed, broke and same per case; cases only one side ran are named as such', () => {
  const a = results(
    'sonnet',
    [run('py-a', 1, true, 0.1), run('py-b', 1, false, 0.2), run('py-c', 1, true, 0.1), run('py-old', 1, true, 0.1)],
    1,
  );
  const b = results(
    'opus',
    [run('py-a', 1, false, 0.4), run('py-b', 1, true, 0.6, 3), run('py-c', 1, true, 0.3), run('py-new', 1, true, 0.2)],
    1,
  );
  const comparison = compareResults(a, b, { a: 'a.json', b: 'b.json' });
  expect(Object.fromEntries(comparison.cases.map((entry) => [entry.caseId, entry.change]))).toEqual({
    'py-a': 'broke',
    'py-b': 'fixed',
    'py-c': 'same',
    'py-old': 'only-a',
    'py-new': 'only-b',
  });
  const text = renderComparison(comparison);
  expect(text).toMatch(/^py-b\s+0\/1 → 1\/1\s+5\.0 → 3\.0\s+\$0\.2000 → \$0\.6000\s+▲ fixed$/m);
  expect(text).toMatch(/^py-old\s+1\/1 → –/m);
  expect(text).toContain('pass rate 75% → 75% (+0 points)');
  expect(text).toContain('cost per solved case $0.1667 → $0.5000');
  expect(text).toContain('fixed in B: py-b; broke in B: py-a');
});

test('results go beside the suite, named by when and what ran', () => {
  expect(defaultResultsFile('/s', 'claude-opus-5-5', '2026-05-01T10:00:00.123Z')).toBe(
    '/s/results/2026-05-01T10-00-00Z-claude-opus-5-5.json',
  );
  expect(defaultResultsFile('/s', 'my label/2', '2026-05-01T10:00:00.123Z')).toBe('/s/results/2026-05-01T10-00-00Z-my-label-2.json');
});
