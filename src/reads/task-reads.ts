import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type QueryDefinition } from '@temporalio/common';
import { getStateQuery } from '../shared/messages.js';
import type { TaskResult, TaskStateSnapshot } from '../shared/task-state.js';

/**
 * Reading a task through the Temporal client: its live state from a worker, its result or why it failed from the
 * server. The CLI and `codeloop eval` read tasks the same way.
 */

/** A closed task: its result (also when it failed, from the failure's details), and the failure's messages. */
export interface SettledTask {
  result?: TaskResult;
  failure?: string;
}

const QUERY_DEADLINE_MS = 10_000;

/**
 * A workflow query that gives up after 10 s: a closed workflow's query needs a worker to replay it, and none may be
 * running. `undefined` then, so callers can fall back to what the server knows.
 */
export async function queryOrUndefined<T>(client: Client, handle: WorkflowHandle, query: QueryDefinition<T, []>): Promise<T | undefined> {
  try {
    return await client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(query));
  } catch {
    return undefined;
  }
}

/** A task's `getState`, or `undefined` when no worker answers in time. */
export const queryState = (client: Client, handle: WorkflowHandle): Promise<TaskStateSnapshot | undefined> =>
  queryOrUndefined(client, handle, getStateQuery);

/** A closed task's result, or why it failed (with the figures its failure carries); waits while it runs. */
export async function settledResult(handle: WorkflowHandle): Promise<SettledTask> {
  try {
    return { result: (await handle.result()) as TaskResult };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) return { failure: String((error as Error).message ?? error) };
    const cause = error.cause;
    const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as TaskResult | undefined) : undefined;
    return { result: details, failure: describeFailure(cause) };
  }
}

function describeFailure(cause: Error | undefined): string {
  const messages: string[] = [];
  for (let error: any = cause; error; error = error.cause) if (error.message) messages.push(error.message);
  return messages.join(': ') || 'failed';
}
