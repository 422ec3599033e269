import type { BatchRepo } from '../../activities/git/index.js';
import type { BatchTaskState, IntegrationFailure } from '../../shared/batch-state.js';
import type { BlockerOrigin } from '../../shared/blockers.js';

export type IntegrationDecision = 'retry' | 'accept' | 'fail';

/**
 * The blocker a merge raises when the integration branch still fails after the task's correction round: another
 * round on the current branch, keep the merge as it is (the branch stays failed), or fail the task.
 */
export function integrationQuestion(
  state: BatchTaskState,
  repo: BatchRepo,
  failure: IntegrationFailure,
): { origin: BlockerOrigin; question: string; options: string[] } {
  const tests = failure.failures.length ? ` (${failure.failures.join('; ')})` : '';
  return {
    origin: 'integration',
    question:
      `After merging task ${state.id} into ${repo.integrationBranch}, its gates still fail there after a correction round: ` +
      `${failure.gates.join(', ')}${tests}.\n${failure.summary}\n` +
      `Answer 'retry' to run the task again on the current integration branch, 'accept' to keep the merge as it is ` +
      `(the integration branch stays failed), or 'fail' to fail the task and skip its dependents (its merges are reverted as the batch ends).`,
    options: ['retry', 'accept', 'fail'],
  };
}

/** What the answer asks for; no answer, or one that is none of the options, fails the task. */
export function integrationDecision(outcome: { answered: true; answer: string } | { answered: false }): IntegrationDecision {
  const answer = outcome.answered ? outcome.answer.trim().toLowerCase() : 'fail';
  if (answer.startsWith('retry')) return 'retry';
  return answer.startsWith('accept') ? 'accept' : 'fail';
}
