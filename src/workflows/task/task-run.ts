import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import type { ToolOutcome, WorkspaceBinding } from '../../activities/index.js';
import { APPROVE_WORDS, STOP_WORDS } from '../../shared/blockers.js';
import { addUsage, emptyUsage, type ContentBlock, type Message, type ModelTurn, type ToolUseBlock, type Usage } from '../../shared/conversation.js';
import { ErrorType } from '../../shared/errors.js';
import { classifyFinalQuestion, questionsIn } from '../../shared/final-question.js';
import { buildSystemPrompt, kickoffMessage, type AnsweredQuestion, type ProjectContext } from '../../shared/prompt.js';
import { isRiskyCommand } from '../../shared/risky-command.js';
import type { TaskInput } from '../../shared/task-input.js';
import type { TaskPhase, TaskResult, TaskStateSnapshot, TaskStatus } from '../../shared/task-state.js';
import type { agentTaskWorkflow } from '../agent-task.js';
import { workflowNow } from '../workflow-time.js';
import { bindingActivities, fileActivities, modelActivities } from './activities.js';
import { BlockerDesk, type BlockerSpec, type DeskCarry } from './blocker-desk.js';
import { planForModelFailure } from './model-recovery.js';
import { phaseOf } from './phase.js';
import { payloadBytes, shouldContinueAsNew } from './run-budget.js';
import { executeToolCalls, toToolResults, type ToolTarget } from './tool-calls.js';
import { publishCurrentDetails, SearchAttributeTracker } from './visibility.js';

/** Everything a run hands to the next one at continue-as-new: the conversation, the counters, the blockers. */
export interface TaskCarry {
  binding: WorkspaceBinding;
  project: ProjectContext;
  messages: Message[];
  iteration: number;
  grantedIterations: number;
  usage: Usage;
  filesChanged: string[];
  phase: TaskPhase;
  lastStep?: string;
  runs: number;
  desk: DeskCarry;
}

const MAX_OUTPUT_TOKENS = 8_192;

/** One run of a task: the ReAct loop and the state `getState` reports. */
export class TaskRun {
  private terminal?: TaskStatus;
  private phase: TaskPhase;
  private iteration: number;
  private grantedIterations: number;
  private usage: Usage;
  private readonly filesChanged: Set<string>;
  private lastStep?: string;
  private readonly runs: number;
  private binding?: WorkspaceBinding;
  private project?: ProjectContext;
  private system = '';
  private messages: Message[];
  private result?: TaskResult;
  readonly desk: BlockerDesk;
  private readonly searchAttributes = new SearchAttributeTracker();

  constructor(
    private readonly input: TaskInput,
    carry?: TaskCarry,
  ) {
    this.phase = carry?.phase ?? 'starting';
    this.iteration = carry?.iteration ?? 0;
    this.grantedIterations = carry?.grantedIterations ?? 0;
    this.usage = carry?.usage ?? emptyUsage();
    this.filesChanged = new Set(carry?.filesChanged ?? []);
    this.lastStep = carry?.lastStep;
    this.runs = (carry?.runs ?? 0) + 1;
    this.binding = carry?.binding;
    this.project = carry?.project;
    this.messages = carry?.messages ?? [];
    this.desk = new BlockerDesk(carry?.desk, () => this.publish());
    if (this.project) this.system = this.buildSystem(this.project);
  }

  async execute(): Promise<TaskResult> {
    this.publish();
    const target = await this.prepare();
    for (;;) {
      if (shouldContinueAsNew(payloadBytes(this.messages) + this.system.length)) await this.continueAsNew();
      if (this.iteration >= this.budget()) await this.askForMoreIterations();
      this.iteration += 1;
      const turn = await this.callModel();
      this.usage = addUsage(this.usage, turn.usage);
      this.messages.push({ role: 'assistant', content: turn.content });
      const calls = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      if (calls.length > 0) {
        await this.runTools(calls, target);
        continue;
      }
      if (turn.stopReason === 'max_tokens') {
        this.pushUserText('Your reply was cut off at the output limit. Continue.');
        continue;
      }
      const text = finalText(turn.content);
      const category = classifyFinalQuestion(text);
      if (!category) return this.complete(text);
      const answer = await this.askHuman({ origin: 'final-question', question: questionsIn(text).join(' '), context: `${category} question` });
      this.pushUserText(`A human answered your question: ${answer}`);
    }
  }

