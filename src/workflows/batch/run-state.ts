import type { PreparedWorktree } from '../../activities/git/index.js';
import type { BatchInput, BatchTask } from '../../shared/batch-input.js';
import type { BatchResult, BatchTaskState, ChildReport } from '../../shared/batch-state.js';
import type { DeskCarry } from '../common/blocker-desk.js';
import { workflowNow } from '../common/workflow-time.js';
import type { BudgetState } from './budget.js';
import type { IntegrationCarry } from './integration-verification.js';
import { derivedBatchId, workspaceOf, type RepoState, type TaskPlace } from './batch-setup.js';
import { deadlineAt } from './deadline.js';
import { readyOnceMerged } from './scheduler.js';

export type InboxItem = { taskId: string; report: ChildReport };

/**
 * A batch's own state: plain data, carried whole to the next run at continue-as-new, and the source of `getState`
 * and of the result. A new field goes here (optional, for carries from before it) and nowhere else. Its tasks are
 * not here: they are the input's, and the next run gets them as this run read them.
 */
export interface BatchState {
  batchId: string;
  /** Each task's progress through the batch, in input order. */
  states: BatchTaskState[];
  /** Per workspace: the host holding the repository and the batch's integration branch there. */
  repos: Record<string, RepoState>;
  /** Each started task's worktree. */
  worktrees: Record<string, string>;
  /** Worktrees already cut for tasks that became ready at a merge, waiting for a slot. */
  prepared: Record<string, { path: string; branch: string }>;
  /** Child reports received but not yet handled: they must not be lost at the run boundary. */
  inbox: InboxItem[];
  /** This run's number in the chain: 1 + the continue-as-new so far. */
  runs: number;
  startedAt: number;
  /** When the batch stops waiting, fixed by its first run; absent without a deadline. */
  deadlineAt?: number;
  /** How the batch ends, once that is decided (`fail-fast` after a failure, the deadline, the budget, a stop). */
  outcome?: BatchResult['status'];
}

/** The state of the batch's parts that keep their own (blockers, integration verdicts, budget). */
export interface PartsCarry {
  desk: DeskCarry;
  /** The integration branches' gate baselines and latest verdicts (`batchVerifiesIntegration`). */
  integration?: IntegrationCarry;
  /** Running tasks' reported spend and the budget limit acted on; absent without `maxCostUsd`. */
  budget?: BudgetState;
}

/** What a run hands to the next one at continue-as-new. */
export type BatchCarry = BatchState & PartsCarry;

/**
 * This run's state: fresh (with no task yet: `prepareBatch` fills them in; the batch id, unless the input names one,
 * and the deadline asked in that order, as the batch always has), or carried with the run count moved on.
 */
export function startState(input: BatchInput, carry?: BatchCarry): { state: BatchState; parts?: PartsCarry } {
  if (carry) {
    const { desk, integration, budget, ...carried } = carry;
    return { state: { ...carried, runs: carried.runs + 1 }, parts: { desk, integration, budget } };
  }
  const batchId = input.batchId ?? derivedBatchId();
  const startedAt = workflowNow();
  const state = { batchId, states: [], repos: {}, worktrees: {}, prepared: {}, inbox: [], runs: 1, startedAt };
  return { state: { ...state, deadlineAt: deadlineAt(input, startedAt) } };
}

export const taskOf = (input: BatchInput, taskId: string): BatchTask => input.tasks.find((task) => task.id === taskId)!;

export const stateOf = (state: BatchState, taskId: string): BatchTaskState | undefined =>
  state.states.find((candidate) => candidate.id === taskId);

export function placeOf(input: BatchInput, state: BatchState, taskId: string): TaskPlace {
  const task = taskOf(input, taskId);
  return { ...state.repos[workspaceOf(input, task)], worktree: state.worktrees[taskId], title: task.title };
}

/** `fail-fast` after a failure, past the deadline, at the budget, or stopped after a model outage: nothing new starts. */
export function ending(state: BatchState): boolean {
  const { outcome } = state;
  return outcome === 'failed' || outcome === 'deadline' || outcome === 'budget' || outcome === 'cancelled';
}

/** Worktrees a merge cut for the tasks it made ready, kept until each task gets a slot. */
export function keepPrepared(state: BatchState, worktrees: PreparedWorktree[]): void {
  for (const worktree of worktrees) state.prepared[worktree.taskId] = worktree;
}

/** The pending tasks of the same repository that merging `group` makes ready (see `readyOnceMerged`), to cut at once. */
export function readyToCut(input: BatchInput, state: BatchState, group: string[]): { taskId: string; after: string[] }[] {
  const workspace = workspaceOf(input, taskOf(input, group[0]));
  const ready = readyOnceMerged(state.states, group, input.onFailure);
  return ready.filter(({ taskId }) => workspaceOf(input, taskOf(input, taskId)) === workspace);
}
