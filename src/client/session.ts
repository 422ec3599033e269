import type { Client, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { loadConfig, type CodeloopConfig } from '../config.js';
import { connectClient } from '../connection.js';
import { mapInLanes } from '../lanes.js';
import { payloadCodecsFor } from '../payloads/codecs.js';

/** Runs a command body with a connected client and always closes the connection. */
export async function withClient<T>(body: (client: Client, namespace: string) => Promise<T>): Promise<T> {
  // The same payload codecs as the worker, so inputs, results and queries read as written.
  const payloads = payloadCodecsFor(cliConfig().payloads);
  try {
    const { client, connection, namespace } = await connectClient(cliConfig().temporal, payloads.dataConverter);
    try {
      return await body(client, namespace);
    } finally {
      await connection.close();
    }
  } finally {
    await payloads.close();
  }
}

let loaded: CodeloopConfig | undefined;

/** The CLI's settings, loaded from its environment on first use: one CLI run, one environment. */
export const cliConfig = (): CodeloopConfig => (loaded ??= loadConfig());

/** Drops the settings loaded so far, so that the next CLI run in this process reads its environment again. */
export const forgetCliConfig = (): void => {
  loaded = undefined;
};

/** The task queue the CLI starts workflows on: `CODELOOP_TASK_QUEUE`, or codeloop's default. */
export const clientTaskQueue = (): string => cliConfig().temporal.taskQueue;

/**
 * The task queue a cross-workflow view (`report`, `blockers list`) covers: the CLI's own, one deployment's work whose
 * workers answer its queries, or every queue with `--all-queues`.
 */
export const viewedTaskQueue = (options: { allQueues?: boolean }): string | undefined =>
  options.allQueues ? undefined : clientTaskQueue();

/** A visibility query's clause for `viewedTaskQueue`: nothing for every queue. */
export const onTaskQueue = (taskQueue: string | undefined): string =>
  taskQueue === undefined ? '' : ` AND TaskQueue = ${JSON.stringify(taskQueue)}`;

/** Workflows a cross-workflow view reads at once: a night's batch is hundreds of them. */
const VIEW_READ_LANES = 8;

/**
 * `read` on every workflow the visibility `query` finds, a few at a time rather than in a row (each is a result or a
 * query of its own); the results come back in the order visibility listed the workflows.
 */
export async function readEachWorkflow<R>(
  client: Client,
  query: string,
  read: (execution: WorkflowExecutionInfo) => Promise<R>,
): Promise<R[]> {
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query })) executions.push(execution);
  return mapInLanes(executions, VIEW_READ_LANES, read);
}

/** The first argument a workflow was started with, as the server holds it (every run of a chain has the same). */
export async function startInputOf<T>(client: Client, handle: WorkflowHandle): Promise<T> {
  const history = await handle.fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  return decodeFromPayloadsAtIndex<T>(client.options.loadedDataConverter, 0, payloads);
}
