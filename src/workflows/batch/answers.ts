import type { BatchTaskState, FinishedReport } from '../../shared/batch-state.js';
import type { AnsweredQuestion } from '../../shared/blockers.js';

/** What humans answered a task's runs so far, kept for its next run: a re-run does not ask again. */
export function addReportedAnswers(state: BatchTaskState, report: FinishedReport): void {
  if (report.answered?.length) state.answers = withoutRepeats([...(state.answers ?? []), ...report.answered]);
}

/** Each answer once, the first time it was given first. */
export function withoutRepeats(answers: AnsweredQuestion[]): AnsweredQuestion[] {
  const seen = new Set<string>();
  return answers.filter(({ question, answer }) => {
    const key = JSON.stringify([question, answer]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
