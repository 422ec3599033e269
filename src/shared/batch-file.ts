import { ApplicationFailure } from '@temporalio/common';
import { parse as parseYaml } from 'yaml';
import { TasksFileSchema, type BatchTask } from './batch-input.js';
import { ErrorType } from './errors.js';
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

/** A `tasksFile`: a list of tasks, or `{ tasks: [...] }`. */
export function parseTasksFile(text: string, name: string): BatchTask[] {
  const parsed = TasksFileSchema.safeParse(parseDocument(text, name));
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`tasks file ${name}: ${describeIssues(parsed.error)}`, ErrorType.InvalidBatch);
  return parsed.data;
}
