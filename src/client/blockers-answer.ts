import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { BlockerAcknowledgement, BlockerAnswer } from '../shared/blockers.js';
import { answerBlockerSignal, answerBlockerUpdate } from '../shared/messages.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';

export interface AnswerOptions extends OutputOptions {
  blocker?: string;
}

/** How long to wait for a worker to acknowledge the update before falling back to the signal. */
const UPDATE_DEADLINE_MS = 15_000;

export type AnswerReceipt =
  ({ via: 'update' } & BlockerAcknowledgement) | { via: 'signal'; workflowId: string; blockerId?: string; answer: string; note: string };

/**
 * `codeloop blockers answer`: the update, so the caller sees the acknowledgement or the reason for a rejection.
 * When no worker is running to acknowledge it, the answer goes as the `answerBlocker` signal instead, which waits
 * in history until one is.
 */
export async function answerBlocker(workflowId: string, answer: string, options: AnswerOptions): Promise<void> {
  const payload: BlockerAnswer = { blockerId: options.blocker, answer };
  await withClient(async (client) => {
    const handle = client.workflow.getHandle(workflowId);
    let receipt: AnswerReceipt;
    try {
      const ack = await client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        handle.executeUpdate(answerBlockerUpdate, { args: [payload] }),
      );
      receipt = { via: 'update', ...ack };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw new CliError(`answer rejected: ${error.cause?.message ?? error.message}`);
      if (!isDeadline(error)) throw error;
      await handle.signal(answerBlockerSignal, payload);
      receipt = {
        via: 'signal',
        workflowId,
        blockerId: options.blocker,
        answer,
        note: 'no worker acknowledged in time; sent as the answerBlocker signal, applied when a worker picks the task up',
      };
    }
    emit(options, receipt, (value) =>
      value.via === 'update'
        ? `answered ${workflowId} blocker ${value.blockerId} at ${value.answeredAt}\n  question: ${value.question}\n  answer:   ${value.answer}`
        : `sent to ${workflowId}: ${value.note}`,
    );
  });
}

function isDeadline(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return /deadline|DEADLINE_EXCEEDED|timed? ?out/i.test(text);
}
