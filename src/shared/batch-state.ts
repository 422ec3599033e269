import type { AnsweredQuestion, Blocker, RejectedAnswer } from './blockers.js';
import type { Usage } from './conversation.js';
import type { BatchInput } from './batch-input.js';
import type { Verification } from './gates.js';
import type { SpendByPurpose } from './models.js';
import type { Delivery, InterfaceMismatch } from './delivery.js';

/** What the gates say on a batch's integration branch after its latest merge (see `verificationOf`). */
export type IntegrationStatus = Verification;

/** Gates a merge made fail on the integration branch, with their failing tests and the first failure's text. */
export interface IntegrationFailure {
  gates: string[];
  failures: string[];
  summary: string;
}
import type { NotificationOutcome, PublishedBranch } from './mornings.js';

export type BatchTaskStatus = 'pending' | 'running' | 'merging' | 'completed' | 'failed' | 'skipped' | 'cancelled';

/** One task of a batch as the conductor sees it. */
export interface BatchTaskState {
  id: string;
  title: string;
  dependsOn: string[];
  status: BatchTaskStatus;
  childWorkflowId: string;
  branch?: string;
  attempts: number;
  readyAt?: number;
  startedAt?: number;
  /** When the child's own end was reported, before its work was committed and merged. */
  finishedAt?: number;
  /** When the task ended in the batch: merged, or failed, skipped or cancelled. */
  endedAt?: number;
  iterations?: number;
  usage?: Usage;
  costUsd?: number;
  spendByPurpose?: SpendByPurpose;
  reason?: string;
  /** The questions the task was still waiting on when the batch's deadline stopped it. */
  waitingFor?: { id: string; question: string }[];
  /** Open questions of the running child, reported by the child itself. */
  blockedOn?: { id: string; question: string }[];
  /** What humans answered the task's earlier runs; a re-run starts with them in its prompt. */
  answers?: AnsweredQuestion[];
  /** What the task's gates said, as it reported its end; why, when it was not verified. */
  verification?: Verification;
  unverifiedBecause?: string[];
  /** Its questions that did not stop it, for a human to read. */
  openQuestions?: string[];
  /** The model's own summary of the work, as the child reported it. */
  summary?: string;
  /** What its merge brought, read from the code; its dependents are told. */
  delivered?: Delivery;
  /** Its `provides` entries the code does not hold as declared. */
  interfaceMismatches?: InterfaceMismatch[];
  /** What failed on the integration branch after its merge; its correction round is told. Cleared once verified. */
  integrationFailure?: IntegrationFailure;
  /** Correction rounds it ran because its merge broke the integration branch. */
  integrationRounds?: number;
  /**
   * Its re-runs on a new base after its merge conflicted, each with the files that conflicted: the first is the
   * batch's own, later ones come from a human's 'retry'.
   */
  conflictReruns?: ConflictRerun[];
  /** Set while a re-run after a conflict is starting or running, so its prompt names the files; cleared when it ends. */
  rerunningAfterConflict?: boolean;
  /** The batch's own question this running task waits on (its blocker id): a model outage past the task's retries. */
  pausedOn?: string;
}

/** One re-run of a task on a new base because its merge conflicted in `files`. */
export interface ConflictRerun {
  files: string[];
}

/**
 * What a child task tells its batch: blockers opening and closing, and how it ended, with the questions humans
 * answered it so that a re-run of the task starts with them (a child older than `answered` sends none).
 */
export type ChildReport =
  | { kind: 'blockers'; workflowId: string; open: { id: string; question: string }[] }
  | { kind: 'spend'; workflowId: string; costUsd: number; spendByPurpose: SpendByPurpose }
  /** The model API failed past the task's retries; the task waits for the batch to answer (`reportOutage`). */
  | { kind: 'outage'; workflowId: string; message: string }
  | {
      kind: 'finished';
      workflowId: string;
      status: 'completed' | 'failed' | 'cancelled';
      iterations: number;
      usage: Usage;
      costUsd: number;
      spendByPurpose?: SpendByPurpose;
      reason?: string;
      answered?: AnsweredQuestion[];
      verification?: Verification;
      unverifiedBecause?: string[];
      openQuestions?: string[];
      /** The model's final summary of completed work. */
      summary?: string;
    };

/** A child's end, as the batch reads it. */
export type FinishedReport = Extract<ChildReport, { kind: 'finished' }>;

export interface BatchStateSnapshot {
  batchId: string;
  status: 'running' | 'blocked' | 'completed' | 'failed' | 'cancelled' | 'deadline' | 'budget';
  onFailure: BatchInput['onFailure'];
  maxParallel: number;
  integrationBranch?: string;
  tasks: BatchTaskState[];
  counts: Record<BatchTaskStatus, number>;
  openBlockers: Blocker[];
  answeredBlockers: Blocker[];
  rejectedAnswers: RejectedAnswer[];
  runs: number;
  /** What the gates say on the integration branch after the latest merge; absent for runs from before it was verified. */
  integration?: IntegrationStatus;
  /** What the batch has spent against its `maxCostUsd`, when it has one. */
  budget?: BudgetReport;
}

/** A batch's spend against its `maxCostUsd`: what its tasks spent (running ones included), by purpose. */
export interface BudgetReport {
  softUsd: number;
  hardUsd: number;
  spentUsd: number;
  byPurpose: SpendByPurpose;
  /** Which limit the batch reached: at `soft` no new task started, at `hard` running tasks were cancelled too. */
  reached?: 'soft' | 'hard';
}

export interface BatchResult {
  batchId: string;
  /** `deadline`: the batch stopped at its deadline, with tasks still running or waiting (see each task's `waitingFor`). */
  status: 'completed' | 'failed' | 'cancelled' | 'deadline' | 'budget';
  /** The deadline the batch ran under, e.g. `8h`. */
  deadline?: string;
  integrationBranch?: string;
  tasks: (Pick<
    BatchTaskState,
    | 'id'
    | 'title'
    | 'status'
    | 'branch'
    | 'iterations'
    | 'usage'
    | 'costUsd'
    | 'spendByPurpose'
    | 'reason'
    | 'attempts'
    | 'waitingFor'
    | 'verification'
    | 'unverifiedBecause'
    | 'openQuestions'
    | 'interfaceMismatches'
    | 'integrationFailure'
    | 'conflictReruns'
    | 'summary'
  > & {
    startedAt?: string;
    endedAt?: string;
    durationMs?: number;
  })[];
  totals: { tasks: Record<BatchTaskStatus, number>; usage: Usage; costUsd: number; spendByPurpose?: SpendByPurpose };
  criticalPath: { ids: string[]; durationMs: number };
  makespanMs: number;
  runs: number;
  /**
   * What the gates say on the integration branch after the last merge: `verified`, `failed` (see each task's
   * `integrationFailure`), or `unverified` (no gate could say anything, or nothing merged). Absent for runs from
   * before it was verified.
   */
  integration?: IntegrationStatus;
  /** `budget` status: the batch reached its `maxCostUsd`; here with what was spent by purpose. */
  budget?: BudgetReport;
  /** Branches pushed and pull requests opened or updated by `publish`. */
  published?: PublishedBranch[];
  /** The morning message's delivery to each `notify` target; a failure here never failed the batch. */
  notifications?: NotificationOutcome[];
}
