/** Where a task works when it has a branch of its own (`git: "branch"`), all paths on the worker host. */
export interface GitTrail {
  /** The repository's top directory: the user's checkout, which the task never changes. */
  repo: string;
  /** The task's worktree, removed when the task ends; the branch stays. */
  worktree: string;
  /** The task's workspace inside the worktree (the worktree itself unless the workspace was below the top). */
  workspace: string;
  /** `codeloop/task/<task-id>`. */
  branch: string;
  /** The commit the branch was cut from: the checkout's `HEAD` when the task started. */
  base: string;
}

/** The branch once the task has ended. */
export interface GitTrailEnd {
  head: string;
  /** Commits on the branch since `base`: the checkpoints and the final commit. */
  commits: number;
  /** `git diff --shortstat` from `base`, e.g. `2 files changed, 14 insertions(+), 3 deletions(-)`. */
  diffstat: string;
}

/** A task's git trail as `getState` and the result show it. */
export interface TaskGit extends GitTrail {
  /** One commit per iteration that changed files, to roll back to with `codeloop task rollback --to N`. */
  checkpoints: { iteration: number; commit: string }[];
  end?: GitTrailEnd;
}
