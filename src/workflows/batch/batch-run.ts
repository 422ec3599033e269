import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import {
  allHandlersFinished,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  setCurrentDetails,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PreparedWorktree } from '../../activities/git/index.js';
import type { BatchInput, BatchTask } from '../../shared/batch-input.js';
import { TaskInputFieldsSchema } from '../../shared/task-input.js';
import type { BatchResult, BatchStateSnapshot, BatchTaskState, BatchTaskStatus, ChildReport } from '../../shared/batch-state.js';
import { SEARCH_ATTRIBUTES } from '../../shared/constants.js';
import type { agentTaskWorkflow } from '../agent-task.js';
import { applies } from '../common/patches.js';
import { BlockerDesk, type DeskCarry } from '../common/blocker-desk.js';
import { onHost, type HostActivity } from '../common/host-wait.js';
import { SearchAttributeTracker } from '../common/search-attributes.js';
import { workflowNow } from '../common/workflow-time.js';
import { addReportedAnswers, readAnswersBeforeRerun } from './answers.js';
import { gitActivities } from '../common/activities.js';
import { renderBatchDetails } from './batch-details.js';
import { buildBatchResult } from './batch-result.js';
import { derivedBatchId, operatorAccess, prepareBatch, workspaceOf, type RepoState } from './batch-setup.js';
import { correctionBrief, IntegrationVerifier, type IntegrationCarry } from './integration-verification.js';
import { integrationDecision, integrationQuestion } from './integration-question.js';
import type { IntegrationFailure } from '../../shared/batch-state.js';
import { childInput } from './child-input.js';
import { interfaceMismatches, type Delivery } from '../../shared/delivery.js';
import { DEFAULT_ACCESS } from '../../shared/command-access.js';
import { taskContext } from './task-context.js';
import { failedReport, failureMessage } from './failed-report.js';
import { batchHostWait } from './host-wait.js';
import { InFlight } from './in-flight.js';
import { BatchBudget } from './budget.js';
import { notifyNight, publishNight } from './night-end.js';
import { conflictDecision, conflictQuestion } from './merge-conflict.js';
import { conflictBrief, noteConflictRerun, rerunsAlone } from './conflict-rerun.js';
import { OutagePause } from './model-outage.js';
import type { MergeHost, Merger, TaskPlace } from './merge-host.js';
import { MergeQueue } from './merge-queue.js';
import { countByStatus, isActive, isSettled, readyOnceMerged, readyTasks, reviveForRetry, skipDependents } from './scheduler.js';
import { SerialMerges } from './serial-merges.js';
import { DeadlineWatch, deadlineAt, deadlineOf } from './deadline.js';
import * as lifecycle from './task-lifecycle.js';
import { WorktreeCleanup } from './worktree-cleanup.js';

export const batchIdKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.batchId, SearchAttributeType.KEYWORD);

export interface BatchCarry {
  batchId: string;
  states: BatchTaskState[];
  repos: Record<string, RepoState>;
  worktrees: Record<string, string>;
  prepared: Record<string, { path: string; branch: string }>;
  desk: DeskCarry;
  /** Child reports received but not yet handled: they must not be lost at the run boundary. */
  inbox: InboxItem[];
  runs: number;
  startedAt: number;
  /** When the batch stops waiting, fixed by its first run; absent without a deadline. */
  deadlineAt?: number;
  /** The integration branches' gate baselines and latest verdicts (`batchVerifiesIntegration`). */
  integration?: IntegrationCarry;
  /** Running tasks' reported spend and the budget limit acted on; absent without `maxCostUsd`. */
  budget?: ReturnType<BatchBudget['carry']>;
}

type InboxItem = { taskId: string; report: ChildReport };

/**
 * Past this many events the batch continues as new even before the server suggests it (at 4,096): a worker that
 * takes over a batch after a crash replays at most this much, and the carried state stays one payload.
 */
const HISTORY_EVENTS_BUDGET = 2_000;

/**
 * A batch: tasks as child workflows over a dependency DAG, each in its own git worktree, merged into the batch's
 * integration branch in dependency order. Children are abandoned rather than tied to one run, so the batch can
 * continue as new while they work; each child reports its blockers and its end by signal.
 */
