import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchInput } from '../../shared/batch-input.js';
import { TaskInputFieldsSchema } from '../../shared/task-input.js';
import type { BatchResult, BatchStateSnapshot, BatchTaskStatus, ChildReport } from '../../shared/batch-state.js';
import { batchIdKey } from '../common/batch-id.js';
import { BlockerDesk } from '../common/blocker-desk.js';
import { SearchAttributeTracker } from '../common/search-attributes.js';
import { addReportedAnswers } from './answers.js';
import { deliverEnd, type BatchParts } from './batch-parts.js';
import { renderBatchDetails } from './batch-details.js';
import { buildBatchResult } from './batch-result.js';
import { operatorAccess, prepareBatch } from './batch-setup.js';
import { batchPatches, type BatchPatches } from './before-patches.js';
import { BatchBudget } from './budget.js';
import { DeadlineWatch, deadlineOf } from './deadline.js';
import { failedReport, failureMessage } from './failed-report.js';
import { hostRunner, type HostRunner } from './host-wait.js';
import { InFlight } from './in-flight.js';
import { IntegrationVerifier } from './integration-verification.js';
import type { Merger } from './merge-outcome.js';
import { MergeQueue } from './merge-queue.js';
import { OutagePause } from './model-outage.js';
import { notifyNight, publishNight } from './night-end.js';
import { ending, placeOf, startState, type BatchCarry, type BatchState, type InboxItem } from './run-state.js';
import { countByStatus, isActive, isSettled, readyTasks, reviveForRetry } from './scheduler.js';
import { cancelBatch, keepStoppedRunFigures, onFailure, stopAtBudget, stopAtDeadline } from './stops.js';
import * as lifecycle from './task-lifecycle.js';
import { SerialMerges } from './serial-merges.js';
import { startTask } from './task-start.js';
import { takeBackFailedMerges } from './take-back.js';
import { WorktreeCleanup } from './worktree-cleanup.js';

export type { BatchCarry } from './run-state.js';

/**
 * Past this many events the batch continues as new even before the server suggests it (at 4,096): a worker that
 * takes over a batch after a crash replays at most this much, and the carried state stays one payload.
 */
const HISTORY_EVENTS_BUDGET = 2_000;

/**
 * A batch: tasks as child workflows over a dependency DAG, each in its own git worktree, merged into the batch's
 * integration branch in dependency order. Children are abandoned rather than tied to one run, so the batch can
 * continue as new while they work; each child reports its blockers and its end by signal. The run owns the main
 * loop; its parts (task starts, merges, stops) work on its one `BatchState`.
 */
export class BatchRun implements BatchParts {
  /** Its tasks become the tasks file's too once the first run has read it. */
  input: BatchInput;
  readonly state: BatchState;
  readonly patches: BatchPatches;
  readonly desk: BlockerDesk;
  readonly inFlight = new InFlight();
  readonly endsDelivered = new Set<string>();
  readonly deadline: DeadlineWatch;
  readonly budget: BatchBudget;
  readonly verifier: IntegrationVerifier;
  readonly onHost: HostRunner;
  private readonly merges: Merger;
  private readonly outage: OutagePause;
  /** `CodeloopStatus` kept current; `CodeloopPhase` for a batch is always `conducting`. */
  private readonly searchAttributes = new SearchAttributeTracker();
  /** What publishing and the morning message did, once the batch has ended. */
  private readonly nightEnd: Pick<BatchResult, 'published' | 'notifications'> = {};

  constructor(input: BatchInput, carry?: BatchCarry) {
    this.input = input;
    const { state, parts } = startState(input, carry);
    this.state = state;
    this.desk = new BlockerDesk(parts?.desk, () => this.publish());
    this.deadline = new DeadlineWatch(state.deadlineAt);
    this.patches = batchPatches();
    this.budget = new BatchBudget(input.maxCostUsd, parts?.budget, this.patches.countsEveryRun);
    this.onHost = hostRunner(this, TaskInputFieldsSchema.shape.hostTimeout.parse(input.taskDefaults.hostTimeout));
    this.merges = this.patches.mergesTogether
      ? new MergeQueue(this, new WorktreeCleanup(this.inFlight), this.patches.mergesPipelined)
      : new SerialMerges(this);
    this.verifier = new IntegrationVerifier(this.onHost, operatorAccess(input), parts?.integration);
    this.outage = new OutagePause(this);
  }

