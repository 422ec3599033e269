import { log } from '@temporalio/workflow';
import type { BatchTaskState, IntegrationFailure } from '../../shared/batch-state.js';
import type { BatchParts } from './batch-parts.js';
import { noteConflictRerun, rerunsAlone } from './conflict-rerun.js';
import { failureMessage } from './failed-report.js';
import { integrationDecision, integrationQuestion } from './integration-question.js';
import { conflictDecision, conflictQuestion } from './merge-conflict.js';
import { ending, placeOf } from './run-state.js';
import { onFailure } from './stops.js';
import * as lifecycle from './task-lifecycle.js';

/** Brings finished tasks' branches into their repository's integration branch. */
export interface Merger {
  /** Settles once the merge step that takes `state` is over: merged, conflicting or failed. */
  merge(state: BatchTaskState): Promise<void>;
}

/** What one merge step says of the tasks it took. */
export interface MergeResult {
  merged: string[];
  conflicts: { taskId: string; files: string[] }[];
}

/**
 * What a merge step's result does to its tasks. Unverified, each merged task completes and each conflicting one goes
 * to `conflicted`. Verified (`batchVerifiesIntegration`), the merged ones complete only once the gates on the
 * integration branch say so (see `verifyMerged`).
 */
export async function settleMerge(batch: BatchParts, merger: Merger, group: BatchTaskState[], result: MergeResult): Promise<void> {
  const conflictOf = (state: BatchTaskState) => result.conflicts.find((conflict) => conflict.taskId === state.id);
  if (batch.patches.verifiesIntegration) {
    for (const { taskId, files } of result.conflicts)
      conflicted(
        batch,
        merger,
        group.find((state) => state.id === taskId)!,
        files,
      );
    await verifyMerged(
      batch,
      group.filter((state) => result.merged.includes(state.id)),
    );
    return;
  }
  for (const state of group) {
    const conflict = conflictOf(state);
    if (conflict) conflicted(batch, merger, state, conflict.files);
    else merged(batch, state);
  }
}

export function merged(batch: BatchParts, state: BatchTaskState): void {
  lifecycle.merged(state);
  batch.publish();
}

/** A merge step that failed for good (not a conflict) fails its task, like a task that failed on its own. */
export function mergeFailed(batch: BatchParts, state: BatchTaskState, error: unknown): void {
  if (state.status !== 'merging') return;
  lifecycle.failMerge(state, `could not merge: ${failureMessage(error)}`);
  onFailure(batch, state);
}

/**
 * A task's merge conflicted: its first conflict re-runs it on the new base, its dependents waiting for the re-run as
 * they waited for the first run; a later one asks a human, and so does any in a batch that is ending (nothing new
 * starts there, so a re-run would never run).
 */
export function conflicted(batch: BatchParts, merger: Merger, state: BatchTaskState, files: string[]): void {
  if (batch.patches.rerunsConflicts && rerunsAlone(state) && !ending(batch.state)) {
    log.info('merge conflict: re-running the task on the new base', { taskId: state.id, files });
    noteConflictRerun(state, files);
    lifecycle.requeue(state);
    batch.publish();
    return;
  }
  batch.inFlight.launch('conflict', () => resolveConflict(batch, merger, state, files));
}

/** Waits for a human on a merge conflict without holding up unrelated tasks. */
async function resolveConflict(batch: BatchParts, merger: Merger, state: BatchTaskState, files: string[]): Promise<void> {
  const question = conflictQuestion(state, placeOf(batch.input, batch.state, state.id).repo, files);
  // Unanswered by the deadline, a conflict is skipped like one answered 'skip'.
  const decision = conflictDecision(await batch.desk.ask(question, batch.deadline.remainingMs()));
  if (decision === 'retry') {
    if (cannotRunAgain(batch, state, `a human answered 'retry' to its merge conflict in ${files.join(', ')}`)) return;
    if (batch.patches.rerunsConflicts) noteConflictRerun(state, files);
    lifecycle.requeue(state);
  } else if (decision === 'resolved') {
    await merger.merge(state);
  } else {
    lifecycle.failMerge(state, `merge conflict in ${files.join(', ')}`);
    onFailure(batch, state);
  }
  batch.publish();
}

/**
 * The gates on the integration branch once these tasks merged. Passing (or no worse than before the batch), they
 * complete. Failing, the last of them to merge takes the blame: its first time, it runs one correction round on the
 * new base with the failing tests; after that a human decides. The others complete: their merges came first.
 */
async function verifyMerged(batch: BatchParts, states: BatchTaskState[]): Promise<void> {
  if (states.length === 0) return;
  const { failure } = await batch.verifier.verify(placeOf(batch.input, batch.state, states[0].id));
  const culprit = failure ? states.at(-1) : undefined;
  for (const state of states) {
    if (state === culprit) continue;
    state.integrationFailure = undefined;
    merged(batch, state);
  }
  if (culprit && failure) integrationBroken(batch, culprit, failure);
}

function integrationBroken(batch: BatchParts, state: BatchTaskState, failure: IntegrationFailure): void {
  state.integrationFailure = failure;
  // Worktrees cut for its dependents at this merge hold the broken branch.
  for (const dependent of batch.state.states) if (dependent.dependsOn.includes(state.id)) delete batch.state.prepared[dependent.id];
  log.warn('integration branch fails after a merge', { taskId: state.id, gates: failure.gates });
  if ((state.integrationRounds ?? 0) === 0) {
    if (cannotRunAgain(batch, state, `its merge breaks the integration branch (${failure.gates.join(', ')} fail)`)) return;
    state.integrationRounds = 1;
    lifecycle.requeue(state);
    batch.publish();
    return;
  }
  batch.inFlight.launch('conflict', () => askAboutIntegration(batch, state, failure));
}

/** After its correction round the merge still breaks the gates: a human retries, accepts or fails it. */
async function askAboutIntegration(batch: BatchParts, state: BatchTaskState, failure: IntegrationFailure): Promise<void> {
  const question = integrationQuestion(state, placeOf(batch.input, batch.state, state.id).repo, failure);
  const decision = integrationDecision(await batch.desk.ask(question, batch.deadline.remainingMs()));
  if (decision === 'retry') {
    if (cannotRunAgain(batch, state, `a human answered 'retry' to its merge breaking ${failure.gates.join(', ')}`)) return;
    state.integrationRounds = (state.integrationRounds ?? 0) + 1;
    lifecycle.requeue(state);
  } else if (decision === 'accept') {
    merged(batch, state);
  } else {
    const tests = failure.failures.length ? ` (${failure.failures.join('; ')})` : '';
    lifecycle.failMerge(state, `its merge breaks the integration branch: ${failure.gates.join(', ')} fail${tests}`);
    onFailure(batch, state);
  }
  batch.publish();
}

/**
 * A task that would run again in a batch that is ending, where nothing new starts: it fails instead, saying why, and
 * the failure policy applies (`batchEndingRunsNothingAgain`; before, it went back to pending and the batch waited for
 * ever). Returns whether it did.
 */
function cannotRunAgain(batch: BatchParts, state: BatchTaskState, why: string): boolean {
  if (!batch.patches.endingRunsNothingAgain || !ending(batch.state)) return false;
  lifecycle.failMerge(state, `${why}, but the batch is ending (${batch.state.outcome}) and starts nothing new`);
  onFailure(batch, state);
  return true;
}
