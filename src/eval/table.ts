import { formatCount, formatDuration } from '../text/format.js';
import { mean, sum, type EvalResults, type RunRecord } from './results.js';

/** Columns padded to their widest cell; numbers (`right`) aligned on the right, the way `ls -l` and `df` print. */
export function formatTable(header: string[], rows: string[][], right: boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (right[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export const usd = (value: number): string => `$${value.toFixed(4)}`;
export const percent = (rate: number): string => `${(rate * 100).toFixed(0)}%`;

/**
 * The eval as a table: a row per case (with repeats: passes out of runs, and the means), then the totals, then what
 * failed and why.
 */
export function renderResults(results: EvalResults, resultsFile?: string): string {
  const caseIds = [...new Set(results.runs.map((run) => run.caseId))];
  const rows = caseIds.map((caseId) =>
    caseRow(
      caseId,
      results.runs.filter((run) => run.caseId === caseId),
    ),
  );
  const source = results.replay ? `replay of ${results.replay}` : `model ${results.model ?? "the worker's default"}`;
  const { totals } = results;
  const lines = [
    `codeloop eval: ${results.suite.name} (${totals.cases} cases × ${results.repeat}, ${source})`,
    '',
    formatTable(['case', 'result', 'iterations', 'tokens', 'cost', 'time', 'blockers', 'gate rounds'], rows, [
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
    ]),
    '',
    `pass rate ${totals.passed}/${totals.runs} (${percent(totals.passRate)})` +
      (results.repeat > 1
        ? `; over ${results.repeat} rounds: mean ${percent(totals.meanPassRate)} ± ${percent(totals.spread)} (min ${percent(Math.min(...totals.rounds))}, max ${percent(Math.max(...totals.rounds))})`
        : ''),
    `cost ${usd(totals.costUsd)} in all, ${totals.costPerSolvedUsd === null ? 'no case solved' : `${usd(totals.costPerSolvedUsd)} per solved case`}; ` +
      `${totals.meanIterations.toFixed(1)} iterations a run; ${formatCount(totals.tokens)} tokens; ` +
      `${formatDuration(Date.parse(results.finishedAt) - Date.parse(results.startedAt))} wall time`,
  ];
  const tags = Object.entries(totals.byTag);
  if (tags.length) lines.push(`by tag: ${tags.map(([tag, count]) => `${tag} ${count.passed}/${count.runs}`).join(' · ')}`);
  if (totals.diverged) lines.push(`${totals.diverged} run(s) diverged from their recording: they say nothing about the agent`);
  const notPassed = results.runs.filter((run) => run.verdict !== 'pass');
  if (notPassed.length) lines.push('', 'not passed:', ...notPassed.flatMap(describeNotPassed));
  if (resultsFile) lines.push('', `results: ${resultsFile}`);
  return lines.join('\n');
}

function caseRow(caseId: string, runs: RunRecord[]): string[] {
  const passed = runs.filter((run) => run.verdict === 'pass').length;
  const result = runs.length === 1 ? runs[0].verdict : `${passed}/${runs.length}`;
  const average = (pick: (run: RunRecord) => number) => mean(runs.map(pick));
  const decimals = runs.length === 1 ? 0 : 1;
  return [
    caseId,
    result,
    average((run) => run.iterations).toFixed(decimals),
    formatCount(Math.round(average((run) => run.tokens))),
    usd(average((run) => run.costUsd)),
    formatDuration(average((run) => run.wallMs)),
    String(sum(runs.map((run) => run.blockers))),
    String(sum(runs.map((run) => run.gateRounds))),
  ];
}

function describeNotPassed(run: RunRecord): string[] {
  const lines = [`  ${run.caseId}#${run.repeat} ${run.verdict}${run.workflowId ? ` (${run.workflowId})` : ''}`];
  const failed = run.checks.filter((check) => !check.passed);
  if (run.verdict !== 'fail' || failed.length === 0) lines.push(`    ${oneLine(run.reason ?? 'no reason given')}`);
  for (const check of failed) lines.push(`    ✗ ${check.kind} ${check.target}${check.detail ? `: ${oneLine(check.detail)}` : ''}`);
  if (run.workspace) lines.push(`    workspace kept: ${run.workspace}`);
  return lines;
}

const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};
