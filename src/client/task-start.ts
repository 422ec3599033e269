import { randomUUID } from 'node:crypto';
import { parseTaskInput } from '../shared/task-input.js';
import type { agentTaskWorkflow } from '../workflows/index.js';
import { taskFieldsFromFlags } from './task-flags.js';
import { emit, parseOrExplain, type OutputOptions } from './output.js';
import { shownLink, webUiUrl } from './web-ui.js';
import { cliConfig, clientTaskQueue, withClient } from './session.js';

export interface TaskStartOptions extends OutputOptions, Record<string, unknown> {
  id?: string;
}

/** `codeloop task start`: validates the input with the workflow's own schema, starts it, prints where to look. */
export async function startTask(description: string, options: TaskStartOptions): Promise<void> {
  const input = parseOrExplain(parseTaskInput, { ...taskFieldsFromFlags(options), description });
  const workflowId = options.id ?? `task-${slug(input.title)}-${randomUUID().slice(0, 8)}`;
  await withClient(async (client, namespace) => {
    const taskQueue = clientTaskQueue();
    const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [input],
      taskQueue,
      workflowId,
      // The Web UI's summary and details for the run: what it is for, at a glance.
      staticSummary: input.title,
      staticDetails: input.description,
    });
    const url = webUiUrl(cliConfig(), namespace, workflowId);
    emit(options, { workflowId, runId: handle.firstExecutionRunId, taskQueue, url }, () =>
      [
        `started ${workflowId}`,
        `  web UI:  ${shownLink(url)}`,
        `  status:  npx codeloop task status ${workflowId}`,
        `  result:  npx codeloop task result ${workflowId} --wait`,
      ].join('\n'),
    );
  });
}

function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'task'
  );
}
