import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { sleep, workflowInfo } from '@temporalio/workflow';
import type { BatchInput } from '../../shared/batch-input.js';
import { durationMs } from '../../shared/blockers.js';
import { SCHEDULED_BATCH_DEADLINE } from '../../shared/constants.js';
import { workflowNow } from '../common/workflow-time.js';
import { hasDeadlines } from './before-patches.js';

/** Set by the server on every run a Temporal Schedule starts. */
const scheduledByKey = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);

/** The deadline a batch runs under: its own, or a night's for a batch a schedule started; none otherwise. */
export function deadlineOf(input: BatchInput): string | undefined {
  return input.deadline ?? (workflowInfo().typedSearchAttributes.get(scheduledByKey) ? SCHEDULED_BATCH_DEADLINE : undefined);
}

/**
 * When the batch stops waiting, in workflow time, fixed when the batch starts and carried across continue-as-new.
 * Runs whose history predates deadlines have none.
 */
export function deadlineAt(input: BatchInput, startedAt: number): number | undefined {
  const deadline = deadlineOf(input);
  if (deadline === undefined || !hasDeadlines()) return undefined;
  return startedAt + durationMs(deadline);
}

/** One timer per run for the whole deadline, rather than one per wait of the main loop. */
export class DeadlineWatch {
  private reached = false;

  constructor(readonly at: number | undefined) {}

  start(): void {
    if (this.at === undefined) return;
    sleep(Math.max(0, this.at - workflowNow())).then(
      () => (this.reached = true),
      // Cancelled with the batch: the batch's own cancellation handles the rest.
      () => undefined,
    );
  }

  get due(): boolean {
    return this.reached;
  }

  /** What is left, for a wait that must end by the deadline; `undefined` without one. */
  remainingMs(): number | undefined {
    return this.at === undefined ? undefined : Math.max(1, this.at - workflowNow());
  }
}
