import { CliError, emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';
import { renderTaskView, viewTask } from './task-view.js';

export interface TaskResultOptions extends OutputOptions {
  wait?: boolean;
}

/**
 * `codeloop task result ID [--wait]`: the result of a finished task. Exit code 0 only when the task completed;
 * a running task without `--wait` is exit code 3 so scripts can poll.
 */
export async function showTaskResult(workflowId: string, options: TaskResultOptions): Promise<void> {
  await withClient(async (client) => {
    if (options.wait) {
      if (!options.json) process.stderr.write(`waiting for ${workflowId} to finish…\n`);
      await client.workflow
        .getHandle(workflowId)
        .result()
        .catch(() => undefined);
    }
    const view = await viewTask(client, workflowId);
    emit(options, view, renderTaskView);
    if (view.execution === 'RUNNING') throw new CliError(`${workflowId} is still running; pass --wait to wait for it`, 3);
    if (view.execution !== 'COMPLETED' || !view.result) process.exitCode = 1;
  });
}
