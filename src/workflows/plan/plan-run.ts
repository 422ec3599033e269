import { ApplicationFailure, ParentClosePolicy, setCurrentDetails, startChild, workflowInfo } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/workspace.js';
import { MAX_OUTPUT_TOKENS } from '../../shared/constants.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../../shared/conversation.js';
import { checkPlan, planBatchTasks, planTree, type Plan, type PlanInput } from '../../shared/plan.js';
import type { PlanPhase, PlanResult, PlanStateSnapshot, PlanStatus } from '../../shared/plan-state.js';
import { PLANNING_TOOLS, SUBMIT_PLAN, isToolName } from '../../shared/tools.js';
import { batchIdFromWorkflowId } from '../common/batch-id.js';
import { BlockerDesk, type BlockerSpec } from '../common/blocker-desk.js';
import { SearchAttributeTracker } from '../common/search-attributes.js';
import { setupActivities } from '../common/setup-activities.js';
import type { batchConductorWorkflow } from '../batch-conductor.js';
import { fileActivities } from '../common/activities.js';
import { callSideModel } from '../common/side-model-call.js';
import { ErrorType } from '../../shared/errors.js';
import { countIteration } from '../common/metrics.js';
import { Spend } from '../common/spend.js';
import { executeToolCalls, toToolResults, type ToolTarget } from '../common/tool-calls.js';
import { renderOpenBlockers } from '../common/blocker-details.js';
import { PLANNING_KICKOFF, planningSystemPrompt, reviewQuestion, stuckQuestion, SUBMIT_NOW } from './plan-prompt.js';
import { reviewVerdict } from './review.js';
import { PlanGuards } from './plan-guards.js';
import { applies } from '../common/patches.js';

/** Model turns of exploring per draft before the planner is told to submit. */
const EXPLORING_TURNS = 20;
/** Plans that fail validation (or turns without one past the nudge) before a human is asked. */
const MAX_INVALID_ROUNDS = 3;

/**
 * A PRD becomes a reviewed plan: the model explores the workspace read-only and submits a plan, which is checked as
 * a batch would check it (problems go back to the model, three rounds, then a human); a human approves, rejects with
 * a reason (planning goes again) or answers with a revised plan; the approved plan is written as a batch file and,
 * if asked, started as a batch.
 */
export class PlanRun {
  readonly desk: BlockerDesk;
  private readonly attributes = new SearchAttributeTracker();
  private readonly planId: string;
  private status: PlanStatus = 'running';
  private phase: PlanPhase = 'exploring';
  private system = '';
  private messages: Message[] = [];
  /** The answer to the latest turn, sent with the next model call. */
  private reply: ContentBlock[] = [];
  private turns = 0;
  private drafts = 0;
  /** Its model calls, within the plan's caps when it has any (checked from `planRunGuards` on). */
  readonly spend: Spend;
  /** Compaction and spend caps before each planning call; runs from before `planRunGuards` had neither. */
  private readonly guards?: PlanGuards;
  private plan?: Plan;
  private planFile?: string;
  private batchWorkflowId?: string;
  /** The PRD as read: the batch gives it to every task. */
  private prd = '';

  constructor(private readonly input: PlanInput) {
    this.planId = input.planId ?? batchIdFromWorkflowId(workflowInfo().workflowId);
    this.desk = new BlockerDesk(undefined, () => this.publish());
    this.spend = new Spend(undefined, { maxTotalTokens: input.maxTotalTokens, maxCostUsd: input.maxCostUsd });
    if (applies('planRunGuards')) this.guards = new PlanGuards(input, this);
  }

  async execute(): Promise<PlanResult> {
    this.publish();
    const { binding, target } = await this.prepare();
    let plan = await this.draft(target);
    for (;;) {
      const verdict = await this.review(plan);
      if (verdict.approved) {
        plan = verdict.plan;
        break;
      }
      this.reply.push({
        type: 'text',
        text: `A reviewer rejected the plan: ${verdict.reason}\nRevise the plan and submit it again with submit_plan.`,
      });
      plan = await this.draft(target);
    }
    this.plan = plan;
    this.phase = 'done';
    this.planFile = await fileActivities.writePlanFile.executeWithOptions(
      { taskQueue: binding.hostQueue, summary: `write plan ${this.planId} (${plan.tasks.length} tasks)` },
      [
        {
          workspace: binding.workspace,
          planId: this.planId,
          batch: { ...this.batchOptions(), workspace: '../..', tasks: planBatchTasks(plan) },
        },
      ],
    );
    if (this.input.start) this.batchWorkflowId = await this.startBatch(plan);
    this.status = 'completed';
    this.publish();
    return {
      planId: this.planId,
      planFile: this.planFile,
      plan,
      drafts: this.drafts,
      turns: this.turns,
      usage: this.spend.usage,
      costUsd: this.spend.costUsd,
      spendByPurpose: this.spend.byPurpose,
      ...(this.batchWorkflowId ? { batchWorkflowId: this.batchWorkflowId } : {}),
    };
  }

