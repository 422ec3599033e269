import type { BatchTaskState } from '../../shared/batch-state.js';

/**
 * Whether a conflict is the batch's to settle alone: a task's first conflicting merge is re-run on the new base,
 * because the base moving under it is the usual cause and a fresh run there usually merges. Once a re-run conflicts
 * too, the conflict is real and a human decides.
 */
export const rerunsAlone = (state: BatchTaskState): boolean => (state.conflictReruns?.length ?? 0) === 0;

/**
 * Marks the task's next run as a re-run after a conflict in `files`: its worktree is cut afresh from the integration
 * branch (it has run before), and its prompt names the files (see `conflictBrief`).
 */
export function noteConflictRerun(state: BatchTaskState, files: string[]): void {
  state.conflictReruns = [...(state.conflictReruns ?? []), { files }];
  state.rerunningAfterConflict = true;
}

/**
 * What a task re-run after a conflict is told: its earlier work did not merge, the branch moved under it, and which
 * files collided, so it reads what the other tasks left there before it changes them again.
 */
export function conflictBrief(state: BatchTaskState): string | undefined {
  const files = state.rerunningAfterConflict ? state.conflictReruns?.at(-1)?.files : undefined;
  if (!files) return undefined;
  return [
    '## Re-run on a new base: your earlier run of this task did not merge',
    `Your earlier run finished, but merging its branch into the batch's integration branch conflicted in: ${files.join(', ')}. ` +
      'Other tasks of the batch changed those files meanwhile: the base moved. This worktree starts afresh from the integration branch as it now is, with their work and without yours.',
    'Do the task again on this base. Read the conflicting files first, keep what the other tasks put there, and make your change fit with it; then reply with your summary.',
  ].join('\n\n');
}
