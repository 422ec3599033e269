import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import type { Blocker } from '../../shared/blockers.js';
import type { ToolUseBlock } from '../../shared/conversation.js';
import { ErrorType } from '../../shared/errors.js';
import type { SpendByPurpose } from '../../shared/models.js';
import { verificationOf } from '../../shared/gates.js';
import { extractOutline } from './outline.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { TaskResult, TaskStateSnapshot, TaskStatus } from '../../shared/task-state.js';
import { applies } from '../common/patches.js';
import { workflowNow } from '../common/workflow-time.js';
import { hostLostQuestion, type HostWait } from '../common/host-wait.js';
import { approveCommand } from './approval.js';
import { hasHostEnvironment, stopTaskEnvironment } from './task-environment.js';
import { BlockerDesk, type BlockerSpec } from '../common/blocker-desk.js';
import { finalText } from '../common/compaction.js';
import { Guards, type GuardVerdict } from './guards.js';
import { fileCountOf, readTurnBudget } from './progress-watch.js';
import type { BatchOutageWait } from './batch-outage.js';
import type { UsedSoFar } from './parent-report.js';
import { phaseOf } from './phase.js';
import { askForGuidance } from './policies.js';
import {
  iterationBudget,
  noteChangedFile,
  pushUserText,
  startState,
  type RunState,
  type TaskCarry,
  type TaskWorkflow,
} from './run-state.js';
import { Spend } from '../common/spend.js';
import { countIteration } from '../common/metrics.js';
import { executeToolCalls, toToolResults, type ToolTarget } from '../common/tool-calls.js';
import { Verifier } from './verifier.js';
import { SearchAttributeTracker } from '../common/search-attributes.js';
import { TaskTrail } from './task-trail.js';
import { publishCurrentDetails } from './visibility.js';
import type { TaskParts } from './task-parts.js';
import { prepareTask, systemPromptOf } from './task-prepare.js';
import { beforeModelCall, callModel } from './model-turns.js';
import { finishTurn } from './task-finish.js';

/** One run of a task: the ReAct loop over one `RunState`, its guards, and the state `getState` reports. */
export class TaskRun implements TaskParts {
  readonly state: RunState;
  private terminal?: TaskStatus;
  system = '';
  readonly desk: BlockerDesk;
  readonly spend: Spend;
  readonly guards: Guards;
  readonly verifier: Verifier;
  private readonly searchAttributes = new SearchAttributeTracker();
  readonly trail = new TaskTrail(
    () => this.state,
    (hostId) => this.hostWait(hostId),
  );

  constructor(
    readonly input: TaskInput,
    carry?: TaskCarry,
    private readonly onBlockersChanged: (open: Blocker[]) => void = () => undefined,
    onSpend?: (spend: { costUsd: number; byPurpose: SpendByPurpose }) => void,
    /** In a batch that pauses on a model outage, where an outage past the retries goes instead of a blocker. */
    readonly outage?: BatchOutageWait,
  ) {
    const { state, parts } = startState(input, carry);
    this.state = state;
    this.desk = new BlockerDesk(parts?.desk, () => {
      this.publish();
      this.onBlockersChanged(this.desk.open());
    });
    this.spend = new Spend(parts?.spend, input, onSpend);
    this.guards = new Guards(parts?.guards);
    this.verifier = new Verifier(parts?.verifier);
    if (state.project) this.system = systemPromptOf(this, state.project);
  }

  async execute(): Promise<TaskResult> {
    this.publish();
    const target = await prepareTask(this);
    for (;;) {
      await beforeModelCall(this);
      this.state.iteration += 1;
      countIteration();
      const turn = await callModel(this);
      this.state.messages.push({ role: 'assistant', content: turn.content });
      const text = finalText(turn.content);
      const outlined = this.captureOutline(text);
      const calls = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      if (calls.length > 0) {
        await this.runTools(calls, target);
      } else if (turn.stopReason === 'max_tokens') {
        pushUserText(this.state, 'Your reply was cut off at the output limit. Continue.');
      } else if (outlined) {
        pushUserText(this.state, 'Thank you for the outline. Now carry it out.');
      } else {
        const result = await finishTurn(this, text, target);
        if (result) return result;
      }
    }
  }

