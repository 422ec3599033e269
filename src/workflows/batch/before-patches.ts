import { log } from '@temporalio/workflow';
import type { BatchTaskState } from '../../shared/batch-state.js';
import { applies } from '../common/patches.js';
import { setupActivities } from '../common/setup-activities.js';
import { withoutRepeats } from './answers.js';

/**
 * Everything a batch still does for histories from before one of its patches (see `PATCHES`), in one place: every
 * batch patch is asked here and nowhere else, and the old paths are here too, but for the merges from before
 * `batchMergesTogether`, which are `serial-merges.ts` whole. The rest of the batch asks a flag and takes its new path
 * when it is set. When a patch's `deprecateAfter` has passed, its flag and its old path go, and the `if` that asked
 * keeps its new branch only.
 */
export interface BatchPatches {
  /** The gates run on the integration branch after each merge (`batchVerifiesIntegration`). */
  verifiesIntegration: boolean;
  /** Tasks that finish while a merge runs merge together (`batchMergesTogether`); before, `SerialMerges`. */
  mergesTogether: boolean;
  /** The next merge is asked for while one runs (`batchMergesPipelined`); never while merges are verified. */
  mergesPipelined: boolean;
  /** A re-run's answers come with the child's final report (`batchAnswersFromReports`); before, `readAnswersBeforeRerun`. */
  answersFromReports: boolean;
  /** The batch's own work on a host asks a human past `hostTimeout` (`batchWaitsForHosts`); before, it waited silently. */
  waitsForHosts: boolean;
  /** Each task starts with the PRD, the plan in brief and its dependencies' deliveries (`batchTaskContext`). */
  givesContext: boolean;
  /** A first merge conflict re-runs the task on the new base (`batchConflictReruns`); before, a human was asked. */
  rerunsConflicts: boolean;
  /** Its tasks report a model outage past their retries and it asks once for all (`batchPausesOnOutage`). */
  pausesOnOutage: boolean;
  /** A task's runs add up in its figures and the budget (`batchCountsEveryRun`); before, its last run replaced them. */
  countsEveryRun: boolean;
  /** In a batch that is ending, a task sent to run again fails instead (`batchEndingRunsNothingAgain`); before, it waited for ever. */
  endingRunsNothingAgain: boolean;
  /** A stop's wait for cancelled children counts ends already handled (`batchStopSeesEveryEnd`); before, only the inbox's. */
  stopSeesEveryEnd: boolean;
  /** A task it stops keeps its run's figures from its last report (`batchStopKeepsFigures`); before, only its live spend. */
  stopKeepsFigures: boolean;
  /** A task that failed after breaking the integration branch is reverted there as the batch ends (`batchTakesBackFailedMerges`). */
  takesBackFailedMerges: boolean;
}

/** The patches this run applies, asked in the order the batch has always asked them: a history meets its markers in order. */
export function batchPatches(): BatchPatches {
  const verifiesIntegration = applies('batchVerifiesIntegration');
  const mergesTogether = applies('batchMergesTogether');
  const mergesPipelined = mergesTogether && applies('batchMergesPipelined') && !verifiesIntegration;
  return {
    verifiesIntegration,
    mergesTogether,
    mergesPipelined,
    answersFromReports: applies('batchAnswersFromReports'),
    waitsForHosts: applies('batchWaitsForHosts'),
    givesContext: applies('batchTaskContext'),
    rerunsConflicts: applies('batchConflictReruns'),
    pausesOnOutage: applies('batchPausesOnOutage'),
    countsEveryRun: applies('batchCountsEveryRun'),
    endingRunsNothingAgain: applies('batchEndingRunsNothingAgain'),
    stopSeesEveryEnd: applies('batchStopSeesEveryEnd'),
    stopKeepsFigures: applies('batchStopKeepsFigures'),
    takesBackFailedMerges: applies('batchTakesBackFailedMerges'),
  };
}

/** `batchIdKeepsSuffix`: a batch id past 64 characters used to lose its end (a schedule's time); runs from before keep it. */
export function keptBatchId(derived: string, legacy: string): string {
  return derived === legacy || applies('batchIdKeepsSuffix') ? derived : legacy;
}

/** `batchDeadline`: runs whose history predates deadlines have none. */
export const hasDeadlines = (): boolean => applies('batchDeadline');

/**
 * Before a re-run, for batch runs whose history predates `batchAnswersFromReports`: the answers read from the
 * child's `getState` by an activity (and before `batchRerunKeepsAnswers`, none). Reading them is best effort; a
 * re-run without them is still a re-run.
 */
export async function readAnswersBeforeRerun(state: BatchTaskState): Promise<void> {
  if (!applies('batchRerunKeepsAnswers')) return;
  try {
    const answered = await setupActivities.readAnsweredQuestions.executeWithOptions({ summary: `answers given to ${state.id}` }, [
      state.childWorkflowId,
    ]);
    state.answers = withoutRepeats([...(state.answers ?? []), ...answered]);
  } catch (error) {
    log.warn('re-running without the earlier answers', { taskId: state.id, error: String(error) });
  }
}
