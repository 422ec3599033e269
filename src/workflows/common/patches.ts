import { deprecatePatch, patched } from '@temporalio/workflow';

interface Patch {
  /** The marker recorded in histories: never change it once released. */
  id: string;
  /** The day the change shipped. */
  added: string;
  /**
   * From when no open run can still hold a history from before the change: then `deprecate` replaces `applies` for
   * one release, and after that the old branch and the entry go.
   */
  deprecateAfter: string;
}

/**
 * Every change to workflow code that would replay differently on an existing history, in one place. A task or a
 * batch may wait for a human for up to 30 days (the longest `blockerTimeout` operators use) and scheduled batches
 * start new runs nightly, so each patch is kept for at least 30 days after it shipped.
 */
export const PATCHES = {
  /** Compaction of a short conversation masks only the first exchange, never what the model just read. */
  compactionKeepsLatestExchanges: { id: 'compaction-keeps-latest-exchanges', added: '2026-11-22', deprecateAfter: '2026-12-22' },
  /** The summariser's model call is checked against the spend caps like any other. */
  summaryChecksSpendCaps: { id: 'summary-checks-spend-caps', added: '2026-11-22', deprecateAfter: '2026-12-22' },
  /** A re-run batch task starts with the answers its earlier runs were given. */
  batchRerunKeepsAnswers: { id: 'batch-rerun-keeps-answers', added: '2026-11-22', deprecateAfter: '2026-12-22' },
  /** A scheduled batch's id keeps its time suffix however long the schedule name. */
  batchIdKeepsSuffix: { id: 'batch-id-keeps-suffix', added: '2026-11-22', deprecateAfter: '2026-12-22' },
  /** Tasks that finish while a merge runs are merged together by the next `integrateTasks`, not one activity each. */
  batchMergesTogether: { id: 'batch-merges-together', added: '2026-11-24', deprecateAfter: '2026-12-24' },
  /** A batch with a deadline (its own, or 8h when a schedule started it) stops waiting at it. */
  batchDeadline: { id: 'batch-deadline', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** A task in a git repository works on a branch of its own in a worktree, with a commit per changing iteration. */
  taskGitBranch: { id: 'task-git-branch', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** A re-run batch task starts with the answers its child's final report carried; no activity queries the child. */
  batchAnswersFromReports: { id: 'batch-answers-from-reports', added: '2026-11-24', deprecateAfter: '2026-12-24' },
  /** A task runs its gates once before it starts, and is judged at the end against what already failed. */
  gateBaseline: { id: 'gate-baseline', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** A final text that says the work cannot go on ("I cannot proceed without the API key.") asks a human, as a question does. */
  finalStatements: { id: 'final-statements', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** A task binds and describes its workspace in one activity (`openWorkspace`), one round trip fewer. */
  taskOpensWorkspaceOnce: { id: 'task-opens-workspace-once', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** The next merge activity of a repository is asked for while the one before it runs; its host runs them in turn. */
  batchMergesPipelined: { id: 'batch-merges-pipelined', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** The batch's own work on a host (binding, integration branch, worktrees, merges) asks a human past `hostTimeout`. */
  batchWaitsForHosts: { id: 'batch-waits-for-hosts', added: '2026-11-25', deprecateAfter: '2026-12-25' },
  /** `approval: "risky"` holds code it cannot read: inline code, scripts, package runners, git remotes, code variables. */
  approvalHoldsUnreadCode: { id: 'approval-holds-unread-code', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /**
   * Guards judge progress, not call counts: parallel reads and failing exploratory commands never stall or escalate
   * a task; repeated failures of the same check after changes do, and so do turns that bring nothing new.
   */
  progressGuards: { id: 'progress-guards', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /**
   * A final turn runs the gates first: finished work whose gates pass completes with its questions kept open; one that
   * says it lacks something asks a human only while nothing changed or the gates fail.
   */
  finalQuestionsAfterGates: { id: 'final-questions-after-gates', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** A task surveys its sandbox when it starts, and its prompt says what is installed, the network, the gates and the budget. */
  truthfulProjectView: { id: 'truthful-project-view', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** A failing summary or planning call falls back to the default model, then asks a human, instead of failing the run. */
  sideCallsRecover: { id: 'side-calls-recover', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** A task whose codeloop.json asks for setup, named files, services or a network of its own gets them before its first turn. */
  taskEnvironment: { id: 'task-environment', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** A batch task's merge is read for what it delivered; each task starts with the PRD, the plan and its dependencies' deliveries. */
  batchTaskContext: { id: 'batch-task-context', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** Planning compacts its conversation and keeps within spend caps before each model call, as a task does. */
  planRunGuards: { id: 'plan-run-guards', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** The gates run on the integration branch after each merge; a merge that breaks them fails its task, with one correction round. */
  batchVerifiesIntegration: { id: 'batch-verifies-integration', added: '2026-11-26', deprecateAfter: '2026-12-26' },
  /** A batch task whose merge conflicts is re-run once on the new base, told which files conflicted, before a human is asked. */
  batchConflictReruns: { id: 'batch-conflict-reruns', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A model outage past a batch task's retries pauses the batch: the task reports it and waits, and the batch asks one
   * question (`retry` / `stop`) for all of its tasks instead of each task asking its own.
   */
  batchPausesOnOutage: { id: 'batch-pauses-on-outage', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A batch task that runs again (a retry, a correction round, a re-run after a conflict) adds each run's iterations,
   * usage and spend to the earlier runs' instead of replacing them, so the batch's totals and `maxCostUsd` count them all.
   */
  batchCountsEveryRun: { id: 'batch-counts-every-run', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A batch that is ending (`fail-fast` after a failure, its budget, a stop) starts nothing new, so a task it would
   * run again (a conflict or broken merge answered 'retry', a first correction round, `retryTask`) fails, saying why,
   * instead of waiting as pending for a start that never comes.
   */
  batchEndingRunsNothingAgain: { id: 'batch-ending-runs-nothing-again', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A side call (a compaction summary) that fails past its retries on both models in a batch that pauses on a model
   * outage waits for the batch's one question, as the agent's own calls do, instead of asking a human of its own.
   */
  sideCallsWaitForBatch: { id: 'side-calls-wait-for-batch', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A batch stopped after a model outage waits for its cancelled children's ends, whether or not its main loop has
   * already taken them from the inbox; it used to see only those still in the inbox, and then waited out the minute.
   */
  batchStopSeesEveryEnd: { id: 'batch-stop-sees-every-end', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * A task the batch stops (its deadline, its hard budget, a stop after an outage, a cancel) keeps what its run used:
   * the iterations, usage and spend its child reports as it stops, or, if it says nothing within the stop's minute,
   * the spend it last reported. Before, its report was ignored, and without a budget its figures were lost.
   */
  batchStopKeepsFigures: { id: 'batch-stop-keeps-figures', added: '2026-11-27', deprecateAfter: '2026-12-27' },
  /**
   * As a batch ends, a task that failed after its merge broke the integration branch has its merges reverted there and
   * the branch's gates run again, so what is published holds only work that stands. Before, the failed work stayed.
   */
  batchTakesBackFailedMerges: { id: 'batch-takes-back-failed-merges', added: '2026-11-27', deprecateAfter: '2026-12-27' },
} as const satisfies Record<string, Patch>;

export type PatchName = keyof typeof PATCHES;

/** Whether this run takes the new code path: always for new runs, and for replays of histories that took it. */
export function applies(name: PatchName): boolean {
  return patched(PATCHES[name].id);
}

/** The step after `deprecateAfter`: the new path only, still marking histories so both old and new replay. */
export function deprecate(name: PatchName): void {
  deprecatePatch(PATCHES[name].id);
}
