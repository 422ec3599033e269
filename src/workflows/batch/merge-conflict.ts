import type { BatchRepo } from '../../activities/git/index.js';
import type { BatchTaskState } from '../../shared/batch-state.js';
import type { BlockerOrigin } from '../../shared/blockers.js';

export type ConflictDecision = 'resolved' | 'retry' | 'skip';

/**
 * The blocker a merge conflict raises on the batch: the human resolves it in the integration worktree, re-runs the
 * task on the new base, or fails it.
 */
export function conflictQuestion(
  state: BatchTaskState,
  repo: BatchRepo,
  files: string[],
): { origin: BlockerOrigin; question: string; options: string[] } {
  return {
    origin: 'merge-conflict',
    question:
      `Merging task ${state.id} (${state.branch}) into ${repo.integrationBranch} conflicts in: ${files.join(', ')}.\n` +
      (state.conflictReruns?.length ? `This is its re-run on a new base after an earlier conflict: the conflict is real.\n` : '') +
      `Resolve it by merging ${state.branch} in ${repo.integrationPath} and committing, then answer 'resolved'; ` +
      `or answer 'retry' to re-run the task on the current integration branch, or 'skip' to fail it.`,
    options: ['resolved', 'retry', 'skip'],
  };
}

/** What the answer asks for; no answer, or one that is none of the options, skips. */
export function conflictDecision(outcome: { answered: true; answer: string } | { answered: false }): ConflictDecision {
  const answer = outcome.answered ? outcome.answer.trim().toLowerCase() : 'skip';
  if (answer.startsWith('retry')) return 'retry';
  return answer.startsWith('resolved') ? 'resolved' : 'skip';
}
