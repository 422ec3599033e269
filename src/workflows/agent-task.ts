import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { WorkspaceBinding } from '../activities/index.js';
import { addUsage, emptyUsage, type Message, type ToolUseBlock, type Usage } from '../shared/conversation.js';
import { ErrorType } from '../shared/errors.js';
import { buildSystemPrompt, kickoffMessage } from '../shared/prompt.js';
import { parseTaskInput, type TaskInput } from '../shared/task-input.js';
import type { TaskPhase, TaskResult, TaskStateSnapshot, TaskStatus } from '../shared/task-state.js';
import { getStateQuery } from './messages.js';
import { bindingActivities, fileActivities, modelActivities } from './task/activities.js';
import { phaseOf } from './task/phase.js';
import { payloadBytes, shouldContinueAsNew } from './task/run-budget.js';
import { executeToolCalls, toToolResults, type ToolTarget } from './task/tool-calls.js';
import { publishCurrentDetails, SearchAttributeTracker } from './task/visibility.js';
import { workflowNow } from './workflow-time.js';

/** Everything a run hands to the next one at continue-as-new: the conversation and the counters. */
export interface TaskCarry {
  binding: WorkspaceBinding;
  system: string;
  messages: Message[];
  iteration: number;
  usage: Usage;
  filesChanged: string[];
  phase: TaskPhase;
  lastStep?: string;
  runs: number;
}

const MAX_OUTPUT_TOKENS = 8_192;

/**
 * A coding task as a durable ReAct loop: each iteration is one model activity and then one activity per tool call,
 * until the model ends its turn without calling a tool. The conversation lives in workflow state, so a new worker
 * resumes exactly where a dead one stopped.
 */
export async function agentTaskWorkflow(rawInput: unknown, carry?: TaskCarry): Promise<TaskResult> {
  const input = parseTaskInput(rawInput);
  const run = new TaskRun(input, carry);
  setHandler(getStateQuery, () => run.snapshot());
  try {
    return await run.execute();
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(async () => run.settle('cancelled'));
    throw error;
  }
}

class TaskRun {
  private status: TaskStatus = 'running';
  private phase: TaskPhase;
  private iteration: number;
  private usage: Usage;
  private readonly filesChanged: Set<string>;
  private lastStep?: string;
  private readonly runs: number;
  private binding?: WorkspaceBinding;
  private system = '';
  private messages: Message[];
  private result?: TaskResult;
  private readonly searchAttributes = new SearchAttributeTracker();

  constructor(
    private readonly input: TaskInput,
    carry?: TaskCarry,
  ) {
    this.phase = carry?.phase ?? 'starting';
    this.iteration = carry?.iteration ?? 0;
    this.usage = carry?.usage ?? emptyUsage();
    this.filesChanged = new Set(carry?.filesChanged ?? []);
    this.lastStep = carry?.lastStep;
    this.runs = (carry?.runs ?? 0) + 1;
    this.binding = carry?.binding;
    this.system = carry?.system ?? '';
    this.messages = carry?.messages ?? [];
  }

  async execute(): Promise<TaskResult> {
    this.publish();
    const target = await this.prepare();
    for (;;) {
      if (shouldContinueAsNew(payloadBytes(this.messages) + this.system.length)) await this.continueAsNew();
      if (this.iteration >= this.input.maxIterations) {
        return this.fail('budget_exhausted', ErrorType.BudgetExhausted, `iteration budget of ${this.input.maxIterations} exhausted`);
      }
      this.iteration += 1;
      const turn = await modelActivities.callModel.executeWithOptions(
        { summary: `model turn ${this.iteration}/${this.input.maxIterations}` },
        [{ model: this.input.model, system: this.system, messages: this.messages, maxTokens: MAX_OUTPUT_TOKENS }],
      );
      this.usage = addUsage(this.usage, turn.usage);
      this.messages.push({ role: 'assistant', content: turn.content });
      const calls = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      if (calls.length === 0) {
        if (turn.stopReason === 'max_tokens') {
          this.messages.push({ role: 'user', content: [{ type: 'text', text: 'Your reply was cut off at the output limit. Continue.' }] });
          continue;
        }
        return this.complete(finalText(turn.content));
      }
      const executed = await executeToolCalls(calls, target, async () => ({
        content: 'raise_blocker is not available in this task',
        isError: true,
      }));
      for (const { outcome } of executed) if (outcome.changedFile && !outcome.isError) this.filesChanged.add(outcome.changedFile);
      this.phase = phaseOf(executed) ?? this.phase;
      this.lastStep = executed[executed.length - 1].summary;
      this.messages.push({ role: 'user', content: toToolResults(executed) });
      this.publish();
    }
  }

  /** First run: find the host with the workspace, read the project, build the system prompt once. */
  private async prepare(): Promise<ToolTarget> {
    if (!this.binding) {
      this.binding = await bindingActivities.bindWorkspace.executeWithOptions({ summary: `bind workspace ${this.input.workspace}` }, [
        this.input.workspace,
      ]);
      const project = await fileActivities.describeWorkspace.executeWithOptions(
        { taskQueue: this.binding.hostQueue, summary: `describe workspace on ${this.binding.hostId}` },
        [this.binding.workspace],
      );
      this.system = buildSystemPrompt(this.input, project);
      this.messages = [{ role: 'user', content: [{ type: 'text', text: kickoffMessage(this.input) }] }];
      this.phase = 'exploring';
      this.publish();
    }
    return { workspace: this.binding.workspace, hostQueue: this.binding.hostQueue };
  }

  private async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    log.info('continuing as new', { iteration: this.iteration, historyLength: workflowInfo().historyLength });
    const carry: TaskCarry = {
      binding: this.binding!,
      system: this.system,
      messages: this.messages,
      iteration: this.iteration,
      usage: this.usage,
      filesChanged: [...this.filesChanged],
      phase: this.phase,
      lastStep: this.lastStep,
      runs: this.runs,
    };
    return continueAsNew<typeof agentTaskWorkflow>(this.input, carry);
  }

  private complete(summary: string): TaskResult {
    this.phase = 'done';
    this.result = this.buildResult('completed', summary);
    this.settle('completed');
    return this.result;
  }

  private fail(reason: string, type: string, message: string): never {
    this.result = this.buildResult('failed', message, reason);
    this.settle('failed');
    throw ApplicationFailure.nonRetryable(message, type, this.result);
  }

  settle(status: TaskStatus): void {
    this.status = status;
    this.publish();
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
    this.searchAttributes.update(this.status, this.phase);
    publishCurrentDetails(this.snapshot());
  }

  snapshot(): TaskStateSnapshot {
    return {
      title: this.input.title,
      status: this.status,
      phase: this.phase,
      iteration: this.iteration,
      maxIterations: this.input.maxIterations,
      usage: this.usage,
      filesChanged: [...this.filesChanged].sort(),
      lastStep: this.lastStep,
      hostId: this.binding?.hostId,
      runs: this.runs,
      startedAt: workflowInfo().startTime.toISOString(),
      result: this.result,
    };
  }
}

function finalText(content: { type: string; text?: string }[]): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n')
    .trim();
}
