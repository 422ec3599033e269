import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { answeredQuestions } from '../shared/blockers.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { parseTaskInput, type TaskInputRaw } from '../shared/task-input.js';
import type { TaskStatus } from '../shared/task-state.js';
import type { agentTaskWorkflow } from '../workflows/index.js';
import { CliError, emit, parseOrExplain, type OutputOptions } from './output.js';
import { formatDuration } from '../text/format.js';
import { shownLink, webUiUrl } from './web-ui.js';
import { cliConfig, startInputOf, withClient } from './session.js';
import { queryState } from '../reads/task-reads.js';

const STATUSES: readonly TaskStatus[] = ['running', 'blocked', 'completed', 'failed', 'cancelled'];

export interface TaskRow {
  workflowId: string;
  status: string;
  phase?: string;
  title?: string;
  startedAt: string;
}

/** `codeloop task list`: the most recent tasks, newest first, from visibility; `--status` filters by `CodeloopStatus`. */
export async function listTasks(options: OutputOptions & { status?: string; limit?: string }): Promise<void> {
  if (options.status && !STATUSES.includes(options.status as TaskStatus))
    throw new CliError(`--status ${options.status} is not a task status; use one of ${STATUSES.join(', ')}`, 2);
  const limit = Number(options.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError(`--limit ${options.limit} is not a positive whole number`, 2);
  const filter = options.status ? ` AND ${SEARCH_ATTRIBUTES.status} = "${options.status}"` : '';
  await withClient(async (client) => {
    const rows: TaskRow[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = "agentTaskWorkflow"${filter}`, pageSize: limit })) {
      if (execution.status.name === 'CONTINUED_AS_NEW') continue;
      const attribute = (name: string) => (execution.searchAttributes?.[name] as string[] | undefined)?.[0];
      const title = await client.workflow
        .getHandle(execution.workflowId, execution.runId)
        .describe()
        .then((description) => description.staticSummary())
        .catch(() => undefined);
      rows.push({
        workflowId: execution.workflowId,
        status: attribute(SEARCH_ATTRIBUTES.status) ?? execution.status.name.toLowerCase(),
        phase: attribute(SEARCH_ATTRIBUTES.phase),
        title,
        startedAt: execution.startTime.toISOString(),
      });
      if (rows.length === limit) break;
    }
    emit(options, rows, renderTaskRows);
  });
}

export function renderTaskRows(rows: TaskRow[], now = Date.now()): string {
  if (rows.length === 0) return 'no tasks';
  return rows
    .map((row) => {
      const age = formatDuration(now - Date.parse(row.startedAt));
      return `${row.workflowId}  ${row.status}${row.phase ? `/${row.phase}` : ''}  ${age} ago  ${row.title ?? ''}`.trimEnd();
    })
    .join('\n');
}

/** `codeloop task cancel ID`: the task stops at its next step, kills its running command, and ends `cancelled`. */
export async function cancelTask(workflowId: string, options: OutputOptions & { wait?: boolean }): Promise<void> {
  await withClient(async (client) => {
    const handle = client.workflow.getHandle(workflowId);
    await handle.cancel().catch((error) => {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`no running task with workflow id ${workflowId}`);
      throw error;
    });
    if (options.wait) await handle.result().catch(() => undefined);
    const execution = (await handle.describe()).status.name.toLowerCase();
    emit(options, { workflowId, cancelRequested: true, execution }, () =>
      options.wait ? `${workflowId} is ${execution}` : `cancellation requested for ${workflowId}`,
    );
  });
}

/**
 * `codeloop task retry ID`: a new run of the same task input, with the questions humans answered in the earlier run
 * added to its answers, so it does not ask them again. A batch's task is retried by its batch instead.
 */
export async function retryTask(workflowId: string, options: OutputOptions & { id?: string }): Promise<void> {
  await withClient(async (client, namespace) => {
    const { input, parent } = await earlierRun(client, workflowId);
    if (parent)
      throw new CliError(
        `${workflowId} is a task of batch ${parent}; retry it there: temporal workflow signal --workflow-id ${parent} --name retryTask --input '{"taskId":"…"}'`,
      );
    const state = await queryState(client, client.workflow.getHandle(workflowId));
    if (!state)
      throw new CliError(`no worker answered getState for ${workflowId}, so its answers cannot be read; start one with npm run worker`);
    const earlier = input.answers ?? [];
    const answers = [
      ...earlier,
      ...answeredQuestions(state.answeredBlockers).filter((qa) => !earlier.some((old) => old.question === qa.question)),
    ];
    const retried = parseOrExplain(parseTaskInput, { ...input, answers });
    const newId = options.id ?? `${workflowId.replace(/-retry-[0-9a-f]{8}$/, '')}-retry-${randomUUID().slice(0, 8)}`;
    const taskQueue = (await client.workflow.getHandle(workflowId).describe()).taskQueue;
    await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [retried],
      taskQueue,
      workflowId: newId,
      staticSummary: retried.title,
      staticDetails: `retry of ${workflowId}`,
    });
    const url = webUiUrl(cliConfig(), namespace, newId);
    emit(options, { workflowId: newId, retryOf: workflowId, answers: answers.length, url }, () =>
      [
        `started ${newId}, a retry of ${workflowId} with ${answers.length} answer${answers.length === 1 ? '' : 's'} from before`,
        `  web UI:  ${shownLink(url)}`,
        `  follow:  npx codeloop task follow ${newId}`,
      ].join('\n'),
    );
  });
}

/** The input the task was started with (every run of a chain starts with it), and its batch if it has one. */
async function earlierRun(client: Client, workflowId: string): Promise<{ input: TaskInputRaw; parent?: string }> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((error) => {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no task with workflow id ${workflowId}`);
    throw error;
  });
  if (description.type !== 'agentTaskWorkflow') throw new CliError(`${workflowId} is a ${description.type}, not a task`);
  const input = await startInputOf<TaskInputRaw>(client, handle);
  return { input, parent: description.parentExecution?.workflowId ?? undefined };
}
