/** A codeloop branch as `gc` sees it. */
export interface GcBranch {
  branch: string;
  /** Its tip's commit time, in ms. */
  committedAt: number;
  /** Its tip is in the base branch. */
  merged: boolean;
  /** An open pull request has it as its head. */
  openPullRequest: boolean;
  /** The worktree that has it checked out, if any. */
  worktree?: string;
}

export interface GcDecision {
  branch: string;
  why: string;
  worktree?: string;
}

/**
 * What `codeloop gc` removes: codeloop branches merged into the base, and unmerged ones abandoned for longer than
 * `olderThanMs`. Never a branch with an open pull request, nor unmerged work younger than the limit.
 */
export function planGc(branches: GcBranch[], olderThanMs: number, now: number): { remove: GcDecision[]; keep: GcDecision[] } {
  const remove: GcDecision[] = [];
  const keep: GcDecision[] = [];
  for (const branch of branches) {
    const worktree = branch.worktree ? { worktree: branch.worktree } : {};
    const ageDays = Math.floor((now - branch.committedAt) / 86_400_000);
    if (branch.openPullRequest) keep.push({ branch: branch.branch, why: 'has an open pull request', ...worktree });
    else if (branch.merged) remove.push({ branch: branch.branch, why: 'merged', ...worktree });
    else if (now - branch.committedAt > olderThanMs)
      remove.push({ branch: branch.branch, why: `unmerged, untouched for ${ageDays} days`, ...worktree });
    else keep.push({ branch: branch.branch, why: `unmerged work from ${ageDays} days ago`, ...worktree });
  }
  return { remove, keep };
}
