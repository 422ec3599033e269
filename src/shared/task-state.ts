import type { Blocker, RejectedAnswer } from './blockers.js';
import type { CommandAccess, SandboxMode } from './command-access.js';
import type { Usage } from './conversation.js';
import type { GateResult, Verification } from './gates.js';
import type { TaskGit } from './git-trail.js';
import type { SpendByPurpose } from './models.js';

/** `CodeloopStatus` values. */
export type TaskStatus = 'running' | 'blocked' | 'completed' | 'failed' | 'cancelled';

/** `CodeloopPhase` values: what the agent is doing now. */
export type TaskPhase = 'starting' | 'exploring' | 'creating' | 'editing' | 'testing' | 'verifying' | 'blocked' | 'done';

/** One compaction: which tier it took, and the conversation's estimated size before and after. */
export interface CompactionRecord {
  iteration: number;
  tier: 1 | 2 | 3;
  tokensBefore: number;
  tokensAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The tier-3 summary call's cost; tiers 1 and 2 call no model. */
  summaryCostUsd: number;
}

/** The result of `agentTaskWorkflow`, also attached as details when the task fails. */
export interface TaskResult {
  status: 'completed' | 'failed';
  /** Why it failed, e.g. `budget_exhausted`. */
  reason?: string;
  /** The model's final text, or what went wrong. */
  summary: string;
  iterations: number;
  filesChanged: string[];
  usage: Usage;
  costUsd: number;
  /** The same usage and cost by purpose: the agent's own turns (`default`) and compaction summaries (`summary`). */
  spendByPurpose?: SpendByPurpose;
  /** The final verification gates, as last run. */
  gates: GateResult[];
  /**
   * What the gates say about the work: `verified`, `failed`, or `unverified` when one could not say anything (its
   * program is not installed, it ran no test) or there were none; each gate's `unverified` says why. Results from
   * before this field existed have none.
   */
  verification?: Verification;
  /**
   * Questions the agent's final turns asked that did not need to stop the task (finished work whose gates pass), for
   * a human to read in the morning. Results from before this field existed have none.
   */
  openQuestions?: string[];
  elapsedMs: number;
  /** How many runs the chain took: 1 + the number of continue-as-new. */
  runs: number;
  /** Whether the worker ran the task's commands in its sandbox (`off` only with `CODELOOP_SANDBOX=off`). */
  sandbox?: SandboxMode;
  /** The task's branch, its checkpoints and, once it ended, its commits and diffstat (`git: "branch"`). */
  git?: TaskGit;
}

/** What `getState` returns. */
export interface TaskStateSnapshot {
  title: string;
  status: TaskStatus;
  phase: TaskPhase;
  iteration: number;
  maxIterations: number;
  usage: Usage;
  costUsd: number;
  spendByPurpose?: SpendByPurpose;
  filesChanged: string[];
  lastStep?: string;
  /** The plan the agent gave before changing anything (complex or greenfield tasks). */
  outline?: string;
  gates: GateResult[];
  /** Questions of final turns that did not need to stop the task; see `TaskResult.openQuestions`. */
  openQuestions: string[];
  correctionRounds: number;
  compactions: number;
  compactionLog: CompactionRecord[];
  hostId?: string;
  /** Whether the workspace's worker runs the task's commands in its sandbox; known once the workspace is bound. */
  sandbox?: SandboxMode;
  git?: TaskGit;
  /** Whether the task's commands may use the network (its `network` input). */
  network: CommandAccess['network'];
  runs: number;
  startedAt: string;
  openBlockers: Blocker[];
  /** A batch task waiting out a model outage: its batch asks the question (see the batch's open blockers). */
  waitingForBatch?: string;
  answeredBlockers: Blocker[];
  /** Answers the workflow refused (unknown id, empty, ambiguous), with the reason. */
  rejectedAnswers: RejectedAnswer[];
  result?: TaskResult;
}
