import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { readResults } from '../../src/eval/results.js';
import { runCliProcess as runCli, type CliRun } from '../support/cli.js';
import { BUILTIN_SUITE, scratchDir } from '../support/eval.js';
import { scriptedSessions } from '../../evals/scripted/index.js';
import { byTask, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { readmeCommand } from '../support/readme.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';

/**
 * `codeloop eval` as a user types it: its help, its errors, the README's replay of the built-in suite, and
 * `eval compare` on two runs of it, one of which a tighter limit made fail.
 */
const CASE = 'py-config-pytest-marker';
const dir = scratchDir('eval-cli');
const bundle = { CODELOOP_WORKFLOW_BUNDLE: inject('workflowBundlePath') };
const resultsA = path.join(dir, 'a.json');
const resultsB = path.join(dir, 'b.json');
let replayA: CliRun;
let replayB: CliRun;
/** C: the same case live, on a worker polling the configured queue (its model a scripted loopback server). */
const resultsC = path.join(dir, 'c.json');
const liveQueue = uniqueName('eval-live');
let live: CliRun;
let temporal: TestTemporal;
let fake: FakeMessagesApi;
let workers: Awaited<ReturnType<typeof startWorkers>>;

beforeAll(async () => {
  // A: the README's command, as written (less its comment), narrowed to one case and its results file.
  const [, ...readmeArgs] = readmeCommand('npx codeloop eval evals/suite.yaml --replay evals/recordings')
    .replace(/\s+#.*$/, '')
    .split(/\s+/)
    .slice(1);
  // B: the same case from the same recording, in a suite whose iteration limit that session cannot meet.
  const builtin = parse(readFileSync(BUILTIN_SUITE, 'utf8'));
  const original = builtin.cases.find((suiteCase: { id: string }) => suiteCase.id === CASE);
  const fixtures = { repo: path.resolve('evals', original.repo), hidden: path.resolve('evals', original.checks.hidden) };
  const tighter = {
    ...builtin,
    cases: [{ ...original, repo: fixtures.repo, checks: { ...original.checks, hidden: fixtures.hidden, maxIterations: 2 } }],
  };
  const tighterFile = path.join(dir, 'tighter.yaml');
  writeFileSync(tighterFile, stringify(tighter));
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
  fake.setResponder(byTask({ [original.task.title]: scriptedSessions[CASE].solve }));
  workers = await startWorkers(temporal, { taskQueue: liveQueue, env: modelEnv(fake) });
  const liveArgs = ['eval', BUILTIN_SUITE, '--case', CASE, '--model', 'claude-live-test', '--out', resultsC, '--workdir', dir];
  [replayA, replayB, live] = await Promise.all([
    runCli([...readmeArgs, '--case', CASE, '--out', resultsA], { ...bundle, TMPDIR: dir }),
    runCli(['eval', tighterFile, '--replay', 'evals/recordings', '--out', resultsB, '--workdir', dir], bundle),
    runCli(liveArgs, { CODELOOP_TASK_QUEUE: liveQueue }),
  ]);
}, 180_000);
afterAll(async () => {
  await workers?.stop();
  await fake?.close();
  await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('--help tells every flag, and compare has its own', async () => {
  const help = await runCli(['eval', '--help']);
  expect(help.code).toBe(0);
  for (const flag of [
    '--model <model>',
    '--repeat <n>',
    '--max-parallel <k>',
    '--case <id>',
    '--replay <dir>',
    '--label',
    '--out',
    '--workdir',
    '--keep',
    '--json',
  ]) {
    expect(help.stdout).toContain(flag);
  }
  expect(help.stdout).toMatch(/compare \[options\] <a> <b>/);
  const compare = await runCli(['eval', 'compare', '--help']);
  expect(compare.stdout).toContain('--fail-on-regression');
});

test("the README's replay: the case passes, the table says so, the results file holds it", () => {
  expect(replayA.code).toBe(0);
  expect(replayA.stdout).toMatch(new RegExp(`^${CASE}\\s+pass\\s+4\\s`, 'm'));
  expect(replayA.stdout).toContain('pass rate 1/1 (100%)');
  expect(replayA.stdout).toContain(`results: ${resultsA}`);
  expect(replayA.stderr).toContain(`${CASE}#1 pass`);
  expect(readResults(resultsA)).toMatchObject({ label: 'replay', totals: { passed: 1, runs: 1 } });
});

test('live: the tasks run on the worker that polls CODELOOP_TASK_QUEUE, with the model --model names', () => {
  expect(live.code).toBe(0);
  expect(live.stdout).toContain('(1 cases × 1, model claude-live-test)');
  expect(live.stdout).toMatch(new RegExp(`^${CASE}\\s+pass\\s`, 'm'));
  expect(fake.requests.length).toBeGreaterThan(0);
  expect(new Set(fake.requests.map((request) => request.body.model))).toEqual(new Set(['claude-live-test']));
  expect(fake.problems).toEqual([]);
  expect(readResults(resultsC)).toMatchObject({ label: 'claude-live-test', model: 'claude-live-test', totals: { passed: 1 } });
});

test('a run that fails a check exits 1 and names the check', () => {
  expect(replayB.code).toBe(1);
  expect(replayB.stdout).toContain('pass rate 0/1 (0%)');
  expect(replayB.stdout).toContain('✗ maxIterations ≤ 2: 4 iterations');
  expect(readResults(resultsB).runs[0]).toMatchObject({ caseId: CASE, verdict: 'fail' });
});

test('compare: the case B broke, the pass rate in points, and --fail-on-regression', async () => {
  const compare = await runCli(['eval', 'compare', resultsA, resultsB]);
  expect(compare.code).toBe(0);
  expect(compare.stdout).toMatch(
    new RegExp(`^${CASE}\\s+1/1 → 0/1\\s+4\\.0 → 4\\.0\\s+\\$\\d\\.\\d{4} → \\$\\d\\.\\d{4}\\s+▼ broke$`, 'm'),
  );
  expect(compare.stdout).toContain('pass rate 100% → 0% (-100 points)');
  expect(compare.stdout).toContain(`broke in B: ${CASE}`);
  const json = await runCli(['eval', 'compare', resultsA, resultsB, '--json']);
  expect(JSON.parse(json.stdout).cases).toEqual([expect.objectContaining({ caseId: CASE, change: 'broke' })]);
  expect((await runCli(['eval', 'compare', resultsA, resultsB, '--fail-on-regression'])).code).toBe(1);
  expect((await runCli(['eval', 'compare', resultsB, resultsA, '--fail-on-regression'])).code).toBe(0);
});

test('errors name the fix: a bad suite by its YAML path, a missing worker by what to start', async () => {
  const bad = path.join(dir, 'bad.yaml');
  writeFileSync(bad, 'name: bad\ncases:\n  - id: x\n    repo: .\n    task: { description: go }\n    checks: { maxCostUsd: free }\n');
  const invalid = await runCli(['eval', bad]);
  expect(invalid.code).toBe(2);
  expect(invalid.stderr.trim()).toBe(`codeloop: ${bad}:6:27 cases[0].checks.maxCostUsd: Invalid input: expected number, received string`);
  const noWorker = await runCli(['eval', BUILTIN_SUITE, '--case', CASE], { CODELOOP_TASK_QUEUE: uniqueName('no-worker') });
  expect(noWorker.code).toBe(1);
  expect(noWorker.stderr).toMatch(
    /^codeloop: no worker polls task queue no-worker-\w+ in namespace default: start one with `npm start`.*--replay <dir>\n$/,
  );
  const notJson = await runCli(['eval', 'compare', bad, resultsA]);
  expect(notJson).toMatchObject({ code: 2, stderr: expect.stringMatching(/^codeloop: cannot read eval results .*bad\.yaml: .*JSON\n$/) });
  const otherJson = path.join(dir, 'other.json');
  writeFileSync(otherJson, '{"runs": []}');
  expect((await runCli(['eval', 'compare', resultsA, otherJson])).stderr).toBe(
    `codeloop: ${otherJson} is not a codeloop eval results file (version 1): run codeloop eval to make one\n`,
  );
});
