import { emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';
import { renderBatchView, viewBatch } from './batch-view.js';

/** `codeloop batch status ID`: a tree of tasks with status, duration, tokens and blocked questions. */
export async function showBatchStatus(workflowId: string, options: OutputOptions): Promise<void> {
  await withClient(async (client) => emit(options, await viewBatch(client, workflowId), (view) => renderBatchView(view)));
}
