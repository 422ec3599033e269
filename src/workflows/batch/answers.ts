import { log } from '@temporalio/workflow';
import type { BatchTaskState, FinishedReport } from '../../shared/batch-state.js';
import type { AnsweredQuestion } from '../../shared/blockers.js';
import { applies } from '../common/patches.js';

import { setupActivities } from '../common/setup-activities.js';

/** What humans answered a task's runs so far, kept for its next run: a re-run does not ask again. */
export function addReportedAnswers(state: BatchTaskState, report: FinishedReport): void {
  if (report.answered?.length) state.answers = withoutRepeats([...(state.answers ?? []), ...report.answered]);
}

/**
 * Before a re-run, for batch runs whose history predates `batchAnswersFromReports`: the answers read from the
 * child's `getState` by an activity. Reading them is best effort; a re-run without them is still a re-run.
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

function withoutRepeats(answers: AnsweredQuestion[]): AnsweredQuestion[] {
  const seen = new Set<string>();
  return answers.filter(({ question, answer }) => {
    const key = JSON.stringify([question, answer]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