export class BatchRun implements MergeHost {
  readonly batchId: string;
  private tasks: BatchTask[];
  private states: BatchTaskState[];
  private repos: Record<string, RepoState>;
  private readonly worktrees: Record<string, string>;
  /** Worktrees already cut for tasks that became ready at a merge, waiting for a slot. */
  private readonly prepared: Record<string, { path: string; branch: string }>;
  readonly desk: BlockerDesk;
  private readonly runs: number;
  private readonly startedAt: number;
  private readonly inbox: InboxItem[];
  private outcome?: BatchResult['status'];
  readonly inFlight = new InFlight();
  private readonly merges: Merger;
  /** Answers come with each child's final report; runs from before that read them by activity before a re-run. */
  private readonly answersFromReports: boolean;
  /** Its own work on a host asks a human past `hostTimeout`; runs from before that wait for the host silently. */
  private readonly waitsForHosts: boolean;
  /** The tasks' `hostTimeout`, which the batch's own work on a host waits too. */
  private readonly hostTimeout: string;
  /** `CodeloopStatus` kept current; `CodeloopPhase` for a batch is always `conducting`. */
  private readonly searchAttributes = new SearchAttributeTracker();
  private readonly deadline: DeadlineWatch;
  /** Each task starts with the PRD, the plan in brief and what its dependencies delivered (`batchTaskContext`). */
  private readonly givesContext: boolean;
  /** A first conflict re-runs the task on the new base; runs from before that asked a human about every conflict. */
  private readonly rerunsConflicts: boolean;
  /** Its tasks report a model outage past their retries, and it asks once for all (`batchPausesOnOutage`). */
  private readonly pausesOnOutage: boolean;
  private readonly outage: OutagePause;
  readonly verifiesIntegration: boolean;
  private readonly verifier: IntegrationVerifier;
  private readonly budget: BatchBudget;
  /** What publishing and the morning message did, once the batch has ended. */
  private readonly nightEnd: Pick<BatchResult, 'published' | 'notifications'> = {};

  constructor(
    private readonly input: BatchInput,
    carry?: BatchCarry,
  ) {
    this.batchId = carry?.batchId ?? input.batchId ?? derivedBatchId();
    this.tasks = input.tasks;
    this.states = carry?.states ?? [];
    this.repos = carry?.repos ?? {};
    this.worktrees = carry?.worktrees ?? {};
    this.prepared = carry?.prepared ?? {};
    this.desk = new BlockerDesk(carry?.desk, () => this.publish());
    this.inbox = carry?.inbox ?? [];
    this.runs = (carry?.runs ?? 0) + 1;
    this.startedAt = carry?.startedAt ?? workflowNow();
    this.deadline = new DeadlineWatch(carry ? carry.deadlineAt : deadlineAt(input, this.startedAt));
    this.verifiesIntegration = applies('batchVerifiesIntegration');
    // Verified merges take turns: the gates must see the branch as one merge left it.
    this.budget = new BatchBudget(input.maxCostUsd, carry?.budget);
    this.merges = applies('batchMergesTogether')
      ? new MergeQueue(this, new WorktreeCleanup(this.inFlight), applies('batchMergesPipelined') && !this.verifiesIntegration)
      : new SerialMerges(this);
    this.verifier = new IntegrationVerifier(this.onHost, operatorAccess(input), carry?.integration);
    this.answersFromReports = applies('batchAnswersFromReports');
    this.waitsForHosts = applies('batchWaitsForHosts');
    this.hostTimeout = TaskInputFieldsSchema.shape.hostTimeout.parse(input.taskDefaults.hostTimeout);
    this.givesContext = applies('batchTaskContext');
    this.rerunsConflicts = applies('batchConflictReruns');
    this.pausesOnOutage = applies('batchPausesOnOutage');
    this.outage = new OutagePause({
      desk: this.desk,
      inFlight: this.inFlight,
      remainingMs: () => this.deadline.remainingMs(),
      publish: () => this.publish(),
      stop: (reason) => this.stopAfterOutage(reason),
    });
  }

