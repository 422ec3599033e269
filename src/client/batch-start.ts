import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseBatchFile } from '../shared/batch-file.js';
import { parseBatchInput, type BatchInput } from '../shared/batch-input.js';
import type { batchConductorWorkflow } from '../workflows/index.js';
import { readInputFile } from './input-file.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { shownLink, webUiUrl } from './web-ui.js';
import { cliConfig, clientTaskQueue, withClient } from './session.js';

export interface BatchStartOptions extends OutputOptions {
  maxParallel?: string;
  onFailure?: string;
  deadline?: string;
  requireVerified?: boolean;
  id?: string;
}

/**
 * Reads a batch file (YAML or JSON), the same input `temporal workflow start --input` takes. Relative workspace
 * paths are taken from the file's directory, so a batch file can sit in the repository it describes.
 */
export function readBatchFile(
  file: string,
  overrides: Partial<Record<'maxParallel' | 'onFailure' | 'deadline' | 'requireVerified', unknown>> = {},
): BatchInput {
  const text = readInputFile(file, 'the batch file');
  try {
    const raw = parseBatchFile(text, path.basename(file));
    const base = path.dirname(path.resolve(file));
    const absolute = (workspace: unknown) => (typeof workspace === 'string' ? path.resolve(base, workspace) : workspace);
    // Only a list of objects is rewritten; anything else goes to the schema as it is, to be named there.
    const tasks = Array.isArray(raw.tasks)
      ? raw.tasks.map((task: unknown) => (isObject(task) ? { ...task, workspace: absolute(task.workspace) } : task))
      : (raw.tasks ?? []);
    const input = {
      ...raw,
      workspace: absolute(raw.workspace),
      tasks,
      ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
    };
    return parseBatchInput(input);
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message}`, 2);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `codeloop batch start FILE`: validates the whole batch (DAG included) before starting it. */
export async function startBatch(file: string, options: BatchStartOptions): Promise<void> {
  const input = readBatchFile(file, {
    maxParallel: options.maxParallel === undefined ? undefined : Number(options.maxParallel),
    onFailure: options.onFailure,
    deadline: options.deadline,
    requireVerified: options.requireVerified,
  });
  const workflowId = options.id ?? `batch-${input.batchId ?? path.basename(file).replace(/\.[^.]+$/, '')}-${randomUUID().slice(0, 8)}`;
  await withClient(async (client, namespace) => {
    const taskQueue = clientTaskQueue();
    await client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
      args: [input],
      taskQueue,
      workflowId,
      staticSummary: `batch of ${input.tasks.length} tasks from ${path.basename(file)}`,
      staticDetails: input.tasks.map((task) => `- ${task.id}: ${task.title}`).join('\n') || `tasks from ${input.tasksFile}`,
    });
    const url = webUiUrl(cliConfig(), namespace, workflowId);
    emit(options, { workflowId, taskQueue, url, tasks: input.tasks.length }, () =>
      [
        `started ${workflowId} (${input.tasks.length} tasks${input.tasksFile ? ` + ${input.tasksFile}` : ''})`,
        `  web UI:  ${shownLink(url)}`,
        `  follow:  npx codeloop batch follow ${workflowId}`,
        `  status:  npx codeloop batch status ${workflowId}`,
      ].join('\n'),
    );
  });
}
