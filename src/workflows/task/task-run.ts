import { msToNumber } from '@temporalio/common/lib/time.js';
import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, log, patched, workflowInfo } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/index.js';
import { STOP_WORDS, type Blocker } from '../../shared/blockers.js';
import { DEFAULT_MODEL } from '../../shared/constants.js';
import type { ContentBlock, Message, ModelTurn, ToolUseBlock } from '../../shared/conversation.js';
import { ErrorType } from '../../shared/errors.js';
import { classifyFinalQuestion, questionsIn } from '../../shared/final-question.js';
import { MAX_CORRECTION_ROUNDS } from '../../shared/gates.js';
import { extractOutline } from '../../shared/outline.js';
import { contextWindowOf } from '../../shared/pricing.js';
import { buildSystemPrompt, kickoffMessage, type ProjectContext } from '../../shared/prompt.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { CompactionRecord, TaskPhase, TaskResult, TaskStateSnapshot, TaskStatus } from '../../shared/task-state.js';
import type { agentTaskWorkflow } from '../agent-task.js';
import { workflowNow } from '../workflow-time.js';
import { bindingActivities, fileActivities, modelActivities } from './activities.js';
import { approveCommand } from './approval.js';
import { BlockerDesk, type BlockerSpec, type DeskCarry } from './blocker-desk.js';
import { measure, SUMMARY_SYSTEM, transcript, type ConversationSize } from './compaction.js';
import { compactIfNeeded } from './compactor.js';
import { Guards, type GuardsCarry, type GuardVerdict } from './guards.js';
import { planForModelFailure } from './model-recovery.js';
import { phaseOf } from './phase.js';
import { shouldContinueAsNew } from './run-budget.js';
import { Spend, type SpendCarry } from './spend.js';
import { withDeadline } from './stall-race.js';
import { executeToolCalls, toToolResults, type ToolTarget } from './tool-calls.js';
import { describeFailedGates, Verifier } from './verifier.js';
import { publishCurrentDetails, SearchAttributeTracker } from './visibility.js';

/** Everything a run hands to the next one at continue-as-new: the conversation, the counters, the blockers. */
export interface TaskCarry {
  binding: WorkspaceBinding;
  project: ProjectContext;
  messages: Message[];
  iteration: number;
  grantedIterations: number;
  filesChanged: string[];
  phase: TaskPhase;
  lastStep?: string;
  runs: number;
  desk: DeskCarry;
  spend: SpendCarry;
  guards: GuardsCarry;
  verifier: ReturnType<Verifier['carry']>;
  correctionRounds: number;
  maxCorrectionRounds: number;
  outline?: string;
  compactionLog: CompactionRecord[];
  model?: string;
  lastProgressAt: number;
  stallRetries: number;
}

/** Room for adaptive thinking and a whole new file in one turn; the spend caps count all of it. */
const MAX_OUTPUT_TOKENS = 16_384;
const SUMMARY_MAX_TOKENS = 2_048;
const STALL_RETRIES = 2;

/** One run of a task: the ReAct loop, its guards, and the state `getState` reports. */
export class TaskRun {
  private terminal?: TaskStatus;
  private phase: TaskPhase;
  private iteration: number;
  private grantedIterations: number;
  private readonly filesChanged: Set<string>;
  private lastStep?: string;
  private readonly runs: number;
  private binding?: WorkspaceBinding;
  private project?: ProjectContext;
  private system = '';
  private messages: Message[];
  private result?: TaskResult;
  private correctionRounds: number;
  private maxCorrectionRounds: number;
  private outline?: string;
  private compactionLog: CompactionRecord[];
  private model?: string;
  private lastProgressAt: number;
  private stallRetries: number;
  readonly desk: BlockerDesk;
  private readonly spend: Spend;
  private readonly guards: Guards;
  private readonly verifier: Verifier;
  private readonly searchAttributes = new SearchAttributeTracker();

