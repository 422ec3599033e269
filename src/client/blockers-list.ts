import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Blocker } from '../shared/blockers.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { emit, type OutputOptions } from './output.js';
import { formatDuration } from '../text/format.js';
import { queryOrUndefined, queryState } from '../reads/task-reads.js';
import { onTaskQueue, readEachWorkflow, viewedTaskQueue, withClient } from './session.js';
import { getBatchStateQuery } from '../shared/messages.js';

export interface OpenBlockerRow {
  workflowId: string;
  workflowType: string;
  blockerId: string;
  origin: Blocker['origin'];
  askedAt: string;
  ageMs: number;
  question: string;
  options?: string[];
}

/**
 * Open blockers of the workflows on `taskQueue` (every queue if it is undefined, see `viewedTaskQueue`): a visibility
 * query on `CodeloopStatus="blocked"`, then each workflow's own state for the questions. Visibility says who is
 * blocked; the query says about what.
 */
export async function listOpenBlockers(client: Client, taskQueue: string | undefined, now = Date.now()): Promise<OpenBlockerRow[]> {
  const query = `${SEARCH_ATTRIBUTES.status} = "blocked" AND ExecutionStatus = "Running"${onTaskQueue(taskQueue)}`;
  const perWorkflow = await readEachWorkflow(client, query, async (execution) =>
    (await openBlockersOf(client, execution)).map((blocker) => ({
      workflowId: execution.workflowId,
      workflowType: execution.type,
      blockerId: blocker.id,
      origin: blocker.origin,
      askedAt: blocker.askedAt,
      ageMs: now - Date.parse(blocker.askedAt),
      question: blocker.question,
      options: blocker.options,
    })),
  );
  return perWorkflow.flat().sort((a, b) => b.ageMs - a.ageMs);
}

/** A task's blockers come from `getState`, a batch's own (merge conflicts) from `getBatchState`. */
async function openBlockersOf(client: Client, execution: WorkflowExecutionInfo): Promise<Blocker[]> {
  const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
  if (execution.type === 'batchConductorWorkflow') {
    const state = await queryOrUndefined(client, handle, getBatchStateQuery);
    return state?.openBlockers ?? [];
  }
  return (await queryState(client, handle))?.openBlockers ?? [];
}

export function renderBlockerRows(rows: OpenBlockerRow[]): string {
  if (rows.length === 0) return 'no open blockers';
  const lines = rows.map((row) => {
    const question = row.question.replace(/\s+/g, ' ');
    return `${row.workflowId}  ${row.blockerId}  ${formatDuration(row.ageMs)}  ${question}`;
  });
  const first = rows[0];
  return [
    `${rows.length} open blocker${rows.length === 1 ? '' : 's'} (workflow, blocker, age, question):`,
    ...lines,
    '',
    `answer with: npx codeloop blockers answer ${first.workflowId} --blocker ${first.blockerId} "your answer"`,
  ].join('\n');
}

/** `codeloop blockers list [--all-queues]`. */
export async function showOpenBlockers(options: OutputOptions & { allQueues?: boolean }): Promise<void> {
  await withClient(async (client) => emit(options, await listOpenBlockers(client, viewedTaskQueue(options)), renderBlockerRows));
}
