import type { Blocker, RejectedAnswer } from './blockers.js';
import type { Usage } from './conversation.js';
import type { SpendByPurpose } from './models.js';
import type { Plan } from './plan.js';

/** `CodeloopStatus` of a plan: `blocked` while it waits for a review (or for help after invalid plans). */
export type PlanStatus = 'running' | 'blocked' | 'completed' | 'failed' | 'cancelled';

/** `CodeloopPhase` of a plan: exploring and drafting, waiting for the review, done. */
export type PlanPhase = 'exploring' | 'reviewing' | 'done';

/** What `planWorkflow` returns once its plan is approved. */
export interface PlanResult {
  planId: string;
  /** The batch file in the workspace, relative to it: `codeloop/plans/<plan-id>.yaml`. */
  planFile: string;
  plan: Plan;
  /** Set when the input asked to start the batch: the `batchConductorWorkflow` it started. */
  batchWorkflowId?: string;
  /** How many plans were drafted: 1 + the rejections. */
  drafts: number;
  turns: number;
  usage: Usage;
  costUsd: number;
  spendByPurpose: SpendByPurpose;
}

/** What `getState` returns on a `planWorkflow`. */
export interface PlanStateSnapshot {
  kind: 'plan';
  planId: string;
  status: PlanStatus;
  phase: PlanPhase;
  turns: number;
  drafts: number;
  /** The latest valid plan, the one under review once the phase is `reviewing`. */
  plan?: Plan;
  /** The plan as the review question shows it. */
  tree?: string;
  planFile?: string;
  batchWorkflowId?: string;
  usage: Usage;
  costUsd: number;
  spendByPurpose: SpendByPurpose;
  openBlockers: Blocker[];
  answeredBlockers: Blocker[];
  rejectedAnswers: RejectedAnswer[];
}
