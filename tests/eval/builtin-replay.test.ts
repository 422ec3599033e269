import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CHECK_KINDS } from '../../src/eval/checks.js';
import { readResults, writeResults } from '../../src/eval/results.js';
import { replaySuite } from '../../src/eval/replay-suite.js';
import { renderResults } from '../../src/eval/table.js';
import { BUILTIN_RECORDINGS, builtinSuite, evalConfig, scratchDir } from '../support/eval.js';
import { testSandbox } from '../support/sandbox.js';
import { connectTemporal, type TestTemporal } from '../support/temporal.js';

/**
 * The built-in suite replayed from the recordings it ships with: every case runs as a real task on the dev server,
 * with workers of this process answering each model turn from evals/recordings/, and every check of every case holds.
 */
let temporal: TestTemporal;
const workdir = scratchDir('eval-builtin');
beforeAll(async () => (temporal = await connectTemporal()));
afterAll(async () => {
  await temporal?.close();
  rmSync(workdir, { recursive: true, force: true });
});

test('every case of evals/suite.yaml passes from its recording, with no key', async () => {
  const suite = builtinSuite();
  const progress: string[] = [];
  const results = await replaySuite(suite, {
    client: temporal.client,
    connection: temporal.nativeConnection,
    config: evalConfig(),
    dir: BUILTIN_RECORDINGS,
    sandbox: testSandbox,
    workdir,
    maxParallel: 3,
    onProgress: (line) => progress.push(line),
  });
  const verdicts = Object.fromEntries(
    results.runs.map((run) => [run.caseId, run.verdict === 'pass' ? 'pass' : `${run.verdict}: ${run.reason}`]),
  );
  expect(verdicts).toEqual(Object.fromEntries(suite.cases.map((suiteCase) => [suiteCase.id, 'pass'])));
  expect(results.totals).toMatchObject({ cases: suite.cases.length, runs: suite.cases.length, passed: suite.cases.length, passRate: 1 });
  expect(results.replay).toBe(BUILTIN_RECORDINGS);

  // Every kind of check was run, and held, somewhere in the suite.
  const passedKinds = new Set(results.runs.flatMap((run) => run.checks.filter((check) => check.passed).map((check) => check.kind)));
  expect([...passedKinds].sort()).toEqual([...CHECK_KINDS].sort());
  expect(results.runs.every((run) => run.checks.every((check) => check.passed))).toBe(true);

  // The figures are the recorded session's: its turns and the usage the recording reported.
  const currency = results.runs.find((run) => run.caseId === 'py-blocker-currency')!;
  expect(currency).toMatchObject({ blockers: 1, gateRounds: 0, status: 'completed' });
  expect(currency.iterations).toBeGreaterThan(3);
  expect(currency.costUsd).toBeGreaterThan(0);
  // A copy that passed is removed; none is reported kept.
  expect(results.runs.every((run) => run.workspace === undefined)).toBe(true);

  const file = path.join(workdir, 'results.json');
  writeResults(results, file);
  expect(readResults(file)).toEqual(JSON.parse(JSON.stringify(results)));
  const table = renderResults(results, file);
  expect(table).toContain(`pass rate ${suite.cases.length}/${suite.cases.length} (100%)`);
  for (const suiteCase of suite.cases) expect(table).toMatch(new RegExp(`^${suiteCase.id}\\s+pass\\s`, 'm'));
  expect(progress.filter((line) => line.endsWith('started'))).toHaveLength(suite.cases.length);
}, 240_000);
