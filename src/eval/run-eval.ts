import os from 'node:os';
import path from 'node:path';
import type { EvalCase, EvalSuite } from './load-suite.js';
import { computeTotals, type EvalResults, type RunRecord } from './results.js';
import { emptyRecord, runCase, type RunTarget, type TaskOverrides } from './run-case.js';
import { mapInLanes } from '../lanes.js';
import type { CaseReplay } from './replay-worker.js';

export interface EvalOptions extends Omit<RunTarget, 'workdir'> {
  workdir?: string;
  /** The model every task asks for (`--model`); unset, the worker's `CODELOOP_MODEL`. */
  model?: string;
  repeat?: number;
  maxParallel?: number;
  /** Only these cases (`--case`); all when empty. */
  only?: string[];
  label?: string;
  /** A replay: the recordings directory and each case's recording. */
  replay?: { dir: string; recordings: Map<string, CaseReplay> };
  /** A line when a run starts or ends. */
  onProgress?: (line: string) => void;
}

/** Runs every case `repeat` times, at most `maxParallel` at once, and adds them up. */
export async function runEval(suite: EvalSuite, options: EvalOptions): Promise<EvalResults> {
  const startedAt = new Date().toISOString();
  const repeat = options.repeat ?? 1;
  const cases = selectCases(suite, options.only ?? []);
  const target: RunTarget = { ...options, workdir: options.workdir ?? os.tmpdir() };
  // Round by round, so that the first results already cover every case.
  const jobs = Array.from({ length: repeat }, (_, round) => cases.map((suiteCase) => ({ suiteCase, repeat: round + 1 }))).flat();
  const runs = await mapInLanes(jobs, options.maxParallel ?? 4, async ({ suiteCase, repeat: round }) => {
    const name = `${suiteCase.id}#${round}`;
    options.onProgress?.(`${name} started`);
    const run = await runOne(target, suiteCase, round, options);
    options.onProgress?.(`${name} ${describeRun(run)}`);
    return run;
  });
  return {
    version: 1,
    suite: { name: suite.name, file: suite.file },
    label: options.label ?? (options.replay ? 'replay' : (options.model ?? 'worker-default')),
    model: options.model,
    replay: options.replay ? path.resolve(options.replay.dir) : undefined,
    repeat,
    startedAt,
    finishedAt: new Date().toISOString(),
    runs,
    totals: computeTotals(runs, repeat),
  };
}

async function runOne(target: RunTarget, suiteCase: EvalCase, round: number, options: EvalOptions): Promise<RunRecord> {
  if (!options.replay) return runCase(target, suiteCase, round, options.model ? { model: options.model } : {});
  const replay = options.replay.recordings.get(suiteCase.id);
  if (!replay) return missingRecording(suiteCase, round, options.replay.dir);
  const overrides: TaskOverrides = { models: { default: replay.model, ...(replay.summaryModel ? { summary: replay.summaryModel } : {}) } };
  return runCase(target, suiteCase, round, overrides);
}

function missingRecording(suiteCase: EvalCase, round: number, dir: string): RunRecord {
  return {
    ...emptyRecord(suiteCase, round),
    reason: `no recording in ${dir} has this case's task title in its system prompt: record one with CODELOOP_RECORD set on the worker`,
  };
}

export class UnknownCaseError extends Error {}

function selectCases(suite: EvalSuite, only: string[]): EvalCase[] {
  const unknown = only.filter((id) => !suite.cases.some((suiteCase) => suiteCase.id === id));
  if (unknown.length > 0) {
    throw new UnknownCaseError(`no case ${unknown.join(', ')} in ${suite.file}; its cases: ${suite.cases.map((c) => c.id).join(', ')}`);
  }
  return only.length ? suite.cases.filter((suiteCase) => only.includes(suiteCase.id)) : suite.cases;
}

/** `pass (4 iterations, $0.0123, 8s)`, or the verdict and its reason. */
export function describeRun(run: RunRecord): string {
  const figures = `${run.iterations} iterations, $${run.costUsd.toFixed(4)}, ${Math.round(run.wallMs / 1000)}s`;
  if (run.verdict === 'pass') return `pass (${figures})`;
  if (run.verdict === 'fail') {
    const failed = run.checks.filter((check) => !check.passed).map((check) => `${check.kind} ${check.target}`);
    return `fail (${figures}): ${failed.join('; ')}`;
  }
  return `${run.verdict}: ${run.reason ?? ''}`;
}
