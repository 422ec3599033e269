import { condition, getExternalWorkflowHandle, log } from '@temporalio/workflow';
import type { BatchTaskState, ChildReport } from '../../shared/batch-state.js';
import type { BatchParts } from './batch-parts.js';
import { deadlineOf } from './deadline.js';
import { skipDependents } from './scheduler.js';
import * as lifecycle from './task-lifecycle.js';

/**
 * How a batch ends tasks before their time: a failure's policy (`skip-dependents`, `fail-fast`), the deadline, the
 * budget, a human's 'stop' after a model outage, and cancellation. Each sets the batch's `outcome` where it decides
 * how the batch ends, and leaves merges under way to finish.
 */

/** A task failed: its dependents are skipped, or under `fail-fast` every pending task is and running ones cancelled. */
export function onFailure(batch: BatchParts, state: BatchTaskState): void {
  const { input, state: run } = batch;
  if (input.onFailure === 'skip-dependents') skipDependents(run.states, state.id);
  if (input.onFailure === 'fail-fast') {
    run.outcome = 'failed';
    for (const other of run.states) {
      if (other.status === 'pending') lifecycle.skip(other, `fail-fast after ${state.id} failed`);
      if (other.status === 'running') void cancelChild(other);
    }
  }
  batch.publish();
}

export async function cancelChild(state: BatchTaskState): Promise<void> {
  try {
    await getExternalWorkflowHandle(state.childWorkflowId).cancel();
  } catch {
    // Already closed.
  }
}

/**
 * The deadline: running tasks, blocked ones included, are cancelled and keep the questions they were waiting on;
 * pending ones are skipped; merges under way finish. The batch waits (briefly) for the cancelled children to say
 * they stopped, then ends with status `deadline`.
 */
export async function stopAtDeadline(batch: BatchParts): Promise<void> {
  const { input, state: run } = batch;
  run.outcome = 'deadline';
  const reason = `stopped at the batch's deadline (${deadlineOf(input)})`;
  const running = run.states.filter((state) => state.status === 'running');
  for (const state of running) lifecycle.stopAtDeadline(state, reason);
  for (const state of run.states.filter((candidate) => candidate.status === 'pending'))
    lifecycle.skip(state, `not started before the batch's deadline (${deadlineOf(input)})`);
  log.info('batch deadline reached', { batchId: run.batchId });
  batch.publish();
  await stopChildren(batch, running.filter(startedUnfinished));
  settleSilent(batch, running);
}

/**
 * The budget: at the soft limit nothing new starts and pending tasks are skipped, while running ones finish and
 * merge; at the hard limit running tasks are cancelled too, keeping the questions they were waiting on.
 */
export async function stopAtBudget(batch: BatchParts, limit: 'soft' | 'hard'): Promise<void> {
  const { budget, state: run } = batch;
  budget.acted = limit;
  if (run.outcome !== 'deadline' && run.outcome !== 'cancelled') run.outcome = 'budget';
  const { spentUsd } = budget.spent(run.states);
  const limits = budget.limits!;
  const spent = `$${spentUsd.toFixed(4)} spent`;
  for (const state of run.states.filter((candidate) => candidate.status === 'pending'))
    lifecycle.skip(state, `not started: the batch reached its budget (${spent}, soft limit $${limits.soft})`);
  log.info('batch budget reached', { batchId: run.batchId, limit, spentUsd });
  batch.publish();
  if (limit === 'soft') return;
  await stopRunning(batch, `stopped at the batch's budget (${spent}, hard limit $${limits.hard})`);
}

/**
 * A model outage answered 'stop': the batch ends as a cancelled one does (running tasks cancelled, keeping the
 * questions they were waiting on, pending ones skipped; merges under way finish), but it still reports its result,
 * publishes what merged and sends the morning message.
 */
export async function stopAfterOutage(batch: BatchParts, reason: string): Promise<void> {
  const { state: run } = batch;
  if (run.outcome !== 'deadline') run.outcome = 'cancelled';
  for (const state of run.states.filter((candidate) => candidate.status === 'pending')) lifecycle.skip(state, `not started: ${reason}`);
  log.info('batch stopped after a model outage', { batchId: run.batchId });
  await stopRunning(batch, reason);
}

/** Cancelling the batch cancels its running children and waits (briefly) for them to say they stopped. */
export async function cancelBatch(batch: BatchParts): Promise<void> {
  const { state: run } = batch;
  const running = run.states.filter((state) => state.status === 'running');
  await stopChildren(batch, running);
  for (const state of run.states) if (lifecycle.canMove(state, 'cancelled')) lifecycle.cancel(state);
  // The ends that came in while it was cancelled are still in the inbox: the main loop no longer runs.
  for (const { taskId, report } of run.inbox) {
    const state = run.states.find((candidate) => candidate.id === taskId)!;
    keepStoppedRunFigures(batch, state, report);
  }
  settleSilent(batch, running);
  run.outcome = 'cancelled';
  batch.publish();
}

/**
 * Running tasks end now, their spend so far settled and the questions they were waiting on kept; their children are
 * cancelled and given a minute to say they stopped.
 */
async function stopRunning(batch: BatchParts, reason: string): Promise<void> {
  const running = batch.state.states.filter((state) => state.status === 'running');
  if (!batch.patches.stopKeepsFigures) for (const state of running) batch.budget.settle(state);
  for (const state of running) lifecycle.stopAtDeadline(state, reason);
  batch.publish();
  await stopChildren(batch, running.filter(startedUnfinished));
  settleSilent(batch, running);
}

const startedUnfinished = (state: BatchTaskState) => state.startedAt !== undefined && !state.finishedAt;

/**
 * A child's end report, for a task the batch has stopped (`batchStopKeepsFigures`): what its run used is kept. A stop
 * then settles the live spend only of those that did not report (see `settleSilent`).
 */
export function keepStoppedRunFigures(batch: BatchParts, state: BatchTaskState, report: ChildReport): void {
  if (!batch.patches.stopKeepsFigures || report.kind !== 'finished' || state.status !== 'cancelled' || !startedUnfinished(state)) return;
  lifecycle.stoppedRunEnded(state, report, batch.patches.countsEveryRun);
  batch.budget.runEnded(state);
}

/** After a stop's wait: a stopped task whose child said nothing keeps the spend it last reported. */
function settleSilent(batch: BatchParts, states: BatchTaskState[]): void {
  if (!batch.patches.stopKeepsFigures) return;
  for (const state of states.filter(startedUnfinished)) batch.budget.settle(state);
}

/**
 * Cancels these tasks' children and waits up to a minute for each to report that it stopped. The ends that came in
 * before are forgotten first (an earlier attempt's), since an end still in the inbox is counted anyway.
 */
async function stopChildren(batch: BatchParts, states: BatchTaskState[]): Promise<void> {
  for (const state of states) batch.endsDelivered.delete(state.id);
  await Promise.all(states.map((state) => cancelChild(state)));
  const inInbox = (state: BatchTaskState) => batch.state.inbox.some((item) => item.taskId === state.id);
  const delivered = (state: BatchTaskState) => inInbox(state) || (batch.patches.stopSeesEveryEnd && batch.endsDelivered.has(state.id));
  await condition(() => states.every(delivered), '1 minute');
}
