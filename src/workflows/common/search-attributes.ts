import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { BatchStateSnapshot } from '../../shared/batch-state.js';
import { SEARCH_ATTRIBUTES } from '../../shared/constants.js';
import type { PlanPhase, PlanStatus } from '../../shared/plan-state.js';
import type { TaskPhase, TaskStatus } from '../../shared/task-state.js';

export const statusKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, SearchAttributeType.KEYWORD);
export const phaseKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.phase, SearchAttributeType.KEYWORD);

/**
 * Keeps `CodeloopStatus` / `CodeloopPhase` current for visibility queries, upserting only on change so history
 * gains one event per transition and not per iteration.
 */
export class SearchAttributeTracker {
  private status?: string;
  private phase?: string;

  /** A task's status and phase; a batch's status, with the phase `conducting`; a plan's. */
  update(status: TaskStatus | BatchStateSnapshot['status'] | PlanStatus, phase: TaskPhase | 'conducting' | PlanPhase): void {
    if (status === this.status && phase === this.phase) return;
    this.status = status;
    this.phase = phase;
    upsertSearchAttributes([
      { key: statusKey, value: status },
      { key: phaseKey, value: phase },
    ]);
  }
}
