import { emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';
import { describeBatch } from './batch-view.js';

/** `codeloop batch cancel ID`: cancels the batch, which cancels its running children and waits for them to stop. */
export async function cancelBatch(workflowId: string, options: OutputOptions & { wait?: boolean }): Promise<void> {
  await withClient(async (client) => {
    const { handle } = await describeBatch(client, workflowId);
    await handle.cancel();
    if (options.wait) await handle.result().catch(() => undefined);
    const execution = (await handle.describe()).status.name;
    emit(options, { workflowId, cancelRequested: true, execution }, () =>
      options.wait
        ? `${workflowId} is ${execution.toLowerCase()}`
        : `cancellation requested for ${workflowId}; running tasks are being cancelled`,
    );
  });
}
