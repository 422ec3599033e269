import { describeSpendByPurpose } from '../shared/models.js';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { BatchResult, BatchStateSnapshot, BatchTaskState } from '../shared/batch-state.js';
import { totalTokens } from '../shared/conversation.js';
import { getBatchStateQuery } from '../shared/messages.js';
import { formatCount, formatDuration } from '../text/format.js';
import { conflictRerunLine } from '../text/morning-report.js';
import { CliError } from './output.js';
import { queryOrUndefined } from '../reads/task-reads.js';

export interface BatchView {
  workflowId: string;
  execution: string;
  state?: BatchStateSnapshot;
  result?: BatchResult;
}

/** A batch's handle and description; a clear error when there is no such workflow or it is not a batch. */
export async function describeBatch(client: Client, workflowId: string) {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((error) => {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no batch with workflow id ${workflowId}`);
    throw error;
  });
  if (description.type !== 'batchConductorWorkflow') throw new CliError(`${workflowId} is a ${description.type}, not a batch`);
  return { handle, description };
}

/** The batch's own state, from `getBatchState`, and its result once it has ended. */
export async function viewBatch(client: Client, workflowId: string): Promise<BatchView> {
  const { handle, description } = await describeBatch(client, workflowId);
  const execution = description.status.name;
  const view: BatchView = { workflowId, execution };
  if (execution === 'COMPLETED') view.result = (await handle.result()) as BatchResult;
  view.state = await queryOrUndefined(client, handle, getBatchStateQuery);
  return view;
}

const MARK: Record<BatchTaskState['status'], string> = {
  pending: '·',
  running: '▶',
  merging: '⇢',
  completed: '✓',
  failed: '✗',
  skipped: '↷',
  cancelled: '■',
};

/** Tasks as a tree by dependency depth: each under the tasks it waits for. */
export function renderBatchView(view: BatchView, now = Date.now()): string {
  const state = view.state;
  if (!state)
    return `${view.workflowId}  [${view.execution.toLowerCase()}]\n  (no worker answered getBatchState; start one with \`npm run worker\`)`;
  const depth = new Map<string, number>();
  const byId = new Map(state.tasks.map((task) => [task.id, task]));
  const depthOf = (id: string): number => {
    if (!depth.has(id)) depth.set(id, Math.max(-1, ...byId.get(id)!.dependsOn.map(depthOf)) + 1);
    return depth.get(id)!;
  };
  const width = Math.max(...state.tasks.map((task) => task.id.length + 2 * depthOf(task.id)));
  const lines = [
    `${view.workflowId}  [${state.status}]  batch ${state.batchId} · ${state.tasks.length} tasks · max ${state.maxParallel} in parallel · on failure: ${state.onFailure}`,
    `  ${Object.entries(state.counts)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(' · ')}`,
  ];
  if (state.integrationBranch)
    lines.push(`  integration branch: ${state.integrationBranch}${state.integration ? ` (gates: ${state.integration})` : ''}`);
  const ordered = [...state.tasks].sort((a, b) => depthOf(a.id) - depthOf(b.id));
  for (const task of ordered) {
    const indent = '  '.repeat(depthOf(task.id));
    const took = task.startedAt ? formatDuration((task.endedAt ?? now) - task.startedAt) : '';
    const tokens = task.usage ? `${formatCount(totalTokens(task.usage))} tok` : '';
    const after = task.dependsOn.length ? `after ${task.dependsOn.join(', ')}` : '';
    lines.push(
      `  ${MARK[task.status]} ${`${indent}${task.id}`.padEnd(width)}  ${task.status.padEnd(9)} ${took.padStart(7)} ${tokens.padStart(12)}  ${task.title}${after ? `  (${after})` : ''}`,
    );
    if (task.reason && task.status !== 'completed') lines.push(`      ${' '.repeat(width)}${task.reason}`);
    if (task.status === 'completed' && task.verification === 'unverified')
      lines.push(`      ⚠ unverified: ${(task.unverifiedBecause ?? []).join('; ')}`);
    const rerun = conflictRerunLine(task);
    if (rerun) lines.push(`      ↻ ${rerun}`);
    for (const question of task.openQuestions ?? []) lines.push(`      ? open question: ${question.replace(/\s+/g, ' ')}`);
    for (const question of task.waitingFor ?? []) lines.push(`      ⏸ was waiting for: ${question.question}`);
    if (task.pausedOn)
      lines.push(
        `      ⏸ waits on the batch's question ${task.pausedOn} (model API outage)  → npx codeloop blockers answer ${view.workflowId} --blocker ${task.pausedOn} retry`,
      );
    for (const blocker of task.blockedOn ?? [])
      lines.push(`      ⏸ ${blocker.question}  → npx codeloop blockers answer ${task.childWorkflowId} --blocker ${blocker.id} "…"`);
  }
  for (const blocker of state.openBlockers) lines.push(`  ⏸ batch blocker ${blocker.id}: ${blocker.question.replace(/\n/g, ' ')}`);
  if (view.result) {
    const totals = view.result.totals;
    lines.push(
      `  result: ${view.result.status} in ${formatDuration(view.result.makespanMs)} · ${formatCount(totalTokens(totals.usage))} tokens · $${totals.costUsd.toFixed(2)}`,
    );
    if (totals.spendByPurpose && Object.keys(totals.spendByPurpose).length)
      lines.push(`  by purpose: ${describeSpendByPurpose(totals.spendByPurpose)}`);
    lines.push(`  critical path: ${view.result.criticalPath.ids.join(' → ')} (${formatDuration(view.result.criticalPath.durationMs)})`);
  }
  return lines.join('\n');
}
