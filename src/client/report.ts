import { WorkflowFailedError, type Client, type WorkflowExecutionInfo, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time.js';
import type { BatchResult } from '../shared/batch-state.js';
import type { Blocker } from '../shared/blockers.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { totalTokens } from '../shared/conversation.js';
import { verificationReasons, type Verification } from '../shared/gates.js';
import type { TaskResult } from '../shared/task-state.js';
import { getBatchStateQuery, getPlanStateQuery } from '../shared/messages.js';
import { describeSpendByPurpose, sumSpendByPurpose, type SpendByPurpose } from '../shared/models.js';
import type { PlanResult } from '../shared/plan-state.js';
import { formatCount, formatDuration } from '../text/format.js';
import { batchSummaryLine } from '../text/morning-report.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { queryOrUndefined, queryState } from '../reads/task-reads.js';
import { onTaskQueue, readEachWorkflow, viewedTaskQueue, withClient } from './session.js';

export interface ReportRow {
  workflowId: string;
  kind: 'task' | 'batch' | 'plan';
  batchId?: string;
  status: string;
  reason?: string;
  questions?: { blockerId: string; question: string; askedAt: string }[];
  /** A batch stopped at its deadline: the questions its tasks were left waiting on, and how to resume with answers. */
  unanswered?: { taskId: string; question: string; resume: string }[];
  summary?: string;
  /** A completed task: what its gates said (`verified`, `unverified`, `failed`), and why when not verified. */
  verification?: Verification;
  unverifiedBecause?: string[];
  /** A completed task's questions that did not stop it, for a human to read. */
  openQuestions?: string[];
  tokens: number;
  costUsd: number;
  spendByPurpose?: SpendByPurpose;
  closedAt?: string;
}

export interface Report {
  since: string;
  /** The task queue whose workflows the report covers; absent with `--all-queues`. */
  taskQueue?: string;
  tasks: Record<string, number>;
  tokens: number;
  costUsd: number;
  /** Tasks' and plans' usage and cost by purpose: the agent's turns, compaction summaries, planning. */
  spendByPurpose: SpendByPurpose;
  rows: ReportRow[];
}

const tokensOf = (usage?: TaskResult['usage']) => (usage ? totalTokens(usage) : 0);
const toQuestions = (blockers: Blocker[]) => blockers.map((b) => ({ blockerId: b.id, question: b.question, askedAt: b.askedAt }));

/**
 * The morning view: every task, batch and plan on `taskQueue` (every queue if it is undefined, see `viewedTaskQueue`)
 * that ran in the window or is still open, from visibility (who) and each workflow's result or state (what happened,
 * what it is waiting for).
 */
export async function buildReport(client: Client, sinceMs: number, taskQueue: string | undefined, now = Date.now()): Promise<Report> {
  const since = new Date(now - sinceMs).toISOString();
  const rows = await readEachWorkflow(client, reportQuery(since, taskQueue), (execution) => describeOrExplain(client, execution));
  const taskRows = rows.filter((row) => row.kind === 'task');
  const tasks: Record<string, number> = {};
  for (const row of taskRows) tasks[row.status] = (tasks[row.status] ?? 0) + 1;
  // A batch's spend is its tasks' own, already counted on their rows.
  const spending = rows.filter((row) => row.kind !== 'batch');
  return {
    since,
    taskQueue,
    tasks,
    tokens: spending.reduce((sum, row) => sum + row.tokens, 0),
    costUsd: spending.reduce((sum, row) => sum + row.costUsd, 0),
    spendByPurpose: sumSpendByPurpose(spending.map((row) => row.spendByPurpose)),
    rows: rows.sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
  };
}

/** The visibility query for a report's workflows: open ones, and those closed since `since`, on `taskQueue` if given. */
export function reportQuery(since: string, taskQueue: string | undefined): string {
  return (
    `(WorkflowType = "agentTaskWorkflow" OR WorkflowType = "batchConductorWorkflow" OR WorkflowType = "planWorkflow") ` +
    `AND ExecutionStatus != "ContinuedAsNew" ` +
    `AND (ExecutionStatus = "Running" OR CloseTime >= "${since}")${onTaskQueue(taskQueue)}`
  );
}

const KINDS: Record<string, ReportRow['kind']> = { batchConductorWorkflow: 'batch', planWorkflow: 'plan', agentTaskWorkflow: 'task' };

/** A plan: waiting for review (its question), approved (its file and batch), or failed. */
async function describePlan(
  client: Client,
  handle: WorkflowHandle,
  base: Pick<ReportRow, 'workflowId' | 'kind' | 'closedAt'>,
  execStatus: string,
): Promise<ReportRow> {
  if (execStatus === 'RUNNING') {
    const state = await queryOrUndefined(client, handle, getPlanStateQuery);
    return {
      ...base,
      status: state?.status ?? 'running',
      summary: state ? `${state.phase}, draft ${state.drafts}` : undefined,
      questions: state && toQuestions(state.openBlockers),
      tokens: tokensOf(state?.usage),
      costUsd: state?.costUsd ?? 0,
      spendByPurpose: state?.spendByPurpose,
    };
  }
  if (execStatus === 'COMPLETED') {
    const result = (await handle.result()) as PlanResult;
    const batch = result.batchWorkflowId ? `, batch ${result.batchWorkflowId}` : '';
    return {
      ...base,
      status: 'completed',
      summary: `${result.plan.tasks.length} tasks in ${result.planFile}${batch}`,
      tokens: tokensOf(result.usage),
      costUsd: result.costUsd,
      spendByPurpose: result.spendByPurpose,
    };
  }
  const reason = await handle.result().then(
    () => undefined,
    (error: Error) => (error instanceof WorkflowFailedError ? error.cause?.message : undefined) ?? error.message,
  );
  return { ...base, status: execStatus.toLowerCase(), reason, tokens: 0, costUsd: 0 };
}

/** One workflow this CLI cannot read (its payloads need settings this machine lacks) is a row saying so, not a failed report. */
async function describeOrExplain(client: Client, execution: WorkflowExecutionInfo): Promise<ReportRow> {
  try {
    return await describeExecution(client, execution);
  } catch (error) {
    return {
      workflowId: execution.workflowId,
      kind: KINDS[execution.type] ?? 'task',
      status: execution.status.name.toLowerCase(),
      reason: `cannot be read here: ${(error as Error).message}`,
      tokens: 0,
      costUsd: 0,
    };
  }
}

async function describeExecution(client: Client, execution: WorkflowExecutionInfo): Promise<ReportRow> {
  const handle = client.workflow.getHandle(execution.workflowId);
  const batchId = (execution.searchAttributes?.[SEARCH_ATTRIBUTES.batchId] as string[] | undefined)?.[0];
  const kind = KINDS[execution.type] ?? 'task';
  const base = {
    workflowId: execution.workflowId,
    kind,
    batchId: kind === 'task' ? batchId : undefined,
    closedAt: execution.closeTime?.toISOString(),
  } as const;
  const execStatus = execution.status.name;
  if (kind === 'plan') return describePlan(client, handle, base, execStatus);
  if (execStatus === 'RUNNING') {
    if (kind === 'batch') {
      const state = await queryOrUndefined(client, handle, getBatchStateQuery);
      // What the tasks that have ended so far used; a running task's usage is on its own row.
      const tokens = state?.tasks.reduce((sum, task) => sum + tokensOf(task.usage), 0) ?? 0;
      const cost = state?.tasks.reduce((sum, task) => sum + (task.costUsd ?? 0), 0) ?? 0;
      return {
        ...base,
        status: state?.status ?? 'running',
        summary: state ? `${state.counts.completed}/${state.tasks.length} tasks done` : undefined,
        questions: state && toQuestions(state.openBlockers),
        tokens,
        costUsd: cost,
      };
    }
    const state = await queryState(client, handle);
    return {
      ...base,
      status: state?.status ?? 'running',
      summary: state ? `${state.phase}, iteration ${state.iteration}/${state.maxIterations}` : undefined,
      questions: state && toQuestions(state.openBlockers),
      tokens: tokensOf(state?.usage),
      costUsd: state?.costUsd ?? 0,
      spendByPurpose: state?.spendByPurpose,
    };
  }
  if (execStatus === 'COMPLETED') {
    if (kind === 'batch') {
      const result = (await handle.result()) as BatchResult;
      const unanswered = result.tasks.flatMap((task) =>
        (task.waitingFor ?? []).map(({ question }) => ({
          taskId: task.id,
          question,
          resume: `npx codeloop batch resume ${execution.workflowId} --answer ${task.id}="…"`,
        })),
      );
      return {
        ...base,
        status: result.status,
        // The morning message says the same.
        summary: batchSummaryLine(result),
        ...(unanswered.length ? { unanswered } : {}),
        tokens: tokensOf(result.totals.usage),
        costUsd: result.totals.costUsd,
      };
    }
    const result = (await handle.result()) as TaskResult;
    const verification = result.verification;
    return {
      ...base,
      status: 'completed',
      summary: result.summary,
      ...(verification ? { verification } : {}),
      ...(verification && verification !== 'verified' ? { unverifiedBecause: verificationReasons(result.gates ?? []) } : {}),
      ...(result.openQuestions?.length ? { openQuestions: result.openQuestions } : {}),
      tokens: tokensOf(result.usage),
      costUsd: result.costUsd,
      spendByPurpose: result.spendByPurpose,
    };
  }
  if (execStatus === 'FAILED') {
    const error = await handle.result().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as TaskResult | undefined) : undefined;
    return {
      ...base,
      status: 'failed',
      reason: `${details?.reason ? `${details.reason}: ` : ''}${cause?.message ?? 'failed'}`,
      tokens: tokensOf(details?.usage),
      costUsd: details?.costUsd ?? 0,
      spendByPurpose: details?.spendByPurpose,
    };
  }
  return { ...base, status: execStatus.toLowerCase(), tokens: 0, costUsd: 0 };
}