  /**
   * Opens a blocker and waits, for days if need be. On the task's `blockerTimeout` it fails the task or returns a
   * note telling the agent to use its best judgement, as the task's `onBlockerTimeout` says. The one helper every
   * blocker goes through, whoever raised it.
   */
  async askHuman(spec: BlockerSpec): Promise<string> {
    const outcome = await this.desk.ask(spec, this.input.blockerTimeout);
    if (outcome.answered) return outcome.answer;
    const waited = this.input.blockerTimeout;
    if (this.input.onBlockerTimeout === 'fail') {
      this.fail('blocker_timeout', ErrorType.TaskFailed, `blocker ${outcome.blocker.id} got no answer within ${waited}: ${spec.question}`);
    }
    return `No answer came within ${waited}. Use your best judgement, say which assumption you made, and carry on.`;
  }

  /** First run: find the host with the workspace, read the project, build the system prompt once. */
  private async prepare(): Promise<ToolTarget> {
    if (!this.binding || !this.project) {
      this.binding = await bindingActivities.bindWorkspace.executeWithOptions({ summary: `bind workspace ${this.input.workspace}` }, [
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
    return { workspace: this.binding.workspace, hostQueue: this.binding.hostQueue };
  }

  /** Built once per run, so the cached prefix stays byte-identical; answers so far join the task layer. */
  private buildSystem(project: ProjectContext): string {
    const answered: AnsweredQuestion[] = [
      ...this.input.answers,
      ...this.desk.answered().map(({ question, answer }) => ({ question, answer: answer! })),
    ];
    return buildSystemPrompt(this.input, project, answered);
  }

  /** The model call, with failures no retry can fix turned into blockers a human can clear. */
  private async callModel(): Promise<ModelTurn> {
    for (;;) {
      try {
        return await modelActivities.callModel.executeWithOptions({ summary: `model turn ${this.iteration}/${this.budget()}` }, [
          { model: this.input.model, system: this.system, messages: this.messages, maxTokens: MAX_OUTPUT_TOKENS },
        ]);
      } catch (error) {
        const plan = planForModelFailure(error);
        if (!plan) throw error;
        if ('fail' in plan) this.fail(plan.reason, ErrorType.TaskFailed, plan.fail);
        const answer = await this.askHuman(plan.ask);
        if (STOP_WORDS.test(answer)) this.fail(plan.reason, ErrorType.TaskFailed, `stopped by a human: ${plan.ask.question}`);
      }
    }
  }

  private async runTools(calls: ToolUseBlock[], target: ToolTarget): Promise<void> {
    const executed = await executeToolCalls(calls, target, {
      askHuman: async ({ question, context }) => ({
        content: `Answer from a human: ${await this.askHuman({ origin: 'agent', question, context })}`,
        isError: false,
      }),
      approveCommand: (command) => this.approveCommand(command),
    });
    for (const { outcome } of executed) if (outcome.changedFile && !outcome.isError) this.filesChanged.add(outcome.changedFile);
    this.phase = phaseOf(executed) ?? this.phase;
    this.lastStep = executed[executed.length - 1].summary;
    this.messages.push({ role: 'user', content: toToolResults(executed) });
    this.publish();
  }

  /** The `approval` policy: a command that needs it becomes a blocker showing the exact command. */
  private async approveCommand(command: string): Promise<ToolOutcome | undefined> {
    const policy = this.input.approval;
    if (policy === 'never' || (policy === 'risky' && !isRiskyCommand(command))) return undefined;
    const answer = await this.askHuman({
      origin: 'approval',
      question: `Approve running this command in ${this.binding!.workspace}?\n\n    ${command}\n\nAnswer 'approve' or 'deny'.`,
      options: ['approve', 'deny'],
    });
    if (APPROVE_WORDS.test(answer)) return undefined;
    const note = /^\s*(deny|denied|no|n|reject)\s*[.!]?\s*$/i.test(answer) ? '' : ` The human said: ${answer}`;
    return { content: `A human denied running \`${command}\`; it did not run.${note}`, isError: true };
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
      usage: this.usage,
      filesChanged: [...this.filesChanged],
      phase: this.phase,
      lastStep: this.lastStep,
      runs: this.runs,
      desk: this.desk.carry(),
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
      usage: this.usage,
      elapsedMs: workflowNow() - workflowInfo().startTime.getTime(),
      runs: this.runs,
    };
  }

  private publish(): void {
    const status = this.status();
    const phase = status === 'blocked' ? 'blocked' : this.phase;
    this.searchAttributes.update(status, phase);
    publishCurrentDetails(this.snapshot());
  }

  snapshot(): TaskStateSnapshot {
    const status = this.status();
    return {
      title: this.input.title,
      status,
      phase: status === 'blocked' ? 'blocked' : this.phase,
      iteration: this.iteration,
      maxIterations: this.budget(),
      usage: this.usage,
      filesChanged: [...this.filesChanged].sort(),
      lastStep: this.lastStep,
      hostId: this.binding?.hostId,
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