  async execute(): Promise<BatchResult> {
    upsertSearchAttributes([{ key: batchIdKey, value: this.batchId }]);
    if (this.states.length === 0) await this.prepare();
    this.deadline.start();
    this.publish();
    for (;;) {
      while (this.inbox.length > 0) await this.handle(this.inbox.shift()!);
      this.rethrowFault();
      if (this.deadline.due && this.outcome !== 'deadline') await this.stopAtDeadline();
      const limit = this.budget.due(this.states);
      if (limit) await this.stopAtBudget(limit);
      if (this.done()) return await this.finish();
      if (this.continueAsNewDue()) {
        // Merges in flight finish first (seconds); a question waiting on a human postpones continue-as-new instead.
        await condition(() => this.inFlight.idle('start', 'git'));
        this.rethrowFault();
        if (this.inFlight.idle('conflict', 'outage')) await this.continueAsNew();
      }
      this.startReady();
      this.publish();
      await condition(
        () =>
          this.inbox.length > 0 ||
          this.startable() ||
          this.done() ||
          this.inFlight.fault !== undefined ||
          (this.deadline.due && this.outcome !== 'deadline') ||
          this.budget.due(this.states) !== undefined,
      );
    }
  }

  private async prepare(): Promise<void> {
    const { tasks, repos, states } = await prepareBatch(this.input, this.batchId, this.onHost, this.desk);
    this.tasks = tasks;
    this.repos = repos;
    this.states = states;
    if (this.verifiesIntegration) for (const repo of Object.values(repos)) await this.verifier.recordBaseline(repo);
  }

  /** A bug met by work running in the background fails the batch here, with its own message. */
  private rethrowFault(): void {
    if (this.inFlight.fault !== undefined) throw this.inFlight.fault;
  }

  /** Every task settled, and no git step, start or conflict still under way. */
  private done(): boolean {
    return this.states.every(isSettled) && this.inFlight.idle();
  }

  private startable(): boolean {
    return this.slots() > 0 && readyTasks(this.states, this.input.onFailure).length > 0 && !this.stopping();
  }

  /** Nothing new starts: the batch is ending, or paused by a model outage. */
  private stopping(): boolean {
    return this.ending() || this.outage.paused;
  }

  /** `fail-fast` after a failure, past the deadline, at the budget, or stopped after a model outage. */
  private ending(): boolean {
    return this.outcome === 'failed' || this.outcome === 'deadline' || this.outcome === 'budget' || this.outcome === 'cancelled';
  }

  private slots(): number {
    return this.input.maxParallel - this.states.filter(isActive).length;
  }

  /**
   * Starts every ready task there is a slot for: its worktree cut from the integration branch, then its child. The
   * starts run on their own, so a slow worktree never delays noticing the next task that becomes ready.
   */
  private startReady(): void {
    if (this.stopping()) return;
    const ready = readyTasks(this.states, this.input.onFailure).slice(0, Math.max(0, this.slots()));
    for (const state of ready) {
      lifecycle.start(state);
      this.inFlight.launch(
        'start',
        () => this.startTask(state),
        // A task whose worktree or child could not be started ends as failed, like any other failure.
        (error) => this.receive(failedReport(state, `could not start: ${failureMessage(error)}`)),
      );
    }
  }

  private task(id: string): BatchTask {
    return this.tasks.find((candidate) => candidate.id === id)!;
  }

