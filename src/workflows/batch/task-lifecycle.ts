import { ApplicationFailure } from '@temporalio/workflow';
import type { BatchTaskState, BatchTaskStatus, FinishedReport } from '../../shared/batch-state.js';
import { addUsage, emptyUsage } from '../../shared/conversation.js';
import { sumSpendByPurpose } from '../../shared/models.js';
import { workflowNow } from '../common/workflow-time.js';

/**
 * Where a batch task may go from each status. A task settles (completed, failed, skipped, cancelled) and only
 * `retryTask` brings a failed, cancelled or skipped one back; a merge conflict (its first, or one answered 'retry')
 * sends it back to pending.
 */
const MOVES: Record<BatchTaskStatus, readonly BatchTaskStatus[]> = {
  pending: ['running', 'skipped', 'cancelled'],
  running: ['merging', 'failed', 'cancelled'],
  merging: ['completed', 'failed', 'pending', 'cancelled'],
  completed: [],
  failed: ['pending'],
  skipped: ['pending'],
  cancelled: ['pending'],
};

export const canMove = (state: BatchTaskState, to: BatchTaskStatus) => MOVES[state.status].includes(to);

/**
 * The one place a batch task's status changes, with the timestamps and reason that go with it: entering an end sets
 * `endedAt`, going back to pending clears it and the reason. A move the table does not allow is a conductor bug and
 * fails the batch instead of leaving it waiting on a task that can never settle.
 */
function move(state: BatchTaskState, to: BatchTaskStatus, facts: Partial<BatchTaskState> = {}): void {
  if (!canMove(state, to)) {
    throw ApplicationFailure.nonRetryable(
      `batch task ${state.id} cannot go from ${state.status} to ${to}; this is a bug in the batch conductor, please report it with the batch's history`,
    );
  }
  const ends = to === 'completed' || to === 'failed' || to === 'cancelled';
  Object.assign(state, facts, { status: to });
  if (ends) state.endedAt = workflowNow();
  if (to === 'pending') Object.assign(state, { reason: undefined, endedAt: undefined });
}

/** A slot was found for it: its worktree and child are being started. */
export function start(state: BatchTaskState): void {
  move(state, 'running', { readyAt: state.readyAt ?? workflowNow() });
}

/** Its worktree is cut: this attempt works on `branch`, and no question of an earlier attempt is open. */
export function beginAttempt(state: BatchTaskState, branch: string): void {
  Object.assign(state, { branch, attempts: state.attempts + 1, blockedOn: undefined });
}

/**
 * Its child workflow started. The child may already have reported a question: its report can reach the batch in the
 * same workflow task as the start, and signals are handled first, so what it reported is kept.
 */
export function childStarted(state: BatchTaskState): void {
  Object.assign(state, { startedAt: workflowNow(), finishedAt: undefined });
}

/** The child's open questions, as it reported them; only a running task is blocked. */
export function noteBlockers(state: BatchTaskState, open: { id: string; question: string }[]): void {
  if (state.status === 'running') state.blockedOn = open.length ? open : undefined;
}

/**
 * The child reported its end: completed work goes on to be merged; a failure or cancellation ends the task, and so
 * does work that completed `unverified` when the batch requires `verified`.
 */
export function finish(state: BatchTaskState, report: FinishedReport, requireVerified = false, countsEveryRun = false): void {
  const figures = {
    finishedAt: workflowNow(),
    ...(countsEveryRun ? withEarlierRuns(state, report) : runFigures(report)),
    blockedOn: undefined,
    pausedOn: undefined,
    // The re-run after a conflict has ended: a later run (a retry, a correction round) is not told about that conflict.
    rerunningAfterConflict: undefined,
    ...(report.verification ? { verification: report.verification } : {}),
    ...(report.unverifiedBecause ? { unverifiedBecause: report.unverifiedBecause } : {}),
    ...(report.openQuestions ? { openQuestions: report.openQuestions } : {}),
    ...(report.summary ? { summary: report.summary } : {}),
  };
  if (report.status === 'completed' && requireVerified && report.verification !== 'verified') {
    const why = report.unverifiedBecause?.join('; ') ?? 'it reported no verification';
    move(state, 'failed', { ...figures, reason: `completed unverified, and the batch requires verified work: ${why}` });
  } else if (report.status === 'completed') move(state, 'merging', figures);
  else move(state, report.status, { ...figures, reason: report.reason });
}

/**
 * The batch stopped the task and its child has now said so: what the run used joins the task's figures (its earlier
 * runs' too, counting every run), and its status and reason stay the batch's.
 */
export function stoppedRunEnded(state: BatchTaskState, report: FinishedReport, countsEveryRun: boolean): void {
  Object.assign(state, { finishedAt: workflowNow(), ...(countsEveryRun ? withEarlierRuns(state, report) : runFigures(report)) });
}

/** What one run of the task used. */
const runFigures = (report: FinishedReport) => ({
  iterations: report.iterations,
  usage: report.usage,
  costUsd: report.costUsd,
  spendByPurpose: report.spendByPurpose,
});

/** What every run of the task used so far: the earlier runs' figures and this one's, added up. */
function withEarlierRuns(state: BatchTaskState, report: FinishedReport): ReturnType<typeof runFigures> {
  if (state.iterations === undefined && state.costUsd === undefined) return runFigures(report);
  return {
    iterations: (state.iterations ?? 0) + report.iterations,
    usage: addUsage(state.usage ?? emptyUsage(), report.usage),
    costUsd: (state.costUsd ?? 0) + report.costUsd,
    spendByPurpose: sumSpendByPurpose([state.spendByPurpose, report.spendByPurpose]),
  };
}

/** Its branch is in the integration branch. */
export function merged(state: BatchTaskState): void {
  move(state, 'completed');
}

/** Its merge failed for good: a conflict answered 'skip', or the merge step itself failed. */
export function failMerge(state: BatchTaskState, reason: string): void {
  move(state, 'failed', { reason });
}

/** The batch's deadline came while it ran: it is cancelled, keeping the questions it was waiting on. */
export function stopAtDeadline(state: BatchTaskState, reason: string): void {
  move(state, 'cancelled', { reason, waitingFor: state.blockedOn, blockedOn: undefined, pausedOn: undefined });
}

/** A dependency did not complete, or `fail-fast` stopped the batch. */
export function skip(state: BatchTaskState, reason: string): void {
  move(state, 'skipped', { reason });
}

/** Runs again from a fresh worktree: `retryTask`, a first merge conflict, or a later one answered 'retry'. */
export function requeue(state: BatchTaskState): void {
  move(state, 'pending');
}

/** The batch was cancelled before the task settled. */
export function cancel(state: BatchTaskState): void {
  move(state, 'cancelled');
}