  constructor(
    private readonly input: TaskInput,
    carry?: TaskCarry,
    private readonly onBlockersChanged: (open: Blocker[]) => void = () => undefined,
  ) {
    this.phase = carry?.phase ?? 'starting';
    this.iteration = carry?.iteration ?? 0;
    this.grantedIterations = carry?.grantedIterations ?? 0;
    this.filesChanged = new Set(carry?.filesChanged ?? []);
    this.lastStep = carry?.lastStep;
    this.runs = (carry?.runs ?? 0) + 1;
    this.binding = carry?.binding;
    this.project = carry?.project;
    this.messages = carry?.messages ?? [];
    this.correctionRounds = carry?.correctionRounds ?? 0;
    this.maxCorrectionRounds = carry?.maxCorrectionRounds ?? MAX_CORRECTION_ROUNDS;
    this.outline = carry?.outline;
    this.compactionLog = carry?.compactionLog ?? [];
    this.model = carry?.model ?? input.model;
    this.lastProgressAt = carry?.lastProgressAt ?? workflowNow();
    this.stallRetries = carry?.stallRetries ?? 0;
    this.desk = new BlockerDesk(carry?.desk, () => {
      this.publish();
      this.onBlockersChanged(this.desk.open());
    });
    this.spend = new Spend(carry?.spend, input);
    this.guards = new Guards(carry?.guards);
    this.verifier = new Verifier(carry?.verifier);
    if (this.project) this.system = this.buildSystem(this.project);
  }

