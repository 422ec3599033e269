import { mean, type EvalResults, type RunRecord } from './results.js';
import { formatTable, percent, usd } from './table.js';

/** One case in two eval runs: passes out of runs, and the means, in A and in B. */
export interface CaseComparison {
  caseId: string;
  a?: CaseSummary;
  b?: CaseSummary;
  /** `fixed`: passed more often in B; `broke`: less often; `same`; or only in one of the two. */
  change: 'fixed' | 'broke' | 'same' | 'only-a' | 'only-b';
}

export interface CaseSummary {
  passed: number;
  runs: number;
  meanIterations: number;
  meanCostUsd: number;
  meanWallMs: number;
}

export interface Comparison {
  a: { label: string; file: string; passRate: number; costPerSolvedUsd: number | null; meanIterations: number; costUsd: number };
  b: Comparison['a'];
  cases: CaseComparison[];
}

/**
 * Two runs of a suite side by side (two models, two prompts, two settings): per case, whether B solved it more or
 * less often than A, and at what cost; then the pass rates and the cost per solved case.
 */
export function compareResults(a: EvalResults, b: EvalResults, files: { a: string; b: string }): Comparison {
  const ids = [...new Set([...a.runs, ...b.runs].map((run) => run.caseId))];
  const cases = ids.map((caseId): CaseComparison => {
    const before = summarise(a.runs.filter((run) => run.caseId === caseId));
    const after = summarise(b.runs.filter((run) => run.caseId === caseId));
    if (!before || !after) return { caseId, a: before, b: after, change: before ? 'only-a' : 'only-b' };
    const rateBefore = before.passed / before.runs;
    const rateAfter = after.passed / after.runs;
    return { caseId, a: before, b: after, change: rateAfter > rateBefore ? 'fixed' : rateAfter < rateBefore ? 'broke' : 'same' };
  });
  const side = (results: EvalResults, file: string) => ({
    label: results.label,
    file,
    passRate: results.totals.passRate,
    costPerSolvedUsd: results.totals.costPerSolvedUsd,
    meanIterations: results.totals.meanIterations,
    costUsd: results.totals.costUsd,
  });
  return { a: side(a, files.a), b: side(b, files.b), cases };
}

function summarise(runs: RunRecord[]): CaseSummary | undefined {
  if (runs.length === 0) return undefined;
  return {
    passed: runs.filter((run) => run.verdict === 'pass').length,
    runs: runs.length,
    meanIterations: mean(runs.map((run) => run.iterations)),
    meanCostUsd: mean(runs.map((run) => run.costUsd)),
    meanWallMs: mean(runs.map((run) => run.wallMs)),
  };
}

const MARKS: Record<CaseComparison['change'], string> = {
  fixed: '▲ fixed',
  broke: '▼ broke',
  same: '',
  'only-a': 'only in A',
  'only-b': 'only in B',
};

export function renderComparison(comparison: Comparison): string {
  const { a, b } = comparison;
  const pair = (left: string | undefined, right: string | undefined) => `${left ?? '–'} → ${right ?? '–'}`;
  const rows = comparison.cases.map((entry) => [
    entry.caseId,
    pair(entry.a && `${entry.a.passed}/${entry.a.runs}`, entry.b && `${entry.b.passed}/${entry.b.runs}`),
    pair(entry.a?.meanIterations.toFixed(1), entry.b?.meanIterations.toFixed(1)),
    pair(entry.a && usd(entry.a.meanCostUsd), entry.b && usd(entry.b.meanCostUsd)),
    MARKS[entry.change],
  ]);
  const perSolved = (value: number | null) => (value === null ? 'none solved' : usd(value));
  const points = Math.round((b.passRate - a.passRate) * 100);
  const named = (change: CaseComparison['change']) =>
    comparison.cases
      .filter((entry) => entry.change === change)
      .map((entry) => entry.caseId)
      .join(', ') || 'none';
  return [
    `A: ${a.label} (${a.file})`,
    `B: ${b.label} (${b.file})`,
    '',
    formatTable(['case', 'passed A → B', 'iterations', 'cost a run', ''], rows, [false, false, false, false, false]),
    '',
    `pass rate ${percent(a.passRate)} → ${percent(b.passRate)} (${points >= 0 ? '+' : ''}${points} points)`,
    `cost per solved case ${perSolved(a.costPerSolvedUsd)} → ${perSolved(b.costPerSolvedUsd)}; ` +
      `iterations a run ${a.meanIterations.toFixed(1)} → ${b.meanIterations.toFixed(1)}; cost in all ${usd(a.costUsd)} → ${usd(b.costUsd)}`,
    `fixed in B: ${named('fixed')}; broke in B: ${named('broke')}`,
  ].join('\n');
}
