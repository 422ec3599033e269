import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult } from './checks.js';

/**
 * What an eval run found, as written to its results file and printed with `--json`. Two such files are what
 * `codeloop eval compare` reads, so the shape is versioned.
 */

/** `diverged`: a replay whose requests stopped matching the recording, which says nothing about the agent's skill. */
export type Verdict = 'pass' | 'fail' | 'diverged' | 'error';

export interface RunRecord {
  caseId: string;
  tags: string[];
  /** 1-based: which of the `--repeat` rounds. */
  repeat: number;
  workflowId?: string;
  verdict: Verdict;
  /** How the task ended. `error`: the eval could not run it (a fixture that would not copy, say). */
  status: 'completed' | 'failed' | 'cancelled' | 'error';
  /** Why the task failed, diverged or could not run. */
  reason?: string;
  iterations: number;
  /** Every token counted, cached or not. */
  tokens: number;
  costUsd: number;
  wallMs: number;
  /** Blockers the task raised (answered or not). */
  blockers: number;
  /** Rounds in which the final gates failed and the agent had to correct its work. */
  gateRounds: number;
  checks: CheckResult[];
  /** The run's copy, kept when the run did not pass (or with `--keep`), for a look at what the agent left. */
  workspace?: string;
}

export interface Totals {
  cases: number;
  runs: number;
  passed: number;
  diverged: number;
  errors: number;
  /** Passed runs over all runs. */
  passRate: number;
  /** The pass rate of each `--repeat` round, then their mean, sample standard deviation, minimum and maximum. */
  rounds: number[];
  meanPassRate: number;
  spread: number;
  costUsd: number;
  /** All the spend over the runs that passed: what one solved case cost; `null` when none passed. */
  costPerSolvedUsd: number | null;
  meanIterations: number;
  tokens: number;
  byTag: Record<string, { runs: number; passed: number }>;
}

export interface EvalResults {
  version: 1;
  suite: { name: string; file: string };
  /** Names the run in compare output: the model, `replay`, or `--label`. */
  label: string;
  model?: string;
  /** The recordings directory, for a replay. */
  replay?: string;
  repeat: number;
  startedAt: string;
  finishedAt: string;
  runs: RunRecord[];
  totals: Totals;
}

export function computeTotals(runs: RunRecord[], repeat: number): Totals {
  const passed = runs.filter((run) => run.verdict === 'pass').length;
  const rounds = Array.from({ length: repeat }, (_, index) => {
    const round = runs.filter((run) => run.repeat === index + 1);
    return round.length ? round.filter((run) => run.verdict === 'pass').length / round.length : 0;
  });
  const meanPassRate = mean(rounds);
  const costUsd = sum(runs.map((run) => run.costUsd));
  const byTag: Totals['byTag'] = {};
  for (const run of runs) {
    for (const tag of run.tags) {
      byTag[tag] ??= { runs: 0, passed: 0 };
      byTag[tag].runs += 1;
      if (run.verdict === 'pass') byTag[tag].passed += 1;
    }
  }
  return {
    cases: new Set(runs.map((run) => run.caseId)).size,
    runs: runs.length,
    passed,
    diverged: runs.filter((run) => run.verdict === 'diverged').length,
    errors: runs.filter((run) => run.verdict === 'error').length,
    passRate: runs.length ? passed / runs.length : 0,
    rounds,
    meanPassRate,
    spread: rounds.length > 1 ? Math.sqrt(sum(rounds.map((rate) => (rate - meanPassRate) ** 2)) / (rounds.length - 1)) : 0,
    costUsd,
    costPerSolvedUsd: passed ? costUsd / passed : null,
    meanIterations: mean(runs.map((run) => run.iterations)),
    tokens: sum(runs.map((run) => run.tokens)),
    byTag,
  };
}

/** `<suite dir>/results/<started>-<label>.json`: beside the suite, so runs of the same suite sit together. */
export function defaultResultsFile(suiteDir: string, label: string, startedAt: string): string {
  const stamp = startedAt.replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z');
  const slug = label.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-|-$/g, '') || 'run';
  return path.join(suiteDir, 'results', `${stamp}-${slug}.json`);
}

export function writeResults(results: EvalResults, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

export class ResultsFileError extends Error {}

export function readResults(file: string): EvalResults {
  let parsed: Partial<EvalResults>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ResultsFileError(`cannot read eval results ${file}: ${(error as Error).message.replace(/\s+/g, ' ')}`);
  }
  if (parsed.version !== 1 || !Array.isArray(parsed.runs) || !parsed.totals) {
    throw new ResultsFileError(`${file} is not a codeloop eval results file (version 1): run codeloop eval to make one`);
  }
  return parsed as EvalResults;
}

export const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
export const mean = (values: number[]): number => (values.length ? sum(values) / values.length : 0);