  /**
   * Opens a blocker and waits, for days if need be. On the task's `blockerTimeout` it fails the task or returns a
   * note telling the agent to use its best judgement, as `onBlockerTimeout` says. Every blocker goes through here,
   * whoever raised it; waiting for a human never counts as a stall.
   */
  async askHuman(spec: BlockerSpec): Promise<string> {
    const outcome = await this.desk.ask(spec, this.input.blockerTimeout);
    this.state.lastProgressAt = workflowNow();
    if (outcome.answered) return outcome.answer;
    const waited = this.input.blockerTimeout;
    if (this.input.onBlockerTimeout === 'fail') {
      this.fail('blocker_timeout', ErrorType.TaskFailed, `blocker ${outcome.blocker.id} got no answer within ${waited}: ${spec.question}`);
    }
    return `No answer came within ${waited}. Use your best judgement, say which assumption you made, and carry on.`;
  }

  /** Work for `hostId` that its worker has not taken within `hostTimeout` asks a human: wait again, or stop. */
  hostWait(hostId: string): HostWait {
    const timeout = this.input.hostTimeout;
    return {
      timeout,
      lost: async (what) => {
        await askForGuidance(this, { origin: 'host-unavailable', ...hostLostQuestion(hostId, what, timeout) }, 'host_unavailable');
      },
    };
  }

  private async runTools(calls: ToolUseBlock[], target: ToolTarget): Promise<void> {
    const executed = await executeToolCalls(calls, target, {
      askHuman: async ({ question, context }) => ({
        content: `Answer from a human: ${await this.askHuman({ origin: 'agent', question, context })}`,
        isError: false,
      }),
      approveCommand: (command) =>
        approveCommand(
          this.input.approval,
          command,
          target.workspace,
          (spec) => this.askHuman(spec),
          () => applies('approvalHoldsUnreadCode'),
        ),
    });
    for (const { outcome } of executed) {
      if (outcome.changedFile && !outcome.isError) noteChangedFile(this.state, outcome.changedFile);
      for (const file of outcome.isError ? [] : (outcome.alsoChanged ?? [])) noteChangedFile(this.state, file);
      if (!outcome.isError) {
        this.state.lastProgressAt = workflowNow();
        this.state.stallRetries = 0;
      }
    }
    this.state.phase = phaseOf(executed) ?? this.state.phase;
    this.state.lastStep = executed[executed.length - 1].summary;
    await this.trail.checkpoint(executed, this.state.iteration);
    const readBudget = readTurnBudget(fileCountOf(this.state.project?.fileTree ?? ''));
    const notes = await this.react(this.guards.afterTools(executed, this.state.iteration, readBudget));
    this.state.messages.push({
      role: 'user',
      content: [...toToolResults(executed), ...notes.map((text) => ({ type: 'text' as const, text }))],
    });
    this.publish();
  }

  /** A nudge goes to the agent; an escalation goes to a human, whose guidance then goes to the agent. */
  private async react(verdict: GuardVerdict): Promise<string[]> {
    if (verdict.nudge) return [`${verdict.nudge} ${this.budgetLeft()}`];
    if (!verdict.escalate) return [];
    const { kind, question } = verdict.escalate;
    if (kind === 'loop' && this.input.onLoop === 'fail') this.fail('loop_detected', ErrorType.TaskFailed, question.split('.')[0]);
    const answer = await askForGuidance(this, { origin: 'escalation', question }, kind === 'loop' ? 'loop_detected' : 'escalated');
    this.guards.guided();
    return [`Guidance from a human: ${answer}`];
  }

  /** Where the iteration budget stands, for every nudge: `Iteration 7 of 30: 23 left.` */
  private budgetLeft(): string {
    const budget = iterationBudget(this.input, this.state);
    return `Iteration ${this.state.iteration} of ${budget}: ${budget - this.state.iteration} left.`;
  }

  /** Keeps the first outline the agent gives; true when this turn was that outline and nothing else. */
  private captureOutline(text: string): boolean {
    if (this.state.outline) return false;
    this.state.outline = extractOutline(text);
    return this.state.outline !== undefined;
  }

