import type { BatchTaskState, FinishedReport } from '../../shared/batch-state.js';
import { emptyUsage } from '../../shared/conversation.js';

/** The report of a child that could not report its own end: failed, having used nothing the batch can count. */
export function failedReport(state: BatchTaskState, reason: string): FinishedReport {
  return { kind: 'finished', workflowId: state.childWorkflowId, status: 'failed', iterations: 0, usage: emptyUsage(), costUsd: 0, reason };
}

/** What went wrong, from an activity or child failure: its cause's message when it has one. */
export function failureMessage(error: unknown): string {
  const cause = (error as { cause?: Error }).cause;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