  get batchId(): string {
    return this.state.batchId;
  }

  async execute(): Promise<BatchResult> {
    upsertSearchAttributes([{ key: batchIdKey, value: this.batchId }]);
    if (this.state.states.length === 0) await this.prepare();
    this.deadline.start();
    this.publish();
    const { inbox } = this.state;
    for (;;) {
      while (inbox.length > 0) await this.handle(inbox.shift()!);
      this.rethrowFault();
      if (this.deadlineDue()) await stopAtDeadline(this);
      const limit = this.budget.due(this.state.states);
      if (limit) await stopAtBudget(this, limit);
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
          inbox.length > 0 ||
          this.startable() ||
          this.done() ||
          this.inFlight.fault !== undefined ||
          this.deadlineDue() ||
          this.budget.due(this.state.states) !== undefined,
      );
    }
  }

  private async prepare(): Promise<void> {
    const { tasks, repos, states } = await prepareBatch(this.input, this.batchId, this.onHost, this.desk);
    this.input = { ...this.input, tasks };
    Object.assign(this.state, { repos, states });
    if (this.patches.verifiesIntegration) for (const repo of Object.values(repos)) await this.verifier.recordBaseline(repo);
  }

  /** A bug met by work running in the background fails the batch here, with its own message. */
  private rethrowFault(): void {
    if (this.inFlight.fault !== undefined) throw this.inFlight.fault;
  }

  private deadlineDue(): boolean {
    return this.deadline.due && this.state.outcome !== 'deadline';
  }

  /** Every task settled, and no git step, start or conflict still under way. */
  private done(): boolean {
    return this.state.states.every(isSettled) && this.inFlight.idle();
  }

  private startable(): boolean {
    return this.slots() > 0 && readyTasks(this.state.states, this.input.onFailure).length > 0 && !this.stopping();
  }

  /** Nothing new starts: the batch is ending, or paused by a model outage. */
  private stopping(): boolean {
    return ending(this.state) || this.outage.paused;
  }

  private slots(): number {
    return this.input.maxParallel - this.state.states.filter(isActive).length;
  }

  /**
   * Starts every ready task there is a slot for: its worktree cut from the integration branch, then its child. The
   * starts run on their own, so a slow worktree never delays noticing the next task that becomes ready.
   */
  private startReady(): void {
    if (this.stopping()) return;
    const ready = readyTasks(this.state.states, this.input.onFailure).slice(0, Math.max(0, this.slots()));
    for (const state of ready) {
      lifecycle.start(state);
      this.inFlight.launch(
        'start',
        () => startTask(this, state),
        // A task whose worktree or child could not be started ends as failed, like any other failure.
        (error) => this.receive(failedReport(state, `could not start: ${failureMessage(error)}`)),
      );
    }
  }

  /** Child reports arrive by signal; their ends are queued and handled one at a time by the main loop. */
  receive(report: ChildReport): void {
    const state = this.state.states.find((candidate) => candidate.childWorkflowId === report.workflowId);
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
    keepStoppedRunFigures(this, state, report);
    deliverEnd(this, { taskId: state.id, report });
  }

  retry(taskId: string): void {
    // Past the deadline nothing starts again; `codeloop batch resume` starts a new batch for what is left.
    const { outcome } = this.state;
    const problem =
      outcome === 'deadline'
        ? 'the batch is past its deadline'
        : this.patches.endingRunsNothingAgain && ending(this.state)
          ? `the batch is ending (${outcome}) and starts nothing new`
          : reviveForRetry(this.state.states, taskId);
    if (problem) log.warn('retryTask ignored', { taskId, problem });
    this.publish();
  }

  /** A child's end: completed work goes to be merged; anything else ends the task. A repeated report is ignored. */
  private async handle({ taskId, report }: InboxItem): Promise<void> {
    const state = this.state.states.find((candidate) => candidate.id === taskId)!;
    if (state.status !== 'running' || report.kind !== 'finished') return;
    if (this.patches.answersFromReports) addReportedAnswers(state, report);
    lifecycle.finish(state, report, this.input.requireVerified, this.patches.countsEveryRun);
    this.budget.runEnded(state);
    // Completed work the batch takes (verified, unless it requires that) goes to be merged.
    if ((state.status as BatchTaskStatus) === 'merging') {
      this.merges.merge(state).catch((error) => this.inFlight.fail(error));
      return;
    }
    onFailure(this, state);
  }

  /** Cancelling the batch cancels its running children and waits (briefly) for them to say they stopped. */
  cancel(): Promise<void> {
    return cancelBatch(this);
  }

  private continueAsNewDue(): boolean {
    const info = workflowInfo();
    return (info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_BUDGET) && this.inFlight.idle('conflict', 'outage');
  }

  private async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    const carry: BatchCarry = {
      ...this.state,
      desk: this.desk.carry(),
      ...(this.patches.verifiesIntegration ? { integration: this.verifier.carry() } : {}),
      ...(this.budget.limits ? { budget: this.budget.carry() } : {}),
    };
    log.info('batch continuing as new', { runs: this.state.runs, historyLength: workflowInfo().historyLength });
    // The next run gets the tasks as read (a tasks file is read once, when the batch starts).
    const next: BatchInput = { ...this.input, tasksFile: undefined, batchId: this.batchId };
    return continueAsNew<(input: unknown, carry?: BatchCarry) => Promise<BatchResult>>(next, carry);
  }

  private async finish(): Promise<BatchResult> {
    const allDone = this.state.states.every((state) => state.status === 'completed');
    this.state.outcome ??= allDone ? 'completed' : 'failed';
    if (this.patches.takesBackFailedMerges) await takeBackFailedMerges(this);
    this.publish();
    await this.endNight();
    return this.result();
  }

  /** `publish` and `notify`: the branches pushed with their pull requests, then the morning message. */
  private async endNight(): Promise<void> {
    const { input, state } = this;
    if (!input.publish && !input.notify?.length) return;
    const published = input.publish ? await publishNight(input, this.result(), state.states, (id) => placeOf(input, state, id)) : [];
    if (published.length) this.nightEnd.published = published;
    const notifications = await notifyNight(input, this.result(), published);
    if (notifications.length) this.nightEnd.notifications = notifications;
  }

  result(): BatchResult {
    const { state } = this;
    const result = buildBatchResult({
      batchId: state.batchId,
      status: state.outcome === undefined ? 'completed' : state.outcome,
      deadline: this.deadline.at === undefined ? undefined : deadlineOf(this.input),
      integrationBranch: Object.values(state.repos)[0]?.repo.integrationBranch,
      states: state.states,
      startedAt: state.startedAt,
      runs: state.runs,
      ...(this.patches.verifiesIntegration ? { integration: this.verifier.status() } : {}),
    });
    const budget = this.budget.report(state.states);
    return { ...result, ...(budget ? { budget } : {}), ...this.nightEnd };
  }

  private status(): BatchStateSnapshot['status'] {
    const { outcome, states } = this.state;
    const settling = (outcome === 'failed' || outcome === 'budget') && !states.every(isSettled);
    if (outcome) return settling ? 'running' : outcome;
    return this.desk.open().length > 0 ? 'blocked' : 'running';
  }

  publish(): void {
    const snapshot = this.snapshot();
    this.searchAttributes.update(snapshot.status, 'conducting');
    setCurrentDetails(renderBatchDetails(snapshot));
  }

  snapshot(): BatchStateSnapshot {
    const { state } = this;
    return {
      batchId: state.batchId,
      status: this.status(),
      onFailure: this.input.onFailure,
      maxParallel: this.input.maxParallel,
      integrationBranch: Object.values(state.repos)[0]?.repo.integrationBranch,
      tasks: state.states,
      counts: countByStatus(state.states),
      openBlockers: this.desk.open(),
      answeredBlockers: this.desk.answered(),
      rejectedAnswers: this.desk.rejected,
      runs: state.runs,
      ...(this.patches.verifiesIntegration ? { integration: this.verifier.status() } : {}),
      ...(this.budget.limits ? { budget: this.budget.report(state.states) } : {}),
    };
  }
}