  async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    log.info('continuing as new', { iteration: this.state.iteration, historySize: workflowInfo().historySize });
    const carry: TaskCarry = {
      ...this.state,
      desk: this.desk.carry(),
      spend: this.spend.carry(),
      guards: this.guards.carry(),
      verifier: this.verifier.carry(),
    };
    return continueAsNew<TaskWorkflow>(this.input, carry);
  }

  complete(summary: string): TaskResult {
    this.state.phase = 'done';
    this.state.result = this.buildResult('completed', summary);
    this.settle('completed');
    return this.state.result;
  }

  /** Ends the task as failed: the result travels as the failure's details, so callers still get the figures. */
  fail(reason: string, type: string, message: string): never {
    this.state.result = this.buildResult('failed', message, reason);
    this.settle('failed');
    throw ApplicationFailure.nonRetryable(message, type, this.state.result);
  }

  /** A task that failed or was cancelled keeps what it did on its branch: the rest is committed, the worktree goes. */
  async endTrail(how: string): Promise<void> {
    try {
      await this.trail.finish(`${this.input.title} (${how})`, false);
    } catch (error) {
      log.warn("the task's worktree was left in place", { error: String(error) });
    }
    await this.endEnvironment();
    this.publish();
  }

  /** The task's services and network namespace end with it; a host that is gone took them with it. */
  async endEnvironment(): Promise<void> {
    const { environment, binding } = this.state;
    if (!binding || !hasHostEnvironment(this.input, environment) || !applies('taskEnvironment')) return;
    try {
      await stopTaskEnvironment(binding, this.hostWait(binding.hostId));
    } catch (error) {
      log.warn("the task's services could not be stopped", { error: String(error) });
    }
  }

  /** What the run has used so far: a cancelled task reports it, and a batch that stopped the task keeps it. */
  usedSoFar(): UsedSoFar {
    return { iterations: this.state.iteration, usage: this.spend.usage, costUsd: this.spend.costUsd, spendByPurpose: this.spend.byPurpose };
  }

  settle(status: TaskStatus): void {
    this.terminal = status;
    this.publish();
  }

  private status(): TaskStatus {
    if (this.terminal) return this.terminal;
    return this.desk.open().length > 0 || this.outage?.waiting ? 'blocked' : 'running';
  }

  private buildResult(status: TaskResult['status'], summary: string, reason?: string): TaskResult {
    const elapsedMs = workflowNow() - workflowInfo().startTime.getTime();
    const verification = verificationOf(this.verifier.results);
    return { status, reason, summary, iterations: this.state.iteration, ...this.figures(), verification, elapsedMs };
  }

  /** What both `getState` and the result report. */
  private figures() {
    const { filesChanged, runs, binding } = this.state;
    return {
      filesChanged: [...filesChanged].sort(),
      usage: this.spend.usage,
      costUsd: this.spend.costUsd,
      spendByPurpose: this.spend.byPurpose,
      gates: this.verifier.results,
      openQuestions: this.state.openQuestions ?? [],
      git: this.state.git,
      runs,
      sandbox: binding?.sandbox,
    };
  }

  publish(): void {
    const snapshot = this.snapshot();
    this.searchAttributes.update(snapshot.status, snapshot.phase);
    publishCurrentDetails(snapshot);
  }

  snapshot(): TaskStateSnapshot {
    const { state } = this;
    const status = this.status();
    return {
      title: this.input.title,
      status,
      phase: status === 'blocked' ? 'blocked' : state.phase,
      iteration: state.iteration,
      maxIterations: iterationBudget(this.input, state),
      ...this.figures(),
      lastStep: state.lastStep,
      outline: state.outline,
      correctionRounds: state.correctionRounds,
      compactions: state.compactionLog.length,
      compactionLog: state.compactionLog,
      hostId: state.binding?.hostId,
      network: this.input.network,
      startedAt: workflowInfo().startTime.toISOString(),
      openBlockers: this.desk.open(),
      ...(this.outage?.waiting ? { waitingForBatch: this.outage.waiting } : {}),
      answeredBlockers: this.desk.answered(),
      rejectedAnswers: this.desk.rejected,
      result: state.result,
    };
  }
}
