import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { CheckResult } from '../../src/eval/checks.js';
import { loadSuite, type EvalCase, type EvalSuite } from '../../src/eval/load-suite.js';
import type { EvalResults, RunRecord } from '../../src/eval/results.js';

export const BUILTIN_SUITE = path.resolve('evals/suite.yaml');
export const BUILTIN_RECORDINGS = path.resolve('evals/recordings');

export const builtinSuite = (): EvalSuite => loadSuite(BUILTIN_SUITE);

/** The built-in suite with only `ids`, each case changed by `change` (tighter limits, another fixture). */
export function suiteOf(ids: string[], change: (suiteCase: EvalCase) => EvalCase = (suiteCase) => suiteCase): EvalSuite {
  const suite = builtinSuite();
  return { ...suite, cases: suite.cases.filter((suiteCase) => ids.includes(suiteCase.id)).map(change) };
}

/** The settings a CLI on this run's server would load, with the run's prebuilt workflow bundle (no bundling per test). */
export const evalConfig = () =>
  loadConfig({ ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), CODELOOP_WORKFLOW_BUNDLE: inject('workflowBundlePath') });

/** A scratch directory for the runs' copies of their fixtures. */
export const scratchDir = (name: string): string => mkdtempSync(path.join(os.tmpdir(), `codeloop-test-${name}-`));

export function runOf(results: EvalResults, caseId: string): RunRecord {
  const run = results.runs.find((candidate) => candidate.caseId === caseId);
  if (!run) throw new Error(`no run of ${caseId} in ${JSON.stringify(results.runs.map((candidate) => candidate.caseId))}`);
  return run;
}

/** A run's checks of one kind, as `target: passed` pairs, for assertions that read like the table. */
export const checksOf = (run: RunRecord, kind: CheckResult['kind']): CheckResult[] => run.checks.filter((check) => check.kind === kind);
