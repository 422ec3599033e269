import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import type { Blocker } from '../../shared/blockers.js';
import { DEFAULT_MODEL, MAX_OUTPUT_TOKENS } from '../../shared/constants.js';
import type { Message, ModelTurn, ToolUseBlock } from '../../shared/conversation.js';
import { ErrorType } from '../../shared/errors.js';
import { modelFor, type SpendByPurpose } from '../../shared/models.js';
import { cannotGoOn, classifyFinalQuestion, finalTurnBlocker, openQuestionsIn, questionsIn, type FinalSignal } from './final-question.js';
import { correctionRound } from './correction.js';
import { gateVerdict, verificationOf, type GateResult } from '../../shared/gates.js';
import { extractOutline } from './outline.js';
import { contextWindowOf } from '../common/pricing.js';
import type { OpenedWorkspace, WorkspaceBinding } from '../../activities/workspace.js';
import type { ProjectContext } from '../../shared/project-context.js';
import { buildSystemPrompt, kickoffMessage } from './prompt.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { TaskResult, TaskStateSnapshot, TaskStatus } from '../../shared/task-state.js';
import { applies } from '../common/patches.js';
import { workflowNow } from '../common/workflow-time.js';
import { setupActivities } from '../common/setup-activities.js';
import { commandActivities, fileActivities, modelActivities } from '../common/activities.js';
import { hostLostQuestion, onHost, type HostWait } from '../common/host-wait.js';
import { hostIdOf } from '../../shared/host-queue.js';
import { approveCommand } from './approval.js';
import { commandAccess, describeEnvironment, hasHostEnvironment, prepareTaskEnvironment, stopTaskEnvironment } from './task-environment.js';
import { BlockerDesk, type BlockerSpec } from '../common/blocker-desk.js';
import { finalText, measure, SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM, transcript, type ConversationSize } from '../common/compaction.js';
import { compactIfNeeded } from '../common/compactor.js';
import { callSideModel } from '../common/side-model-call.js';
import { Guards, type GuardVerdict } from './guards.js';
import { fileCountOf, readTurnBudget } from './progress-watch.js';
import { planForModelFailure } from './model-recovery.js';
import type { BatchOutageWait } from './batch-outage.js';
import { failureText } from '../common/fresh-base.js';
import { phaseOf } from './phase.js';
import { askForGuidance, askForMoreIterations, isStalled, onStall, stallMs, type PolicyHost } from './policies.js';
import { keepWithinCaps } from '../common/spend-caps.js';
import { shouldContinueAsNew } from './run-budget.js';
import {
  iterationBudget,
  noteChangedFile,
  noteOpenQuestions,
  startState,
  type RunState,
  type TaskCarry,
  type TaskWorkflow,
} from './run-state.js';
import { Spend } from '../common/spend.js';
import { countIteration } from '../common/metrics.js';
import { withDeadline } from './stall-race.js';
import { executeToolCalls, toToolResults, type ToolTarget } from '../common/tool-calls.js';
import { describeBaseline, describeUnverified, Verifier } from './verifier.js';
import { SearchAttributeTracker } from '../common/search-attributes.js';
import { TaskTrail } from './task-trail.js';
import { publishCurrentDetails } from './visibility.js';

/** One run of a task: the ReAct loop over one `RunState`, its guards, and the state `getState` reports. */
export class TaskRun implements PolicyHost {
  readonly state: RunState;
  private terminal?: TaskStatus;
  private system = '';
  readonly desk: BlockerDesk;
  readonly spend: Spend;
  private readonly guards: Guards;
  private readonly verifier: Verifier;
  private readonly searchAttributes = new SearchAttributeTracker();
  private readonly trail = new TaskTrail(
    () => this.state,
    (hostId) => this.hostWait(hostId),
  );

  constructor(
    readonly input: TaskInput,
    carry?: TaskCarry,
    private readonly onBlockersChanged: (open: Blocker[]) => void = () => undefined,
    onSpend?: (spend: { costUsd: number; byPurpose: SpendByPurpose }) => void,
    /** In a batch that pauses on a model outage, where an outage past the retries goes instead of a blocker. */
    private readonly outage?: BatchOutageWait,
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
    if (state.project) this.system = this.buildSystem(state.project);
  }

