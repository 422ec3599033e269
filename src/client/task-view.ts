import { describeSpendByPurpose } from '../shared/models.js';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { gateVerdict, verificationReasons, type GateResult } from '../shared/gates.js';
import type { TaskGit } from '../shared/git-trail.js';
import type { TaskResult, TaskStateSnapshot } from '../shared/task-state.js';
import { formatCount, formatDuration } from '../text/format.js';
import { CliError } from './output.js';
import { queryState, settledResult } from '../reads/task-reads.js';

/** Where a task stands, from the workflow's own `getState` when a worker can answer, else from the server. */
export interface TaskView {
  workflowId: string;
  runId?: string;
  execution: string;
  state?: TaskStateSnapshot;
  result?: TaskResult;
  failure?: string;
}

export async function viewTask(client: Client, workflowId: string): Promise<TaskView> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((error) => {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no task with workflow id ${workflowId}`);
    throw error;
  });
  const execution = description.status.name;
  const view: TaskView = { workflowId, runId: description.runId, execution };
  if (execution !== 'RUNNING') Object.assign(view, await settledResult(handle));
  view.state = await queryState(client, handle);
  return view;
}

export function renderTaskView(view: TaskView): string {
  const state = view.state;
  const lines = [`${view.workflowId}  [${view.execution.toLowerCase()}]`];
  if (state) {
    lines.push(`  ${state.title}`);
    lines.push(
      `  status ${state.status} · phase ${state.phase} · iteration ${state.iteration}/${state.maxIterations}${state.runs > 1 ? ` · run ${state.runs}` : ''}`,
    );
    if (state.lastStep) lines.push(`  last step: ${state.lastStep}`);
    // A finished task's result says the same, with the final figures.
    if (!view.result) {
      lines.push(`  tokens: ${formatUsage(state.usage)} · $${state.costUsd.toFixed(4)}`);
      if (state.spendByPurpose) lines.push(`  by purpose: ${describeSpendByPurpose(state.spendByPurpose)}`);
      if (state.filesChanged.length) lines.push(`  files changed: ${state.filesChanged.join(', ')}`);
      for (const blocker of state.openBlockers) lines.push(`  ⏸ blocker ${blocker.id}: ${blocker.question.replace(/\s+/g, ' ')}`);
      for (const question of state.openQuestions ?? []) lines.push(`  open question: ${question}`);
    }
  }
  const git = view.result?.git ?? state?.git;
  if (git) lines.push(renderGit(view.workflowId, git));
  if (view.result) lines.push(...renderResult(view.result));
  if (view.failure) lines.push(`  failure: ${view.failure}`);
  if (!state && !view.result) lines.push('  (no worker answered getState; start one with `npm run worker`)');
  return lines.join('\n');
}

export function renderResult(result: TaskResult): string[] {
  return [
    `  result: ${result.status}${result.reason ? ` (${result.reason})` : ''} after ${result.iterations} iterations in ${formatDuration(result.elapsedMs)}`,
    `  summary: ${result.summary}`,
    `  files changed: ${result.filesChanged.length ? result.filesChanged.join(', ') : 'none'}`,
    ...(result.verification ? [`  verification: ${describeVerification(result)}`] : []),
    ...(result.openQuestions ?? []).map((question) => `  open question: ${question}`),
    `  tokens: ${formatUsage(result.usage)} · $${result.costUsd.toFixed(4)}`,
    ...(result.spendByPurpose ? [`  by purpose: ${describeSpendByPurpose(result.spendByPurpose)}`] : []),
    ...(result.gates ?? []).map((gate) => `  gate ${gate.name}: ${describeVerdict(gate)} (${gate.command})`),
  ];
}

/** `verified`, or `unverified (tests: pytest is not installed where the gates run)`. */
export function describeVerification(result: Pick<TaskResult, 'verification' | 'gates'>): string {
  if (result.verification === 'verified' || !result.verification) return result.verification ?? 'not recorded';
  return `${result.verification} (${verificationReasons(result.gates ?? []).join('; ')})`;
}

function describeVerdict(gate: GateResult): string {
  const verdict = gateVerdict(gate);
  if (verdict === 'unverified') return `UNVERIFIED: ${gate.unverified ?? 'its program is not installed'}`;
  return verdict === 'passed' ? 'passed' : 'FAILED';
}

/** `branch: codeloop/task/x from 1a2b3c4d5e6f · 3 commits · 2 files changed, 9 insertions(+) (npx codeloop task diff x)`. */
function renderGit(workflowId: string, git: TaskGit): string {
  const progress = git.end ? `${git.end.commits} commits · ${git.end.diffstat}` : `${git.checkpoints.length} checkpoints so far`;
  return `  branch: ${git.branch} from ${git.base.slice(0, 12)} · ${progress} (npx codeloop task diff ${workflowId})`;
}

function formatUsage(usage: TaskResult['usage']): string {
  return `${formatCount(usage.inputTokens)} in, ${formatCount(usage.outputTokens)} out, ${formatCount(usage.cacheReadTokens)} cache read, ${formatCount(usage.cacheWriteTokens)} cache write`;
}