export function renderReport(report: Report, now = Date.now()): string {
  const lines = [
    `codeloop report since ${report.since}, ${report.taskQueue === undefined ? 'every task queue' : `task queue ${report.taskQueue}`}`,
    `tasks: ${
      Object.entries(report.tasks)
        .map(([status, count]) => `${count} ${status}`)
        .join(' · ') || 'none'
    }`,
    `tokens ${formatCount(report.tokens)} · cost $${report.costUsd.toFixed(2)}`,
    ...(Object.keys(report.spendByPurpose).length ? [`by purpose: ${describeSpendByPurpose(report.spendByPurpose)}`] : []),
  ];
  const section = (title: string, rows: ReportRow[], line: (row: ReportRow) => string[]) => {
    if (rows.length) lines.push('', title, ...rows.flatMap(line));
  };
  section(
    'batches:',
    report.rows.filter((row) => row.kind === 'batch'),
    (row) => [`  ${row.workflowId}  ${row.status}  ${row.summary ?? ''}  $${row.costUsd.toFixed(2)}`],
  );
  section(
    'plans:',
    report.rows.filter((row) => row.kind === 'plan'),
    (row) => [`  ${row.workflowId}  ${row.status}  ${row.summary ?? row.reason ?? ''}  $${row.costUsd.toFixed(2)}`],
  );
  section(
    'failed:',
    report.rows.filter((row) => row.kind === 'task' && row.status === 'failed'),
    (row) => [`  ${row.workflowId}  ${row.reason}`],
  );
  section(
    'waiting for you (npx codeloop blockers answer <workflow-id> --blocker <id> "…"):',
    report.rows.filter((row) => row.questions?.length),
    (row) =>
      row.questions!.map(
        (q) => `  ${row.workflowId}  ${q.blockerId} (${formatDuration(now - Date.parse(q.askedAt))}): ${q.question.replace(/\s+/g, ' ')}`,
      ),
  );
  section(
    'stopped at their deadline, waiting for you (answer, then resume the rest):',
    report.rows.filter((row) => row.unanswered?.length),
    (row) =>
      row.unanswered!.flatMap((item) => [
        `  ${row.workflowId}  ${item.taskId}: ${item.question.replace(/\s+/g, ' ')}`,
        `    ${item.resume}`,
      ]),
  );
  section(
    'completed:',
    report.rows.filter((row) => row.kind === 'task' && row.status === 'completed'),
    (row) => [
      `  ${row.workflowId}  ${row.unverifiedBecause ? `[${row.verification}] ` : ''}${(row.summary ?? '').replace(/\s+/g, ' ').slice(0, 100)}`,
      ...(row.unverifiedBecause ?? []).map((reason) => `    not verified: ${reason}`),
      ...(row.openQuestions ?? []).map((question) => `    open question: ${question.replace(/\s+/g, ' ')}`),
    ],
  );
  return lines.join('\n');
}

/** `codeloop report [--since 24h] [--all-queues]`. */
export async function showReport(options: OutputOptions & { since: string; allQueues?: boolean }): Promise<void> {
  let sinceMs: number;
  try {
    sinceMs = msToNumber(options.since as never);
  } catch {
    throw new CliError(`--since ${options.since} is not a duration; use e.g. 24h, 7d or 90m`, 2);
  }
  const taskQueue = viewedTaskQueue(options);
  await withClient(async (client) => emit(options, await buildReport(client, sinceMs, taskQueue), (report) => renderReport(report)));
}
