import { emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';
import { renderTaskView, viewTask } from './task-view.js';

/** `codeloop task status ID`. */
export async function showTaskStatus(workflowId: string, options: OutputOptions): Promise<void> {
  await withClient(async (client) => emit(options, await viewTask(client, workflowId), renderTaskView));
}
