import { appendFileSync, cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { recordingFile } from '../../src/activities/model-recording.js';
import { readRecording } from '../../src/eval/recording.js';
import { replaySuite } from '../../src/eval/replay-suite.js';
import type { EvalResults } from '../../src/eval/results.js';
import { scriptedSessions } from '../../evals/scripted/index.js';
import { runScriptedEval } from '../../evals/scripted/scripted-eval.js';
import { evalConfig, runOf, scratchDir, suiteOf } from '../support/eval.js';
import { testSandbox } from '../support/sandbox.js';
import { connectTemporal, type TestTemporal } from '../support/temporal.js';

/**
 * A session recorded through the worker (`CODELOOP_RECORD`), then replayed by `codeloop eval --replay`: as it was,
 * it passes; once the repository differs from the one it was recorded on, the replay says where it parted.
 */
const CASE = 'py-config-pytest-marker';
let temporal: TestTemporal;
let recorded: EvalResults;
const workdir = scratchDir('eval-record');
const recordDir = path.join(workdir, 'recordings');

beforeAll(async () => {
  temporal = await connectTemporal();
  ({ results: recorded } = await runScriptedEval({
    suite: suiteOf([CASE]),
    sessions: { [CASE]: scriptedSessions[CASE].solve },
    client: temporal.client,
    connection: temporal.nativeConnection,
    workflowBundlePath: inject('workflowBundlePath'),
    recordDir,
    eval: { sandbox: testSandbox, workdir },
  }));
}, 120_000);
afterAll(async () => {
  await temporal?.close();
  rmSync(workdir, { recursive: true, force: true });
});

const replay = (suite = suiteOf([CASE]), dir = recordDir, onProgress?: (line: string) => void) =>
  replaySuite(suite, {
    client: temporal.client,
    connection: temporal.nativeConnection,
    config: evalConfig(),
    dir,
    sandbox: testSandbox,
    workdir,
    onProgress,
  });

test('the worker records every model request and response of the task, in a file named by its workflow id', () => {
  const run = runOf(recorded, CASE);
  expect(run.verdict).toBe('pass');
  const recording = readRecording(recordingFile(recordDir, run.workflowId!));
  expect(recording.tornLines).toEqual([]);
  expect(recording.exchanges).toHaveLength(run.iterations);
  expect(new Set(recording.exchanges.map((exchange) => exchange.workflowId))).toEqual(new Set([run.workflowId]));
  // Request n carries the conversation so far: 1 message, then 3, 5, …; each response is the API's message.
  expect(recording.exchanges.map((exchange) => exchange.request.messages.length)).toEqual([1, 3, 5, 7]);
  expect(recording.exchanges.map((exchange) => exchange.response.stop_reason)).toEqual(['tool_use', 'tool_use', 'tool_use', 'end_turn']);
  expect(recording.exchanges[0].request.tools?.length).toBeGreaterThan(0);
});

test('replayed with no model behind it, the recording passes again with the same turns', async () => {
  const results = await replay();
  const run = runOf(results, CASE);
  expect(run).toMatchObject({ verdict: 'pass', iterations: runOf(recorded, CASE).iterations, tokens: runOf(recorded, CASE).tokens });
}, 120_000);

test('a write torn by a crash loses only itself: the entries before and after it replay', async () => {
  const dir = path.join(workdir, 'torn');
  cpSync(recordDir, dir, { recursive: true });
  const [name] = readdirSync(dir);
  const file = path.join(dir, name);
  const lines = readRecording(file).exchanges.map((exchange) => JSON.stringify(exchange));
  // Two entries, half of the third (the crash), then the rest as a restarted worker appends them.
  writeFileSync(file, `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 200)}`);
  appendFileSync(file, `\n${lines.slice(2).join('\n')}\n`);
  expect(readRecording(file)).toMatchObject({ tornLines: [3], exchanges: expect.any(Array) });
  expect(readRecording(file).exchanges).toHaveLength(lines.length);
  const progress: string[] = [];
  const results = await replay(suiteOf([CASE]), dir, (line) => progress.push(line));
  expect(runOf(results, CASE).verdict).toBe('pass');
  expect(progress).toContain(`${name}: line(s) 3 torn by a crash, skipped`);
}, 120_000);

test('a repository that differs from the recorded one is reported as a divergence, at the first message that differs', async () => {
  const suite = suiteOf([CASE], (suiteCase) => {
    const repo = path.join(workdir, 'changed-fixture');
    cpSync(suiteCase.repo, repo, { recursive: true });
    // The agent's first read now shows more lines than it did when the session was recorded; the section names no
    // tool, so the prompt (which says which tools the configuration names) is as it was.
    appendFileSync(path.join(repo, 'pyproject.toml'), '\n[tool.setuptools]\nzip-safe = false\n');
    return { ...suiteCase, repo };
  });
  const run = runOf(await replay(suite), CASE);
  expect(run.verdict).toBe('diverged');
  expect(run.status).toBe('failed');
  const recordedFile = path.basename(recordingFile(recordDir, runOf(recorded, CASE).workflowId!));
  expect(run.reason).toMatch(new RegExp(`^diverged at request 2 of ${recordedFile}: `));
  expect(run.reason).toContain('first differing message: message 3 (user: tool_result)');
  expect(run.reason).toMatch(/recorded "\[tool_result\] pyproject.toml \(22 lines\):.*now "\[tool_result\] pyproject.toml \(25 lines\):/);
}, 120_000);

test('a case with no recording is an error that says how to make one', async () => {
  const results = await replay(suiteOf([CASE, 'py-bugfix-median']));
  expect(runOf(results, CASE).verdict).toBe('pass');
  expect(runOf(results, 'py-bugfix-median')).toMatchObject({
    verdict: 'error',
    reason: expect.stringMatching(/^no recording in .* has this case's task title in its system prompt: record one with CODELOOP_RECORD/),
  });
}, 120_000);
