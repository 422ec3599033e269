import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BlockerAcknowledgement, BlockerAnswer } from './blockers.js';
import type { BatchStateSnapshot, ChildReport } from './batch-state.js';
import type { PlanStateSnapshot } from './plan-state.js';
import type { TaskStateSnapshot } from './task-state.js';

/** `getState`: status, phase, iteration, open blockers and usage of a task. */
export const getStateQuery = defineQuery<TaskStateSnapshot>('getState');

/** `getState` on a `planWorkflow`: the same query name, a plan's state (`kind: 'plan'`). */
export const getPlanStateQuery = defineQuery<PlanStateSnapshot>('getState');

/**
 * `answerBlocker`: fire-and-forget, works with no worker running (the signal waits in history). A bad answer is
 * ignored and recorded in `getState` as rejected; it never fails the workflow.
 */
export const answerBlockerSignal = defineSignal<[BlockerAnswer]>('answerBlocker');

/** `answerBlockerUpdate`: the same answer, acknowledged or rejected synchronously by a validator. */
export const answerBlockerUpdate = defineUpdate<BlockerAcknowledgement, [BlockerAnswer]>('answerBlockerUpdate');

/** `getBatchState`: every task's status, the batch's own blockers, and counts. */
export const getBatchStateQuery = defineQuery<BatchStateSnapshot>('getBatchState');

/** Sent by a batch's child task to the batch: its blockers changed, or it finished. */
export const childReportSignal = defineSignal<[ChildReport]>('childReport');

/**
 * Sent by a batch to its tasks waiting out a model outage (see the task input's `reportOutage`) once a human answered
 * the batch's question 'retry': each calls the model again, with a full retry budget.
 */
export const resumeModelCallsSignal = defineSignal('resumeModelCalls');

/** `retryTask`: re-run a failed task and un-skip its dependents. */
export const retryTaskSignal = defineSignal<[{ taskId: string }]>('retryTask');
