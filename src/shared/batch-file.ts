import { ApplicationFailure } from '@temporalio/common';
import { parse as parseYaml } from 'yaml';
import { TasksFileSchema, type BatchTask } from './batch-input.js';
import { ErrorType } from './errors.js';
import { widensNetwork, type Network } from './network-access.js';
import { describeIssues } from './validation.js';

/** YAML or JSON, by file name; YAML is a superset of JSON, so `.json` files parse either way. */
function parseDocument(text: string, name: string): unknown {
  try {
    return name.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw ApplicationFailure.nonRetryable(`${name} does not parse: ${(error as Error).message}`, ErrorType.InvalidBatch);
  }
}

/** A batch file for `codeloop batch start`: the batch input, in YAML or JSON, not yet validated. */
export function parseBatchFile(text: string, name: string): Record<string, unknown> {
  const raw = parseDocument(text, name);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw ApplicationFailure.nonRetryable(`${name} must hold one object: the batch input`, ErrorType.InvalidBatch);
  }
  return raw as Record<string, unknown>;
}

/** What the operator's batch input lets every task's commands have: a tasks file may ask for less, never more. */
export interface OperatorAccess {
  network: Network;
  env: string[];
}

/**
 * A `tasksFile`: a list of tasks, or `{ tasks: [...] }`. The file is the repository's content, which earlier tasks
 * could write, so it may narrow what a task's commands get but never widen it: a task there names no workspace or
 * host, asks for no network the batch does not give, and for no variable beyond the batch's `env`.
 */
export function parseTasksFile(text: string, name: string, access: OperatorAccess = { network: 'off', env: [] }): BatchTask[] {
  const parsed = TasksFileSchema.safeParse(parseDocument(text, name));
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`tasks file ${name}: ${describeIssues(parsed.error)}`, ErrorType.InvalidBatch);
  const problems = parsed.data.flatMap((task) => wideningOf(task, access).map((problem) => `task ${task.id} ${problem}`));
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(
      `tasks file ${name}: ${problems.join('; ')}. A tasks file is the repository's content: workspace, host, network and env come only from the batch input, its schedule or the command line`,
      ErrorType.InvalidBatch,
    );
  return parsed.data;
}

function wideningOf(task: BatchTask, access: OperatorAccess): string[] {
  const problems: string[] = [];
  if (task.workspace !== undefined) problems.push(`names a workspace (${task.workspace})`);
  if (task.hostQueue !== undefined) problems.push(`names a host (${task.hostQueue})`);
  if (task.network !== undefined && widensNetwork(access.network, task.network))
    problems.push(`asks for network ${JSON.stringify(task.network)}, which the batch does not give`);
  const extra = (task.env ?? []).filter((variable) => !access.env.includes(variable));
  if (extra.length > 0) problems.push(`asks for env ${extra.join(', ')}, beyond the batch's env`);
  return problems;
}