  snapshot(): PlanStateSnapshot {
    return {
      kind: 'plan',
      planId: this.planId,
      status: this.status,
      phase: this.phase,
      turns: this.turns,
      drafts: this.drafts,
      usage: this.spend.usage,
      costUsd: this.spend.costUsd,
      spendByPurpose: this.spend.byPurpose,
      openBlockers: this.desk.open(),
      answeredBlockers: this.desk.answered(),
      rejectedAnswers: this.desk.rejected,
      ...(this.plan ? { plan: this.plan, tree: planTree(this.plan) } : {}),
      ...(this.planFile ? { planFile: this.planFile } : {}),
      ...(this.batchWorkflowId ? { batchWorkflowId: this.batchWorkflowId } : {}),
    };
  }

  /** Binds the workspace's host, reads the project and the PRD, and builds the system prompt once. */
  private async prepare(): Promise<{ binding: WorkspaceBinding; target: ToolTarget }> {
    const binding = await setupActivities.bindWorkspace.executeWithOptions({ summary: `bind workspace ${this.input.workspace}` }, [
      this.input.workspace,
    ]);
    const onHost = (summary: string) => ({ taskQueue: binding.hostQueue, summary });
    const project = await fileActivities.describeWorkspace.executeWithOptions(onHost(`describe workspace on ${binding.hostId}`), [
      binding.workspace,
    ]);
    const prd = this.input.prdFile
      ? await fileActivities.readPrdFile.executeWithOptions(onHost(`read PRD ${this.input.prdFile}`), [
          { workspace: binding.workspace, file: this.input.prdFile },
        ])
      : this.input.prd!;
    this.prd = prd.trim();
    this.system = planningSystemPrompt(this.input, project, prd);
    this.reply = [{ type: 'text', text: PLANNING_KICKOFF }];
    const target = { workspace: binding.workspace, hostQueue: binding.hostQueue, access: { network: 'off' as const, env: [] } };
    return { binding, target };
  }

  /** Model turns until a plan passes the checks; after three failed rounds a human may hand over a plan or guidance. */
  private async draft(target: ToolTarget): Promise<Plan> {
    this.phase = 'exploring';
    this.drafts += 1;
    this.publish();
    let invalid = 0;
    for (let turn = 1; ; turn++) {
      if (turn > EXPLORING_TURNS) this.reply.push({ type: 'text', text: SUBMIT_NOW });
      const calls = await this.callModel();
      const outcome = calls.length ? await this.answer(calls, target) : { problems: ['the turn ended without calling submit_plan'] };
      if ('plan' in outcome) return outcome.plan;
      if (calls.length === 0) this.reply = [{ type: 'text', text: 'Call submit_plan with the plan.' }];
      const overdue = turn > EXPLORING_TURNS && outcome.problems.length === 0;
      if (outcome.problems.length === 0 && !overdue) continue;
      const problems = overdue ? [`no plan submitted after ${turn} turns`] : outcome.problems;
      invalid += 1;
      if (invalid < MAX_INVALID_ROUNDS) continue;
      const handed = await this.askForHelp(problems);
      if (handed) return handed;
      invalid = 0;
    }
  }

  private async callModel(): Promise<ToolUseBlock[]> {
    this.messages.push({ role: 'user', content: this.reply });
    this.reply = [];
    if (this.guards) this.messages = await this.guards.beforeCall(this.system, this.messages);
    this.turns += 1;
    countIteration();
    const request = { model: this.input.models?.planning ?? this.input.model, purpose: 'planning' as const, system: this.system };
    const turn = await callSideModel(
      { ...request, messages: this.messages, maxTokens: MAX_OUTPUT_TOKENS, toolSet: 'plan' },
      `plan: model turn ${this.turns}`,
      { model: this.input.models?.default },
      { askHuman: (spec) => this.askHuman(spec), stop: (message) => this.stop(message) },
    );
    this.spend.add(turn, 'planning');
    this.messages.push({ role: 'assistant', content: turn.content });
    this.publish();
    return turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  }

