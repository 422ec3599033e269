import type { WorkspaceBinding } from '../../activities/index.js';
import type { Message } from '../../shared/conversation.js';
import type { TaskGit } from '../../shared/git-trail.js';
import { MAX_CORRECTION_ROUNDS } from '../../shared/gates.js';
import type { ProjectContext } from '../../shared/project-context.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { CompactionRecord, TaskPhase, TaskResult } from '../../shared/task-state.js';
import { workflowNow } from '../common/workflow-time.js';
import type { DeskCarry } from '../common/blocker-desk.js';
import type { GuardsCarry } from './guards.js';
import type { SpendCarry } from '../common/spend.js';
import type { VerifierCarry } from './verifier.js';
import type { TaskEnvironmentState } from './task-environment.js';

/**
 * A task's own state: plain data, carried whole to the next run at continue-as-new, and the source of `getState`
 * and of the result. A new field goes here and into `freshState`, and nowhere else.
 */
export interface RunState {
  /** The host holding the workspace; set by the first run. */
  binding?: WorkspaceBinding;
  project?: ProjectContext;
  messages: Message[];
  iteration: number;
  /** Iterations a human granted beyond `maxIterations`. */
  grantedIterations: number;
  /** In the order first changed; reported sorted. */
  filesChanged: string[];
  phase: TaskPhase;
  lastStep?: string;
  /** This run's number in the chain: 1 + the continue-as-new so far. */
  runs: number;
  correctionRounds: number;
  maxCorrectionRounds: number;
  outline?: string;
  compactionLog: CompactionRecord[];
  /** The model that answered last; the input's until one has. */
  model?: string;
  /** Workflow time of the last successful tool call or answered blocker, for the stall watch. */
  lastProgressAt: number;
  stallRetries: number;
  /** The task's branch and worktree, when it works on a branch of its own (`git: "branch"` in a repository). */
  git?: TaskGit;
  /** Questions of final turns that did not need to stop the task, in the order asked (absent in older runs' carry). */
  openQuestions?: string[];
  /** Whether the agent was told, once, that some gates could not say anything about its work. */
  toldUnverified?: boolean;
  /** The task's environment (setup, services, named files, its network), when `codeloop.json` asks for one. */
  environment?: TaskEnvironmentState;
  /** Set once the task ends. */
  result?: TaskResult;
}

/** The state of the run's parts that keep their own (blockers, spend, guards, gates). */
export interface PartsCarry {
  desk: DeskCarry;
  spend: SpendCarry;
  guards: GuardsCarry;
  verifier: VerifierCarry;
}

/** What a run hands to the next one at continue-as-new. */
export type TaskCarry = RunState & PartsCarry;

/** `agentTaskWorkflow`'s signature, for continue-as-new without importing the workflow back. */
export type TaskWorkflow = (rawInput: unknown, carry?: TaskCarry) => Promise<TaskResult>;

function freshState(input: TaskInput): RunState {
  return {
    messages: [],
    iteration: 0,
    grantedIterations: 0,
    filesChanged: [],
    phase: 'starting',
    runs: 0,
    correctionRounds: 0,
    maxCorrectionRounds: MAX_CORRECTION_ROUNDS,
    compactionLog: [],
    model: input.model,
    lastProgressAt: workflowNow(),
    stallRetries: 0,
  };
}

/** This run's state: fresh, or carried from the run before with the run count moved on. */
export function startState(input: TaskInput, carry?: TaskCarry): { state: RunState; parts?: PartsCarry } {
  if (!carry) return { state: { ...freshState(input), runs: 1 } };
  const { desk, spend, guards, verifier, ...carried } = carry;
  return { state: { ...freshState(input), ...carried, runs: carried.runs + 1 }, parts: { desk, spend, guards, verifier } };
}

/** Records a file the agent changed, once. */
export function noteChangedFile(state: RunState, file: string): void {
  if (!state.filesChanged.includes(file)) state.filesChanged.push(file);
}

/** Keeps a final turn's questions that no human was asked, each once. */
export function noteOpenQuestions(state: RunState, questions: string[]): void {
  const open = state.openQuestions ?? [];
  state.openQuestions = [...open, ...questions.filter((question) => !open.includes(question))];
}

/** The iteration budget now: the input's, plus whatever humans granted. */
export function iterationBudget(input: TaskInput, state: RunState): number {
  return input.maxIterations + state.grantedIterations;
}

/** A user message of plain text: what a human answered, or a nudge to go on. */
export function pushUserText(state: RunState, text: string): void {
  state.messages.push({ role: 'user', content: [{ type: 'text', text }] });
}