  private async startTask(state: BatchTaskState): Promise<void> {
    const task = this.task(state.id);
    if (state.attempts > 0 && !this.answersFromReports) await readAnswersBeforeRerun(state);
    const { binding, repo } = this.repos[workspaceOf(this.input, task)];
    const prepared = this.prepared[task.id];
    delete this.prepared[task.id];
    const worktree =
      prepared ??
      (await this.onHost(
        binding.hostId,
        `worktree for ${task.id}`,
        (limit) =>
          gitActivities.createTaskWorktree.executeWithOptions(
            { taskQueue: binding.hostQueue, summary: `worktree for ${task.id}`, ...limit },
            // Verified, a dependent's worktree cut at a merge whose gates then failed is stale: it is cut again.
            [{ repo: repo.repo, batchId: this.batchId, taskId: task.id, fresh: state.attempts > 0 || this.verifiesIntegration }],
          ),
        state,
      ));
    this.worktrees[task.id] = worktree.path;
    // The deadline came while the worktree was cut.
    if (state.status !== 'running') return;
    lifecycle.beginAttempt(state, worktree.branch);
    const child = await startChild<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      workflowId: state.childWorkflowId,
      args: [
        childInput(
          this.input,
          task,
          state,
          { workspace: worktree.path, hostQueue: binding.hostQueue },
          this.contextOf(task, state),
          this.pausesOnOutage,
        ),
      ],
      // Children outlive a run of the batch (continue-as-new); cancelling the batch cancels them explicitly.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [{ key: batchIdKey, value: this.batchId }],
      staticSummary: `${task.id}: ${task.title}`,
      staticDetails: task.description,
    });
    lifecycle.childStarted(state);
    if (this.outcome === 'deadline') void this.cancelChild(state);
    // The child reports its own end by signal; this catches the ends it cannot report (terminated, timed out).
    child.result().then(
      () => undefined,
      (error) => {
        if (error instanceof ChildWorkflowFailure && !(error.cause instanceof ApplicationFailure)) {
          this.receive(failedReport(state, error.cause?.message ?? 'child ended'));
        }
      },
    );
  }

  /**
   * The batch's own work on a host asks a human once it has waited the tasks' `hostTimeout` for that host's worker;
   * for a task's worktree the question shows on `task`. Runs from before the patch call the activity as they did.
   */
  readonly onHost = <T>(hostId: string | undefined, what: string, run: HostActivity<T>, task?: BatchTaskState): Promise<T> => {
    if (!this.waitsForHosts || hostId === undefined) return run({});
    const batch = {
      desk: this.desk,
      timeout: this.hostTimeout,
      remainingMs: () => this.deadline.remainingMs(),
      publish: () => this.publish(),
    };
    return onHost(batchHostWait(batch, hostId, task), what, run);
  };

  /** Child reports arrive by signal; they are queued and handled one at a time by the main loop. */
  receive(report: ChildReport): void {
    const state = this.states.find((candidate) => candidate.childWorkflowId === report.workflowId);
    if (!state) return;
    if (report.kind === 'spend') {
      if (state.status === 'running') this.budget.noteSpend(state.id, { costUsd: report.costUsd, byPurpose: report.spendByPurpose });
      return;
    }
    if (report.kind === 'blockers') {
      lifecycle.noteBlockers(state, report.open);
      this.publish();
      return;
    }
    if (report.kind === 'outage') {
      this.outage.report(state, report.message);
      return;
    }
    this.inbox.push({ taskId: state.id, report });
  }

  retry(taskId: string): void {
    // Past the deadline nothing starts again; `codeloop batch resume` starts a new batch for what is left.
    const problem = this.outcome === 'deadline' ? 'the batch is past its deadline' : reviveForRetry(this.states, taskId);
    if (problem) log.warn('retryTask ignored', { taskId, problem });
    this.publish();
  }

  /** A child's end: completed work goes to be merged; anything else ends the task. A repeated report is ignored. */
  private async handle({ taskId, report }: InboxItem): Promise<void> {
    const state = this.states.find((candidate) => candidate.id === taskId)!;
    if (state.status !== 'running' || report.kind !== 'finished') return;
    if (this.answersFromReports) addReportedAnswers(state, report);
    lifecycle.finish(state, report, this.input.requireVerified);
    // Completed work the batch takes (verified, unless it requires that) goes to be merged.
    if ((state.status as BatchTaskStatus) === 'merging') {
      this.merges.merge(state).catch((error) => this.inFlight.fail(error));
      return;
    }
    this.onFailure(state);
  }

  private onFailure(state: BatchTaskState): void {
    if (this.input.onFailure === 'skip-dependents') skipDependents(this.states, state.id);
    if (this.input.onFailure === 'fail-fast') {
      this.outcome = 'failed';
      for (const other of this.states) {
        if (other.status === 'pending') lifecycle.skip(other, `fail-fast after ${state.id} failed`);
        if (other.status === 'running') void this.cancelChild(other);
      }
    }
    this.publish();
  }

  placeOf(taskId: string): TaskPlace {
    const task = this.task(taskId);
    return { ...this.repos[workspaceOf(this.input, task)], worktree: this.worktrees[taskId], title: task.title };
  }

  readyOnceMerged(group: string[]): { taskId: string; after: string[] }[] {
    const workspace = workspaceOf(this.input, this.task(group[0]));
    const ready = readyOnceMerged(this.states, group, this.input.onFailure);
    return ready.filter(({ taskId }) => workspaceOf(this.input, this.task(taskId)) === workspace);
  }

  keepPrepared(worktrees: PreparedWorktree[]): void {
    for (const worktree of worktrees) this.prepared[worktree.taskId] = worktree;
  }

  /**
   * The task's context (from batches that give it), and what a run that repeats the task must know: on a correction
   * round what failed on the integration branch after its merge, on a re-run after a conflict which files conflicted.
   */
  private contextOf(task: BatchTask, state: BatchTaskState): { prd?: string; batchContext?: string } {
    const context = this.givesContext ? taskContext(this.input, this.tasks, task, this.states) : {};
    const briefs = [correctionBrief(state), conflictBrief(state)].filter((brief) => brief !== undefined);
    if (briefs.length === 0) return context;
    return { ...context, batchContext: [context.batchContext, ...briefs].filter(Boolean).join('\n\n') };
  }

  /**
   * The gates on the integration branch once these tasks merged. Passing (or no worse than before the batch), they
   * complete. Failing, the last of them to merge takes the blame: its first time, it runs one correction round on the
   * new base with the failing tests; after that a human decides. The others complete: their merges came first.
   */
  async verifyMerged(states: BatchTaskState[]): Promise<void> {
    if (states.length === 0) return;
    const { failure } = await this.verifier.verify(this.placeOf(states[0].id));
    const culprit = failure ? states.at(-1) : undefined;
    for (const state of states) {
      if (state === culprit) continue;
      state.integrationFailure = undefined;
      this.merged(state);
    }
    if (culprit && failure) this.integrationBroken(culprit, failure);
  }

  private integrationBroken(state: BatchTaskState, failure: IntegrationFailure): void {
    state.integrationFailure = failure;
    // Worktrees cut for its dependents at this merge hold the broken branch.
    for (const dependent of this.states) if (dependent.dependsOn.includes(state.id)) delete this.prepared[dependent.id];
    log.warn('integration branch fails after a merge', { taskId: state.id, gates: failure.gates });
    if ((state.integrationRounds ?? 0) === 0) {
      state.integrationRounds = 1;
      lifecycle.requeue(state);
      this.publish();
      return;
    }
    this.inFlight.launch('conflict', () => this.askAboutIntegration(state, failure));
  }

  /** After its correction round the merge still breaks the gates: a human retries, accepts or fails it. */
  private async askAboutIntegration(state: BatchTaskState, failure: IntegrationFailure): Promise<void> {
    const question = integrationQuestion(state, this.placeOf(state.id).repo, failure);
    const decision = integrationDecision(await this.desk.ask(question, this.deadline.remainingMs()));
    if (decision === 'retry') {
      state.integrationRounds = (state.integrationRounds ?? 0) + 1;
      lifecycle.requeue(state);
    } else if (decision === 'accept') {
      this.merged(state);
    } else {
      const tests = failure.failures.length ? ` (${failure.failures.join('; ')})` : '';
      lifecycle.failMerge(state, `its merge breaks the integration branch: ${failure.gates.join(', ')} fail${tests}`);
      this.onFailure(state);
    }
    this.publish();
  }

  deliveryRequest(ids: string[]) {
    if (!this.givesContext) return undefined;
    const provides = Object.fromEntries(ids.flatMap((id) => (this.task(id).provides ? [[id, this.task(id).provides!]] : [])));
    return { provides, access: DEFAULT_ACCESS };
  }

  /** Each merged task's delivery, checked against the interface it declared. */
  delivered(deliveries: Delivery[]): void {
    for (const delivery of deliveries) {
      const state = this.states.find((candidate) => candidate.id === delivery.taskId);
      if (!state) continue;
      state.delivered = delivery;
      const provides = this.task(delivery.taskId).provides;
      if (provides?.length) state.interfaceMismatches = interfaceMismatches(provides, delivery.names);
    }
  }

  merged(state: BatchTaskState): void {
    lifecycle.merged(state);
    this.publish();
  }

  /** A merge step that failed for good (not a conflict) fails its task, like a task that failed on its own. */
  mergeFailed(state: BatchTaskState, error: unknown): void {
    if (state.status !== 'merging') return;
    lifecycle.failMerge(state, `could not merge: ${failureMessage(error)}`);
    this.onFailure(state);
  }

  /**
   * A task's merge conflicted: its first conflict re-runs it on the new base, its dependents waiting for the re-run as
   * they waited for the first run; a later one asks a human, and so does any in a batch that is ending (nothing new
   * starts there, so a re-run would never run).
   */
  conflicted(state: BatchTaskState, files: string[]): void {
    if (this.rerunsConflicts && rerunsAlone(state) && !this.ending()) {
      log.info('merge conflict: re-running the task on the new base', { taskId: state.id, files });
      noteConflictRerun(state, files);
      lifecycle.requeue(state);
      this.publish();
      return;
    }
    this.inFlight.launch('conflict', () => this.resolveConflict(state, files));
  }

  /** Waits for a human on a merge conflict without holding up unrelated tasks. */
  private async resolveConflict(state: BatchTaskState, files: string[]): Promise<void> {
    const question = conflictQuestion(state, this.placeOf(state.id).repo, files);
    // Unanswered by the deadline, a conflict is skipped like one answered 'skip'.
    const decision = conflictDecision(await this.desk.ask(question, this.deadline.remainingMs()));
    if (decision === 'retry') {
      if (this.rerunsConflicts) noteConflictRerun(state, files);
      lifecycle.requeue(state);
    } else if (decision === 'resolved') {
      await this.merges.merge(state);
    } else {
      lifecycle.failMerge(state, `merge conflict in ${files.join(', ')}`);
      this.onFailure(state);
    }
    this.publish();
  }

  private async cancelChild(state: BatchTaskState): Promise<void> {
    try {
      await getExternalWorkflowHandle(state.childWorkflowId).cancel();
    } catch {
      // Already closed.
    }
  }

  /**
   * The deadline: running tasks, blocked ones included, are cancelled and keep the questions they were waiting on;
   * pending ones are skipped; merges under way finish. The batch waits (briefly) for the cancelled children to say
   * they stopped, then ends with status `deadline`.
   */
  private async stopAtDeadline(): Promise<void> {
    this.outcome = 'deadline';
    const reason = `stopped at the batch's deadline (${deadlineOf(this.input)})`;
    const running = this.states.filter((state) => state.status === 'running');
    for (const state of running) lifecycle.stopAtDeadline(state, reason);
    for (const state of this.states.filter((candidate) => candidate.status === 'pending'))
      lifecycle.skip(state, `not started before the batch's deadline (${deadlineOf(this.input)})`);
    log.info('batch deadline reached', { batchId: this.batchId });
    this.publish();
    await this.stopChildren(running.filter((state) => state.startedAt !== undefined && !state.finishedAt));
  }

  /** Cancels these tasks' children and waits up to a minute for each to report that it stopped. */
  private async stopChildren(states: BatchTaskState[]): Promise<void> {
    await Promise.all(states.map((state) => this.cancelChild(state)));
    await condition(() => states.every((state) => this.inbox.some((item) => item.taskId === state.id)), '1 minute');
  }

  /**
   * The budget: at the soft limit nothing new starts and pending tasks are skipped, while running ones finish and
   * merge; at the hard limit running tasks are cancelled too, keeping the questions they were waiting on.
   */
  private async stopAtBudget(limit: 'soft' | 'hard'): Promise<void> {
    this.budget.acted = limit;
    if (this.outcome !== 'deadline' && this.outcome !== 'cancelled') this.outcome = 'budget';
    const { spentUsd } = this.budget.spent(this.states);
    const limits = this.budget.limits!;
    const spent = `$${spentUsd.toFixed(4)} spent`;
    for (const state of this.states.filter((candidate) => candidate.status === 'pending'))
      lifecycle.skip(state, `not started: the batch reached its budget (${spent}, soft limit $${limits.soft})`);
    log.info('batch budget reached', { batchId: this.batchId, limit, spentUsd });
    this.publish();
    if (limit === 'soft') return;
    await this.stopRunning(`stopped at the batch's budget (${spent}, hard limit $${limits.hard})`);
  }

  /**
   * Running tasks end now, their spend so far settled and the questions they were waiting on kept; their children are
   * cancelled and given a minute to say they stopped.
   */
  private async stopRunning(reason: string): Promise<void> {
    const running = this.states.filter((state) => state.status === 'running');
    for (const state of running) this.budget.settle(state);
    for (const state of running) lifecycle.stopAtDeadline(state, reason);
    this.publish();
    await this.stopChildren(running.filter((state) => state.startedAt !== undefined && !state.finishedAt));
  }

  /**
   * A model outage answered 'stop': the batch ends as a cancelled one does (running tasks cancelled, keeping the
   * questions they were waiting on, pending ones skipped; merges under way finish), but it still reports its result,
   * publishes what merged and sends the morning message.
   */
  private async stopAfterOutage(reason: string): Promise<void> {
    if (this.outcome !== 'deadline') this.outcome = 'cancelled';
    for (const state of this.states.filter((candidate) => candidate.status === 'pending')) lifecycle.skip(state, `not started: ${reason}`);
    log.info('batch stopped after a model outage', { batchId: this.batchId });
    await this.stopRunning(reason);
  }

  /** Cancelling the batch cancels its running children and waits (briefly) for them to say they stopped. */
  async cancel(): Promise<void> {
    await this.stopChildren(this.states.filter((state) => state.status === 'running'));
    for (const state of this.states) if (lifecycle.canMove(state, 'cancelled')) lifecycle.cancel(state);
    this.outcome = 'cancelled';
    this.publish();
  }

  private continueAsNewDue(): boolean {
    const info = workflowInfo();
    return (info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_BUDGET) && this.inFlight.idle('conflict', 'outage');
  }

  private async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    const carry: BatchCarry = {
      batchId: this.batchId,
      states: this.states,
      repos: this.repos,
      worktrees: this.worktrees,
      prepared: this.prepared,
      desk: this.desk.carry(),
      inbox: this.inbox,
      runs: this.runs,
      startedAt: this.startedAt,
      deadlineAt: this.deadline.at,
      ...(this.verifiesIntegration ? { integration: this.verifier.carry() } : {}),
      ...(this.budget.limits ? { budget: this.budget.carry() } : {}),
    };
    log.info('batch continuing as new', { runs: this.runs, historyLength: workflowInfo().historyLength });
    // The next run gets the tasks as read (a tasks file is read once, when the batch starts).
    const next: BatchInput = { ...this.input, tasks: this.tasks, tasksFile: undefined, batchId: this.batchId };
    return continueAsNew<(input: unknown, carry?: BatchCarry) => Promise<BatchResult>>(next, carry);
  }

  private async finish(): Promise<BatchResult> {
    const allDone = this.states.every((state) => state.status === 'completed');
    this.outcome ??= allDone ? 'completed' : 'failed';
    this.publish();
    await this.endNight();
    return this.result();
  }

  /** `publish` and `notify`: the branches pushed with their pull requests, then the morning message. */
  private async endNight(): Promise<void> {
    if (!this.input.publish && !this.input.notify?.length) return;
    const published = this.input.publish ? await publishNight(this.input, this.result(), this.states, (id) => this.placeOf(id)) : [];
    if (published.length) this.nightEnd.published = published;
    const notifications = await notifyNight(this.input, this.result(), published);
    if (notifications.length) this.nightEnd.notifications = notifications;
  }

  result(): BatchResult {
    const result = buildBatchResult({
      batchId: this.batchId,
      status: this.outcome === undefined ? 'completed' : this.outcome,
      deadline: this.deadline.at === undefined ? undefined : deadlineOf(this.input),
      integrationBranch: Object.values(this.repos)[0]?.repo.integrationBranch,
      states: this.states,
      startedAt: this.startedAt,
      runs: this.runs,
      ...(this.verifiesIntegration ? { integration: this.verifier.status() } : {}),
    });
    const budget = this.budget.report(this.states);
    return { ...result, ...(budget ? { budget } : {}), ...this.nightEnd };
  }

  private status(): BatchStateSnapshot['status'] {
    const settling = (this.outcome === 'failed' || this.outcome === 'budget') && !this.states.every(isSettled);
    if (this.outcome) return settling ? 'running' : this.outcome;
    return this.desk.open().length > 0 ? 'blocked' : 'running';
  }

  private publish(): void {
    const snapshot = this.snapshot();
    this.searchAttributes.update(snapshot.status, 'conducting');
    setCurrentDetails(renderBatchDetails(snapshot));
  }

  snapshot(): BatchStateSnapshot {
    return {
      batchId: this.batchId,
      status: this.status(),
      onFailure: this.input.onFailure,
      maxParallel: this.input.maxParallel,
      integrationBranch: Object.values(this.repos)[0]?.repo.integrationBranch,
      tasks: this.states,
      counts: countByStatus(this.states),
      openBlockers: this.desk.open(),
      answeredBlockers: this.desk.answered(),
      rejectedAnswers: this.desk.rejected,
      runs: this.runs,
      ...(this.verifiesIntegration ? { integration: this.verifier.status() } : {}),
      ...(this.budget.limits ? { budget: this.budget.report(this.states) } : {}),
    };
  }
}