  /**
   * Runs the turn's reads and checks its `submit_plan` (the last one counts), and prepares the tool results. Tools
   * that change or run anything are refused: planning only reads.
   */
  private async answer(calls: ToolUseBlock[], target: ToolTarget): Promise<{ plan: Plan } | { problems: string[] }> {
    const reads = calls.filter((call) => isToolName(call.name) && PLANNING_TOOLS.has(call.name));
    const refuse = () => Promise.resolve({ content: 'planning only reads', isError: true });
    const executed = toToolResults(await executeToolCalls(reads, target, { askHuman: refuse, approveCommand: refuse }));
    const lastSubmit = calls.filter((call) => call.name === SUBMIT_PLAN).at(-1);
    const check = lastSubmit ? checkPlan(lastSubmit.input, this.input.maxTasks) : undefined;
    this.reply = calls.map((call): ToolResultBlock => {
      const read = executed.find((result) => result.tool_use_id === call.id);
      if (read) return read;
      if (call !== lastSubmit) {
        const content =
          call.name === SUBMIT_PLAN
            ? 'superseded by a later submit_plan in the same turn'
            : `${call.name} is not available while planning: only read_file, list_files, search_codebase and submit_plan are`;
        return { type: 'tool_result', tool_use_id: call.id, content, is_error: true };
      }
      if (check && 'plan' in check)
        return { type: 'tool_result', tool_use_id: call.id, content: 'plan received and sent to a human for review' };
      const problems = check && 'problems' in check ? check.problems : [];
      return { type: 'tool_result', tool_use_id: call.id, content: `the plan was not accepted: ${problems.join('; ')}`, is_error: true };
    });
    return check ?? { problems: [] };
  }

  /** A question for a human on the plan's own desk, the plan blocked while it waits. */
  async askHuman(spec: BlockerSpec): Promise<string> {
    this.status = 'blocked';
    const { answer } = (await this.desk.ask(spec)) as { answer: string };
    this.status = 'running';
    return answer;
  }

  stop(message: string): never {
    throw ApplicationFailure.nonRetryable(message, ErrorType.TaskFailed);
  }

  /** A plan a human hands over is checked like any other; anything else is guidance for the next round. */
  private async askForHelp(problems: string[]): Promise<Plan | undefined> {
    this.status = 'blocked';
    const { answer } = (await this.desk.ask({ origin: 'plan-review', question: stuckQuestion(problems) })) as { answer: string };
    this.status = 'running';
    const verdict = reviewVerdict(answer, this.input.maxTasks);
    if (verdict.kind === 'revised') return verdict.plan;
    this.reply.push({ type: 'text', text: `Guidance from a human: ${answer}` });
    return undefined;
  }

  private async review(plan: Plan): Promise<{ approved: true; plan: Plan } | { approved: false; reason: string }> {
    this.plan = plan;
    this.phase = 'reviewing';
    let problem: string | undefined;
    for (;;) {
      this.status = 'blocked';
      const question = reviewQuestion(this.planId, planTree(plan), problem);
      const { answer } = (await this.desk.ask({ origin: 'plan-review', question, options: ['approve', 'reject <why>'] })) as {
        answer: string;
      };
      this.status = 'running';
      const verdict = reviewVerdict(answer, this.input.maxTasks);
      if (verdict.kind === 'approve') return { approved: true, plan };
      if (verdict.kind === 'revised') return { approved: true, plan: verdict.plan };
      if (verdict.kind === 'reject') return { approved: false, reason: verdict.reason };
      problem = verdict.problem;
    }
  }

  private batchOptions() {
    const { maxParallel, onFailure, taskDefaults, models } = this.input;
    const { planning: _planning, ...forTasks } = models ?? {};
    return {
      batchId: this.planId,
      ...(this.prd ? { prd: this.prd } : {}),
      ...(Object.keys(forTasks).length ? { models: forTasks } : {}),
      ...(maxParallel === undefined ? {} : { maxParallel }),
      ...(onFailure === undefined ? {} : { onFailure }),
      ...(taskDefaults === undefined ? {} : { taskDefaults }),
    };
  }

  /** The batch outlives the plan: it is abandoned, not cancelled, when the plan's workflow closes. */
  private async startBatch(plan: Plan): Promise<string> {
    const workflowId = `batch-${this.planId}`;
    await startChild<typeof batchConductorWorkflow>('batchConductorWorkflow', {
      workflowId,
      args: [{ ...this.batchOptions(), workspace: this.input.workspace, tasks: planBatchTasks(plan) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary: `batch of ${plan.tasks.length} tasks from plan ${this.planId}`,
      staticDetails: plan.tasks.map((task) => `- ${task.id}: ${task.title}`).join('\n'),
    });
    return workflowId;
  }

  private publish(): void {
    this.attributes.update(this.status, this.phase);
    const snapshot = this.snapshot();
    const lines = [
      ...renderOpenBlockers(snapshot),
      `**Plan ${this.planId}**`,
      `Status: **${this.status}** · phase: **${this.phase}** · draft ${this.drafts} · model turns ${this.turns} · $${this.spend.costUsd.toFixed(4)}`,
      ...(snapshot.tree ? ['```', snapshot.tree, '```'] : []),
      ...(this.planFile ? [`Plan file: \`${this.planFile}\``] : []),
      ...(this.batchWorkflowId ? [`Batch: \`${this.batchWorkflowId}\``] : []),
    ];
    setCurrentDetails(lines.join('\n\n'));
  }
}