  async execute(): Promise<TaskResult> {
    this.publish();
    const target = await this.prepare();
    for (;;) {
      await this.beforeModelCall();
      this.state.iteration += 1;
      countIteration();
      const turn = await this.callModel();
      this.state.messages.push({ role: 'assistant', content: turn.content });
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
    this.state.lastProgressAt = workflowNow();
    if (outcome.answered) return outcome.answer;
    const waited = this.input.blockerTimeout;
    if (this.input.onBlockerTimeout === 'fail') {
      this.fail('blocker_timeout', ErrorType.TaskFailed, `blocker ${outcome.blocker.id} got no answer within ${waited}: ${spec.question}`);
    }
    return `No answer came within ${waited}. Use your best judgement, say which assumption you made, and carry on.`;
  }

  /** First run: find the host with the workspace, read the project, build the system prompt once. */
  private async prepare(): Promise<ToolTarget> {
    if (!this.state.binding || !this.state.project) {
      const pinned = this.input.hostQueue ? { taskQueue: this.input.hostQueue } : {};
      // Unpinned, any worker binds it; pinned, the host named in the queue must be there to.
      const wait = this.input.hostQueue ? this.hostWait(hostIdOf(this.input.hostQueue)) : undefined;
      let opened: OpenedWorkspace;
      if (applies('taskOpensWorkspaceOnce')) {
        const summary = `open workspace ${this.input.workspace}`;
        const options = { ownBranch: this.input.git === 'branch' && applies('taskGitBranch') };
        // With the file tools' heartbeat timeout: a host that dies while it describes is noticed within 20 s.
        opened = await onHost(wait, summary, (limit) =>
          fileActivities.openWorkspace.executeWithOptions({ ...pinned, summary, ...limit }, [this.input.workspace, options]),
        );
      } else {
        const summary = `bind workspace ${this.input.workspace}`;
        opened = {
          binding: await onHost(wait, summary, (limit) =>
            setupActivities.bindWorkspace.executeWithOptions({ ...pinned, summary, ...limit }, [this.input.workspace]),
          ),
        };
      }
      const ownBranch = opened.binding.inGitRepo && this.input.git === 'branch' && applies('taskGitBranch');
      this.state.binding = ownBranch
        ? await this.trail.start(opened.binding, { remote: this.input.remote, baseBranch: this.input.baseBranch, desk: this.desk })
        : opened.binding;
      const { hostQueue, hostId, workspace } = this.state.binding;
      const describe = `describe workspace on ${hostId}`;
      this.state.project =
        opened.project ??
        (await onHost(this.hostWait(hostId), describe, (limit) =>
          fileActivities.describeWorkspace.executeWithOptions({ taskQueue: hostQueue, summary: describe, ...limit }, [workspace]),
        ));
      if (this.state.project.environmentConfigured && applies('taskEnvironment')) {
        const environment = await prepareTaskEnvironment(
          this.input,
          this.state.binding,
          this.hostWait(hostId),
          (spec) => this.askHuman(spec),
          (message) => this.fail('setup_failed', ErrorType.TaskFailed, message),
        );
        this.state.environment = environment;
        this.state.project = {
          ...this.state.project,
          environment: { network: environment.network, notes: describeEnvironment(environment) },
        };
      }
      if (applies('truthfulProjectView')) {
        const survey = `survey the sandbox on ${hostId}`;
        const access = commandAccess(this.input, this.state.environment);
        const sandbox = await onHost(this.hostWait(hostId), survey, (limit) =>
          commandActivities.surveySandbox.executeWithOptions({ taskQueue: hostQueue, summary: survey, ...limit }, [{ workspace, access }]),
        );
        this.state.project = { ...this.state.project, sandbox };
      }
      this.system = this.buildSystem(this.state.project);
      const kickoff = [kickoffMessage(this.input)];
      if (this.input.gates === 'no-regressions' && applies('gateBaseline')) {
        const target = this.targetOf(this.state.binding);
        const failing = describeBaseline(await this.verifier.recordBaseline(target, this.state.project.gates ?? []));
        if (failing) kickoff.push(failing);
      }
      this.state.messages = [{ role: 'user', content: kickoff.map((text) => ({ type: 'text', text })) }];
      this.state.phase = 'exploring';
      // The stall watch starts with the agent's work: binding, the survey and the baseline gates are not its turns.
      if (this.state.project.sandbox) this.state.lastProgressAt = workflowNow();
      this.publish();
    }
    return this.targetOf(this.state.binding);
  }

  private targetOf(binding: WorkspaceBinding): ToolTarget {
    const knownFailures = this.verifier.knownFailures();
    return {
      workspace: binding.workspace,
      hostQueue: binding.hostQueue,
      access: commandAccess(this.input, this.state.environment),
      ...(knownFailures.length ? { knownFailures } : {}),
      hostWait: this.hostWait(binding.hostId),
    };
  }

  /** Work for `hostId` that its worker has not taken within `hostTimeout` asks a human: wait again, or stop. */
  private hostWait(hostId: string): HostWait {
    const timeout = this.input.hostTimeout;
    return {
      timeout,
      lost: async (what) => {
        await askForGuidance(this, { origin: 'host-unavailable', ...hostLostQuestion(hostId, what, timeout) }, 'host_unavailable');
      },
    };
  }

  /** Built once per run, so the cached prefix stays byte-identical; answers so far join the task layer. */
  private buildSystem(project: ProjectContext): string {
    return buildSystemPrompt(this.input, project, this.desk.answeredQuestions());
  }

  /** The checks before a model call, in order: history size, iteration budget, context size, stall, spend caps. */
  private async beforeModelCall(): Promise<void> {
    // Measured once: none of these checks changes the conversation (a compaction that does continues as new).
    const size = measure(this.system, this.state.messages);
    if (shouldContinueAsNew(size.bytes)) await this.continueAsNew();
    if (this.state.iteration >= iterationBudget(this.input, this.state)) await askForMoreIterations(this);
    await this.compact(size);
    if (isStalled(this)) await onStall(this, 'no successful tool call');
    await keepWithinCaps(this, 'the next model call', size.tokens, MAX_OUTPUT_TOKENS);
  }

  /** Compaction at 85% of the window (or the payload budget) is also a natural point to continue as new. */
  private async compact(size: ConversationSize): Promise<void> {
    const window = this.input.contextWindow ?? contextWindowOf(this.state.model ?? DEFAULT_MODEL);
    const costBefore = this.spend.costUsd;
    const keepLatest = () => applies('compactionKeepsLatestExchanges');
    const compacted = await compactIfNeeded(this.system, this.state.messages, window, (older) => this.summarize(older), keepLatest, size);
    if (!compacted || compacted.report.after.bytes > compacted.report.before.bytes * 0.9) return;
    this.state.messages = compacted.messages;
    const { tier, before, after } = compacted.report;
    this.state.compactionLog = [
      ...this.state.compactionLog,
      {
        iteration: this.state.iteration,
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
    await keepWithinCaps(
      this,
      'summarising the conversation',
      measure(SUMMARY_SYSTEM, messages).tokens,
      SUMMARY_MAX_TOKENS,
      'summaryChecksSpendCaps',
    );
    const request = { model: modelFor(this.input, 'summary'), purpose: 'summary' as const, system: SUMMARY_SYSTEM, messages };
    const turn = await callSideModel(
      { ...request, maxTokens: SUMMARY_MAX_TOKENS, toolSet: 'none' },
      `compact: summarise ${older.length} messages`,
      { model: modelFor(this.input, 'default') },
      {
        askHuman: (spec) => this.askHuman(spec),
        stop: (message) => this.fail('model_unavailable', ErrorType.TaskFailed, message),
        ...(this.outage ? { waitElsewhere: (failures) => this.waitOutOutage(failures) } : {}),
      },
    );
    this.spend.add(turn, 'summary');
    return finalText(turn.content);
  }

  /** The model call, raced against the stall timeout, with failures no retry can fix turned into blockers. */
  private async callModel(): Promise<ModelTurn> {
    for (;;) {
      try {
        const remaining = stallMs(this.input) - (workflowNow() - this.state.lastProgressAt);
        const turn = await withDeadline(remaining, `stall watch: model turn ${this.state.iteration}`, () =>
          modelActivities.callModel.executeWithOptions(
            { summary: `model turn ${this.state.iteration}/${iterationBudget(this.input, this.state)}` },
            [{ model: modelFor(this.input, 'default'), system: this.system, messages: this.state.messages, maxTokens: MAX_OUTPUT_TOKENS }],
          ),
        );
        if (!turn) {
          // A call that outlasts the stall timeout, its retries included, is an outage too: a batch that pauses answers it.
          await onStall(this, 'the model call did not finish', this.outage && ((message) => this.waitForBatch(message)));
          continue;
        }
        this.state.model = turn.model;
        this.spend.add(turn, 'default');
        return turn;
      } catch (error) {
        const plan = planForModelFailure(error);
        if (!plan) throw error;
        if ('fail' in plan) this.fail(plan.reason, ErrorType.TaskFailed, plan.fail);
        const batchAnswered = plan.ask.origin === 'model-unavailable' && this.outage && (await this.waitForBatch(failureText(error)));
        if (!batchAnswered) await askForGuidance(this, plan.ask, plan.reason);
      }
    }
  }

  /** A side call that failed on both models for an outage waits for the batch, as the agent's own calls do. */
  private async waitOutOutage(failures: ActivityFailure[]): Promise<boolean> {
    const outage = failures.every((error) => {
      const plan = planForModelFailure(error);
      return plan !== undefined && 'ask' in plan && plan.ask.origin === 'model-unavailable';
    });
    return outage && this.waitForBatch(failureText(failures.at(-1)));
  }

  /**
   * A model outage past the retries in a batch that pauses for it: the batch asks one question for all its tasks and
   * says 'retry' (or cancels the task on 'stop'). Waiting never counts as a stall; past `blockerTimeout` without an
   * answer the task fails or calls the model again, as `onBlockerTimeout` says. False when there is no batch left to
   * answer: the task asks a human itself.
   */
  private async waitForBatch(message: string): Promise<boolean> {
    const outcome = await this.outage!.wait(message, this.input.blockerTimeout, () => this.publish());
    this.state.lastProgressAt = workflowNow();
    if (outcome === 'timed-out' && this.input.onBlockerTimeout === 'fail') {
      const waited = this.input.blockerTimeout;
      this.fail(
        'model_unavailable',
        ErrorType.TaskFailed,
        `the model API stayed unavailable and the batch gave no answer within ${waited}: ${message}`,
      );
    }
    return outcome !== 'no-batch';
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

  /**
   * The model ended its turn without a tool call. Since `finalQuestionsAfterGates`, the gates decide first: finished
   * work whose gates pass completes, and what it asked is kept as open questions; a turn that says it lacks
   * something (a requirement, access, a service) asks a human only while the work is not done (nothing changed, or
   * the gates fail). Runs from before asked a human about such a turn before any gate ran.
   */
  private async finish(text: string, target: ToolTarget): Promise<TaskResult | undefined> {
    if (!applies('finalQuestionsAfterGates')) return this.finishAskingFirst(text, target);
    const changed = this.state.filesChanged.length > 0 || (this.state.git?.checkpoints.length ?? 0) > 0;
    const unfinished = finalTurnBlocker(text, { changed, gatesFailing: false });
    if (unfinished) return this.askAboutFinalTurn(unfinished, 'nothing has changed yet');
    const results = await this.verify(target);
    if (!results.some((result) => gateVerdict(result) === 'failed')) {
      const unverified = describeUnverified(results);
      if (!unverified || this.state.toldUnverified) return this.completeVerified(text);
      // Once: the agent hears which gates could not say anything, and may check the work another way.
      this.state.toldUnverified = true;
      noteOpenQuestions(this.state, openQuestionsIn(text));
      this.pushCorrection([unverified]);
      return undefined;
    }
    const stuck = finalTurnBlocker(text, { changed, gatesFailing: true });
    const answer = stuck ? await this.askFinalQuestion(stuck, 'the gates fail') : undefined;
    if (answer === undefined) noteOpenQuestions(this.state, openQuestionsIn(text));
    else this.guards.guided();
    const notes = await correctionRound(this, this.guards, results);
    if (answer !== undefined) notes.push(`A human answered what you said at the end: ${answer}`);
    this.pushCorrection(notes);
    return undefined;
  }

  /** How runs from before `finalQuestionsAfterGates` finish: a question or a statement that it cannot go on asks first. */
  private async finishAskingFirst(text: string, target: ToolTarget): Promise<TaskResult | undefined> {
    const category = classifyFinalQuestion(text, 'legacy');
    if (category) {
      const answer = await this.askHuman({
        origin: 'final-question',
        question: questionsIn(text, 'legacy').join(' '),
        context: `${category} question`,
      });
      this.pushUserText(`A human answered your question: ${answer}`);
      return undefined;
    }
    const stuck = cannotGoOn(text, 'legacy');
    if (stuck && applies('finalStatements')) {
      const answer = await this.askHuman({
        origin: 'final-question',
        question: stuck.statement,
        context: `${stuck.category}: the agent says it cannot go on`,
      });
      this.pushUserText(`You said you cannot go on. A human answered: ${answer}`);
      return undefined;
    }
    const results = await this.verify(target);
    if (!results.some((result) => gateVerdict(result) === 'failed')) return this.completeVerified(text);
    this.pushCorrection(await correctionRound(this, this.guards, results));
    return undefined;
  }

  /** A final turn that lacks something while the work is not done: the human's answer goes back to the agent. */
  private async askAboutFinalTurn(signal: FinalSignal, why: string): Promise<undefined> {
    const answer = await this.askFinalQuestion(signal, why);
    this.pushUserText(
      signal.kind === 'statement' ? `You said you cannot go on. A human answered: ${answer}` : `A human answered your question: ${answer}`,
    );
    return undefined;
  }

  private askFinalQuestion(signal: FinalSignal, why: string): Promise<string> {
    const said = signal.kind === 'statement' ? `${signal.category}: the agent says it cannot go on` : `${signal.category} question`;
    return this.askHuman({ origin: 'final-question', question: signal.text, context: `${said}, and ${why}` });
  }

  private async verify(target: ToolTarget): Promise<GateResult[]> {
    this.state.phase = 'verifying';
    this.publish();
    return this.verifier.run(target);
  }

  /**
   * No gate failed (one that could not say anything does not send the work back: nothing the agent did failed it):
   * the task completes, its result saying whether it was verified, with the questions its last turn left open.
   */
  private async completeVerified(text: string): Promise<TaskResult> {
    if (applies('finalQuestionsAfterGates')) noteOpenQuestions(this.state, openQuestionsIn(text));
    this.guards.passed();
    await this.trail.finish(`${this.input.title}\n\n${text}`, true);
    await this.endEnvironment();
    return this.complete(text);
  }

  private pushCorrection(notes: string[]): void {
    this.state.phase = 'editing';
    this.state.messages.push({ role: 'user', content: notes.map((note) => ({ type: 'text', text: note })) });
    this.publish();
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

  private pushUserText(text: string): void {
    this.state.messages.push({ role: 'user', content: [{ type: 'text', text }] });
  }

  private async continueAsNew(): Promise<never> {
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

  private complete(summary: string): TaskResult {
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
  private async endEnvironment(): Promise<void> {
    const { environment, binding } = this.state;
    if (!binding || !hasHostEnvironment(this.input, environment) || !applies('taskEnvironment')) return;
    try {
      await stopTaskEnvironment(binding, this.hostWait(binding.hostId));
    } catch (error) {
      log.warn("the task's services could not be stopped", { error: String(error) });
    }
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

  private publish(): void {
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
