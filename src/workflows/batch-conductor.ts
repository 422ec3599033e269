import { CancellationScope, isCancellation, setHandler } from '@temporalio/workflow';
import { parseBatchInput } from '../shared/batch-input.js';
import type { BatchResult } from '../shared/batch-state.js';
import { BatchRun, type BatchCarry } from './batch/batch-run.js';
import { childReportSignal, getBatchStateQuery, retryTaskSignal } from '../shared/messages.js';

export type { BatchCarry } from './batch/batch-run.js';

/**
 * A batch of coding tasks over a dependency DAG. Each task is a child `agentTaskWorkflow` started the moment its own
 * dependencies are done, in its own git worktree, and merged into the batch's integration branch when it completes.
 * The batch ends `completed` only when every task did; its result names the integration branch.
 */
export async function batchConductorWorkflow(rawInput: unknown, carry?: BatchCarry): Promise<BatchResult> {
  const input = parseBatchInput(rawInput);
  const run = new BatchRun(input, carry);
  setHandler(getBatchStateQuery, () => run.snapshot());
  setHandler(childReportSignal, (report) => run.receive(report));
  setHandler(retryTaskSignal, ({ taskId }) => run.retry(taskId));
  run.desk.listen();
  try {
    return await run.execute();
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => run.cancel());
    throw error;
  }
}