  async execute(): Promise<TaskResult> {
    this.publish();
    const target = await this.prepare();
    for (;;) {
      await this.beforeModelCall();
      this.iteration += 1;
      const turn = await this.callModel();
      this.messages.push({ role: 'assistant', content: turn.content });
      const text = finalText(turn.content);
      const outlined = this.captureOutline(text);
      const calls = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      if (calls.length > 0) {
        await this.runTools(calls, target);
      } else if (turn.stopReason === 'max_tokens') {
        this.pushUserText('Your reply was cut off at the output limit. Continue.');
      } else if (outlined) {
        this.pushUserText('Thank you for the outline. Now carry it out.');
      } else {
        const result = await this.finish(text, target);
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
    this.lastProgressAt = workflowNow();
    if (outcome.answered) return outcome.answer;
    const waited = this.input.blockerTimeout;
    if (this.input.onBlockerTimeout === 'fail') {
      this.fail('blocker_timeout', ErrorType.TaskFailed, `blocker ${outcome.blocker.id} got no answer within ${waited}: ${spec.question}`);
    }
    return `No answer came within ${waited}. Use your best judgement, say which assumption you made, and carry on.`;
  }

  /** Asks a human for guidance; 'stop' fails the task with `reason`. */
  private async askForGuidance(spec: BlockerSpec, reason: string): Promise<string> {
    const answer = await this.askHuman(spec);
    if (STOP_WORDS.test(answer)) this.fail(reason, ErrorType.TaskFailed, `stopped by a human: ${spec.question.split('\n')[0]}`);
    return answer;
  }

  /** First run: find the host with the workspace, read the project, build the system prompt once. */
  private async prepare(): Promise<ToolTarget> {
    if (!this.binding || !this.project) {
      const pinned = this.input.hostQueue ? { taskQueue: this.input.hostQueue } : {};
      this.binding = await bindingActivities.bindWorkspace.executeWithOptions({ ...pinned, summary: `bind workspace ${this.input.workspace}` }, [
        this.input.workspace,
      ]);
      this.project = await fileActivities.describeWorkspace.executeWithOptions(
        { taskQueue: this.binding.hostQueue, summary: `describe workspace on ${this.binding.hostId}` },
        [this.binding.workspace],
      );
      this.system = this.buildSystem(this.project);
      this.messages = [{ role: 'user', content: [{ type: 'text', text: kickoffMessage(this.input) }] }];
      this.phase = 'exploring';
      this.publish();
    }
    return {
      workspace: this.binding.workspace,
      hostQueue: this.binding.hostQueue,
      access: { network: this.input.network, env: this.input.env },
    };
  }

  /** Built once per run, so the cached prefix stays byte-identical; answers so far join the task layer. */
  private buildSystem(project: ProjectContext): string {
    return buildSystemPrompt(this.input, project, this.desk.answeredQuestions());
  }

  /** The checks before a model call, in order: history size, iteration budget, context size, stall, spend caps. */
  private async beforeModelCall(): Promise<void> {
    // Measured once: none of these checks changes the conversation (a compaction that does continues as new).
    const size = measure(this.system, this.messages);
    if (shouldContinueAsNew(size.bytes)) await this.continueAsNew();
    if (this.iteration >= this.budget()) await this.askForMoreIterations();
    await this.compact(size);
    if (workflowNow() - this.lastProgressAt > this.stallMs()) await this.onStall('no successful tool call');
    await this.keepWithinCaps('the next model call', size.tokens, MAX_OUTPUT_TOKENS);
  }

  /**
   * Asks a human, until the answer raises it enough, whenever a call of this projected size would cross a spend cap;
   * 'stop' fails the task. `patch` marks a check added after runs already existed, so their histories still replay.
   */
  private async keepWithinCaps(call: string, inputTokens: number, maxOutputTokens: number, patch?: string): Promise<void> {
    const model = this.model ?? DEFAULT_MODEL;
    let hit = this.spend.wouldExceed(inputTokens, maxOutputTokens, model);
    if (hit && patch && !patched(patch)) return;
    while (hit) {
      const answer = await this.askHuman({
        origin: 'budget',
        question: `Before ${call}: ${hit.message}. Answer with a new cap (e.g. 'raise to 5'), 'continue' to double it, or 'stop'.`,
        options: ['continue', 'stop'],
      });
      if (!this.spend.raise(hit, answer)) this.fail(`${hit.cap}_cap`, ErrorType.BudgetExhausted, `stopped at the ${hit.cap} cap: ${hit.message}`);
      hit = this.spend.wouldExceed(inputTokens, maxOutputTokens, model);
    }
  }

  /** Compaction at 85% of the window (or the payload budget) is also a natural point to continue as new. */
  private async compact(size: ConversationSize): Promise<void> {
    const window = this.input.contextWindow ?? contextWindowOf(this.model ?? DEFAULT_MODEL);
    const costBefore = this.spend.costUsd;
    const keepLatest = () => patched('compaction-keeps-latest-exchanges');
    const compacted = await compactIfNeeded(this.system, this.messages, window, (older) => this.summarize(older), keepLatest, size);
    if (!compacted || compacted.report.after.bytes > compacted.report.before.bytes * 0.9) return;
    this.messages = compacted.messages;
    const { tier, before, after } = compacted.report;
    this.compactionLog = [
      ...this.compactionLog,
      {
        iteration: this.iteration,
        tier,
        tokensBefore: before.tokens,
        tokensAfter: after.tokens,
        bytesBefore: before.bytes,
        bytesAfter: after.bytes,
        summaryCostUsd: this.spend.costUsd - costBefore,
      },
    ];
    log.info('compacted the conversation', { ...compacted.report });
    await this.continueAsNew();
  }

  /** The summariser's call is a model call like any other: the spend caps are checked before it too. */
  private async summarize(older: Message[]): Promise<string> {
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: transcript(older) }] }];
    await this.keepWithinCaps('summarising the conversation', measure(SUMMARY_SYSTEM, messages).tokens, SUMMARY_MAX_TOKENS, 'summary-checks-spend-caps');
    const turn = await modelActivities.callModel.executeWithOptions({ summary: `compact: summarise ${older.length} messages` }, [
      { model: this.input.model, system: SUMMARY_SYSTEM, messages, maxTokens: SUMMARY_MAX_TOKENS, toolSet: 'none' },
    ]);
    this.spend.add(turn);
    return finalText(turn.content);
  }

  /** The model call, raced against the stall timeout, with failures no retry can fix turned into blockers. */
  private async callModel(): Promise<ModelTurn> {
    for (;;) {
      try {
        const remaining = this.stallMs() - (workflowNow() - this.lastProgressAt);
        const turn = await withDeadline(remaining, `stall watch: model turn ${this.iteration}`, () =>
          modelActivities.callModel.executeWithOptions({ summary: `model turn ${this.iteration}/${this.budget()}` }, [
            { model: this.input.model, system: this.system, messages: this.messages, maxTokens: MAX_OUTPUT_TOKENS },
          ]),
        );
        if (!turn) {
          await this.onStall('the model call did not finish');
          continue;
        }
        this.model = turn.model;
        this.spend.add(turn);
        return turn;
      } catch (error) {
        const plan = planForModelFailure(error);
        if (!plan) throw error;
        if ('fail' in plan) this.fail(plan.reason, ErrorType.TaskFailed, plan.fail);
        await this.askForGuidance(plan.ask, plan.reason);
      }
    }
  }

  /** A stall: retry the turn (twice, then ask), ask a human, or fail, as `onStall` says. */
  private async onStall(what: string): Promise<void> {
    const message = `${what} within the stall timeout of ${this.input.stallTimeout}`;
    if (this.input.onStall === 'fail') this.fail('stalled', ErrorType.TaskFailed, `stalled: ${message}`);
    this.stallRetries += 1;
    if (this.input.onStall === 'blocker' || this.stallRetries > STALL_RETRIES) {
      await this.askForGuidance({ origin: 'stall', question: `The task stalled: ${message}. Answer 'retry' or 'stop'.`, options: ['retry', 'stop'] }, 'stalled');
      this.stallRetries = 0;
    }
    log.warn('stall', { message, retries: this.stallRetries });
    this.lastProgressAt = workflowNow();
  }

  private async runTools(calls: ToolUseBlock[], target: ToolTarget): Promise<void> {
    const executed = await executeToolCalls(calls, target, {
      askHuman: async ({ question, context }) => ({
        content: `Answer from a human: ${await this.askHuman({ origin: 'agent', question, context })}`,
        isError: false,
      }),
      approveCommand: (command) => approveCommand(this.input.approval, command, target.workspace, (spec) => this.askHuman(spec)),
    });
    for (const { outcome } of executed) {
      if (outcome.changedFile && !outcome.isError) this.filesChanged.add(outcome.changedFile);
      if (!outcome.isError) {
        this.lastProgressAt = workflowNow();
        this.stallRetries = 0;
      }
    }
    this.phase = phaseOf(executed) ?? this.phase;
    this.lastStep = executed[executed.length - 1].summary;
    const notes = await this.react(this.guards.afterTools(executed, this.iteration));
    this.messages.push({ role: 'user', content: [...toToolResults(executed), ...notes.map((text) => ({ type: 'text' as const, text }))] });
    this.publish();
  }

  /** A nudge goes to the agent; an escalation goes to a human, whose guidance then goes to the agent. */
  private async react(verdict: GuardVerdict): Promise<string[]> {
    if (verdict.nudge) return [verdict.nudge];
    if (!verdict.escalate) return [];
    const { kind, question } = verdict.escalate;
    if (kind === 'loop' && this.input.onLoop === 'fail') this.fail('loop_detected', ErrorType.TaskFailed, question.split('.')[0]);
    const answer = await this.askForGuidance({ origin: 'escalation', question }, kind === 'loop' ? 'loop_detected' : 'escalated');
    this.guards.guided();
    return [`Guidance from a human: ${answer}`];
  }

  /**
   * The model ended its turn without a tool call. A question about requirements, access or a service becomes a
   * blocker; otherwise the verification gates decide whether the task is done.
   */
  private async finish(text: string, target: ToolTarget): Promise<TaskResult | undefined> {
    const category = classifyFinalQuestion(text);
    if (category) {
      const answer = await this.askHuman({ origin: 'final-question', question: questionsIn(text).join(' '), context: `${category} question` });
      this.pushUserText(`A human answered your question: ${answer}`);
      return undefined;
    }
    this.phase = 'verifying';
    this.publish();
    const results = await this.verifier.run(target);
    if (results.every((result) => result.passed)) {
      this.guards.passed();
      return this.complete(text);
    }
    this.correctionRounds += 1;
    const guidance: string[] = [];
    const escalation = this.guards.afterGates(results, this.iteration);
    if (escalation) {
      guidance.push(`Guidance from a human: ${await this.askForGuidance({ origin: 'escalation', question: escalation }, 'escalated')}`);
      this.guards.guided();
    } else if (this.correctionRounds >= this.maxCorrectionRounds) {
      const failed = results.filter((result) => !result.passed).map((result) => result.name);
      await this.askForGuidance(
        {
          origin: 'escalation',
          question: `The gates (${failed.join(', ')}) still fail after ${this.correctionRounds} correction rounds. Answer 'continue' for ${MAX_CORRECTION_ROUNDS} more rounds, or 'stop'.`,
          options: ['continue', 'stop'],
        },
        'verification_failed',
      );
      this.maxCorrectionRounds += MAX_CORRECTION_ROUNDS;
    }
    // Described after any answer, so the agent sees the rounds a 'continue' granted.
    const notes = [describeFailedGates(results, this.correctionRounds, this.maxCorrectionRounds), ...guidance];
    this.phase = 'editing';
    this.messages.push({ role: 'user', content: notes.map((note) => ({ type: 'text', text: note })) });
    this.publish();
    return undefined;
  }

  /** Keeps the first outline the agent gives; true when this turn was that outline and nothing else. */
  private captureOutline(text: string): boolean {
    if (this.outline) return false;
    this.outline = extractOutline(text);
    return this.outline !== undefined;
  }

  /** An exhausted budget asks instead of failing: "continue" grants as many again, "continue 20" that many. */
  private async askForMoreIterations(): Promise<void> {
    const budget = this.budget();
    const answer = await this.askHuman({
      origin: 'budget',
      question: `The iteration budget of ${budget} is used up. Answer 'continue' for ${this.input.maxIterations} more (or 'continue N'), or 'stop' to end the task as failed.`,
      options: ['continue', 'stop'],
    });
    const granted = /^\s*continue(?:\s+(?:with\s+)?(\d+))?/i.exec(answer);
    if (!granted) this.fail('budget_exhausted', ErrorType.BudgetExhausted, `iteration budget of ${budget} exhausted`);
    this.grantedIterations += granted[1] ? Number(granted[1]) : this.input.maxIterations;
  }

  private budget(): number {
    return this.input.maxIterations + this.grantedIterations;
  }

  private stallMs(): number {
    return msToNumber(this.input.stallTimeout);
  }

  private pushUserText(text: string): void {
    this.messages.push({ role: 'user', content: [{ type: 'text', text }] });
  }

  private async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    log.info('continuing as new', { iteration: this.iteration, historySize: workflowInfo().historySize });
    const carry: TaskCarry = {
      binding: this.binding!,
      project: this.project!,
      messages: this.messages,
      iteration: this.iteration,
      grantedIterations: this.grantedIterations,
      filesChanged: [...this.filesChanged],
      phase: this.phase,
      lastStep: this.lastStep,
      runs: this.runs,
      desk: this.desk.carry(),
      spend: this.spend.carry(),
      guards: this.guards.carry(),
      verifier: this.verifier.carry(),
      correctionRounds: this.correctionRounds,
      maxCorrectionRounds: this.maxCorrectionRounds,
      outline: this.outline,
      compactionLog: this.compactionLog,
      model: this.model,
      lastProgressAt: this.lastProgressAt,
      stallRetries: this.stallRetries,
    };
    return continueAsNew<typeof agentTaskWorkflow>(this.input, carry);
  }

  private complete(summary: string): TaskResult {
    this.phase = 'done';
    this.result = this.buildResult('completed', summary);
    this.settle('completed');
    return this.result;
  }

  /** Ends the task as failed: the result travels as the failure's details, so callers still get the figures. */
  fail(reason: string, type: string, message: string): never {
    this.result = this.buildResult('failed', message, reason);
    this.settle('failed');
    throw ApplicationFailure.nonRetryable(message, type, this.result);
  }

  settle(status: TaskStatus): void {
    this.terminal = status;
    this.publish();
  }

  private status(): TaskStatus {
    if (this.terminal) return this.terminal;
    return this.desk.open().length > 0 ? 'blocked' : 'running';
  }

  private buildResult(status: TaskResult['status'], summary: string, reason?: string): TaskResult {
    return {
      status,
      reason,
      summary,
      iterations: this.iteration,
      filesChanged: [...this.filesChanged].sort(),
      usage: this.spend.usage,
      costUsd: this.spend.costUsd,
      gates: this.verifier.results,
      elapsedMs: workflowNow() - workflowInfo().startTime.getTime(),
      runs: this.runs,
      sandbox: this.binding?.sandbox,
    };
  }

  private publish(): void {
    const snapshot = this.snapshot();
    this.searchAttributes.update(snapshot.status, snapshot.phase);
    publishCurrentDetails(snapshot);
  }

  snapshot(): TaskStateSnapshot {
    const status = this.status();
    return {
      title: this.input.title,
      status,
      phase: status === 'blocked' ? 'blocked' : this.phase,
      iteration: this.iteration,
      maxIterations: this.budget(),
      usage: this.spend.usage,
      costUsd: this.spend.costUsd,
      filesChanged: [...this.filesChanged].sort(),
      lastStep: this.lastStep,
      outline: this.outline,
      gates: this.verifier.results,
      correctionRounds: this.correctionRounds,
      compactions: this.compactionLog.length,
      compactionLog: this.compactionLog,
      hostId: this.binding?.hostId,
      sandbox: this.binding?.sandbox,
      network: this.input.network,
      runs: this.runs,
      startedAt: workflowInfo().startTime.toISOString(),
      openBlockers: this.desk.open(),
      answeredBlockers: this.desk.answered(),
      rejectedAnswers: this.desk.rejected,
      result: this.result,
    };
  }
}

function finalText(content: ContentBlock[]): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n')
    .trim();
}
