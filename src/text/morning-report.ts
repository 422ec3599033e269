import type { BatchResult, BatchTaskState } from '../shared/batch-state.js';
import { totalTokens } from '../shared/conversation.js';
import { describeSpendByPurpose } from '../shared/models.js';
import { formatCount } from './format.js';

/**
 * The one line `codeloop report` prints for a finished batch, shared with the morning message so that both give
 * the same figures.
 */
export function batchSummaryLine(result: BatchResult): string {
  const counts = result.totals.tasks;
  const unverified = result.tasks.filter((task) => task.status === 'completed' && task.verification === 'unverified').length;
  return (
    `${counts.completed}/${result.tasks.length} tasks completed${unverified ? ` (${unverified} unverified)` : ''}, ${counts.failed} failed, ${counts.skipped} skipped` +
    (result.status === 'deadline' ? `, ${counts.cancelled} stopped at the ${result.deadline} deadline` : '') +
    (result.status === 'budget' ? `, ${counts.cancelled} stopped at the budget` : '')
  );
}

/** The budget line the morning message leads with, when the batch had one. */
export function budgetLine(result: BatchResult): string | undefined {
  const budget = result.budget;
  if (!budget) return undefined;
  const limit =
    budget.softUsd === budget.hardUsd
      ? `$${budget.softUsd.toFixed(2)}`
      : `$${budget.softUsd.toFixed(2)} soft, $${budget.hardUsd.toFixed(2)} hard`;
  const reached = budget.reached === 'hard' ? ': running tasks stopped' : budget.reached === 'soft' ? ': no new task started' : '';
  const byPurpose = describeSpendByPurpose(budget.byPurpose);
  return `Budget ${budget.reached ? 'reached' : 'kept'}${reached}: spent $${budget.spentUsd.toFixed(2)} of ${limit}${byPurpose ? ` (${byPurpose})` : ''}`;
}

/** How often a task was re-run on a new base after its merge conflicted, and in which files; none if it never was. */
export function conflictRerunLine(task: Pick<BatchTaskState, 'conflictReruns'>): string | undefined {
  const reruns = task.conflictReruns ?? [];
  if (reruns.length === 0) return undefined;
  const files = [...new Set(reruns.flatMap((rerun) => rerun.files))].join(', ');
  return `re-run ${reruns.length === 1 ? 'once' : `${reruns.length} times`} on a new base after its merge conflicted in ${files}`;
}

export interface MorningFacts {
  result: BatchResult;
  /** The batch's page in the Temporal Web UI, when the worker knows the UI's address. */
  uiUrl?: string;
  /** `git diff --stat` of the published branch against its base. */
  diffstat?: string;
}

export const morningTitle = (result: BatchResult): string =>
  `codeloop batch ${result.batchId}: ${result.status} (${batchSummaryLine(result)})`;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Each task with its status, its verification (`unverified` flagged, with why), its cost and its summary. */
function taskLines(result: BatchResult, bullet: string): string[] {
  return result.tasks.flatMap((task) => {
    const flag = task.verification && task.verification !== 'verified' ? ` [${task.verification.toUpperCase()}]` : '';
    const verification = task.verification === 'verified' ? ', gates passed' : '';
    const cost = task.costUsd === undefined ? '' : `, $${task.costUsd.toFixed(4)}`;
    const lines = [`${bullet}${task.id} (${task.title}): ${task.status}${flag}${verification}${cost}`];
    if (task.summary) lines.push(`    ${oneLine(task.summary).slice(0, 300)}`);
    if (task.reason && task.status !== 'completed') lines.push(`    why: ${oneLine(task.reason)}`);
    const rerun = conflictRerunLine(task);
    if (rerun) lines.push(`    ${rerun}`);
    for (const reason of task.unverifiedBecause ?? []) lines.push(`    not verified: ${oneLine(reason)}`);
    return lines;
  });
}

function openQuestions(result: BatchResult): string[] {
  return result.tasks.flatMap((task) => [
    ...(task.openQuestions ?? []).map((question) => `${task.id}: ${oneLine(question)}`),
    ...(task.waitingFor ?? []).map(({ question }) => `${task.id} (waiting): ${oneLine(question)}`),
  ]);
}

const costLine = (result: BatchResult) =>
  `Cost: $${result.totals.costUsd.toFixed(2)}` +
  (Object.keys(result.totals.spendByPurpose ?? {}).length ? ` (${describeSpendByPurpose(result.totals.spendByPurpose)})` : '');

/** A pull request's description: summary, tasks, diffstat, verification, open questions, cost and the Web UI link. */
export function renderPullRequestBody(facts: MorningFacts): string {
  const { result } = facts;
  const questions = openQuestions(result);
  const budget = budgetLine(result);
  return [
    ...(budget ? [`**${budget}**`, ''] : []),
    `## Summary`,
    '',
    `codeloop batch \`${result.batchId}\` ended **${result.status}**: ${batchSummaryLine(result)}.`,
    '',
    '## Tasks',
    '',
    ...taskLines(result, '- '),
    '',
    '## Changes',
    '',
    '```',
    facts.diffstat?.replace(/^\n+|\s+$/g, '') || '(no changes)',
    '```',
    '',
    '## Open questions',
    '',
    ...(questions.length ? questions.map((question) => `- ${question}`) : ['None.']),
    '',
    `## Cost`,
    '',
    costLine(result),
    '',
    facts.uiUrl
      ? `[The batch in the Temporal Web UI](${facts.uiUrl})`
      : 'Web UI: unknown for this server: set CODELOOP_UI_URL on the worker',
  ].join('\n');
}

/** The morning message in plain text (Slack, e-mail): the budget first, then the same figures as `codeloop report`. */
export function renderMorningText(facts: MorningFacts & { pullRequests?: string[] }): string {
  const { result } = facts;
  const budget = budgetLine(result);
  const questions = openQuestions(result);
  return [
    ...(budget ? [budget] : []),
    morningTitle(result),
    `tokens ${formatCount(totalTokens(result.totals.usage))} · cost $${result.totals.costUsd.toFixed(2)}`,
    ...taskLines(result, '• '),
    ...(questions.length ? ['Open questions:', ...questions.map((question) => `• ${question}`)] : []),
    ...(facts.pullRequests ?? []).map((url) => `Pull request: ${url}`),
    ...(facts.uiUrl ? [`Web UI: ${facts.uiUrl}`] : []),
  ].join('\n');
}
