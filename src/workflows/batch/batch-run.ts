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
  proxyActivities,
  setCurrentDetails,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchRepo, createActivities, WorkspaceBinding } from '../../activities/index.js';
import { batchIdFromWorkflowId, legacyBatchIdFromWorkflowId } from '../../shared/batch-id.js';
import { assertValidDag, type BatchInput, type BatchTask } from '../../shared/batch-input.js';
import type { BatchResult, BatchStateSnapshot, BatchTaskState, ChildReport } from '../../shared/batch-state.js';
import { SEARCH_ATTRIBUTES } from '../../shared/constants.js';
import { emptyUsage } from '../../shared/conversation.js';
import type { AnsweredQuestion } from '../../shared/prompt.js';
import type { agentTaskWorkflow } from '../agent-task.js';
import { BlockerDesk, type DeskCarry } from '../task/blocker-desk.js';
import { SearchAttributeTracker } from '../task/visibility.js';
import { applies } from '../patches.js';
import { workflowNow } from '../workflow-time.js';
import { renderBatchDetails } from './batch-details.js';
import { buildBatchResult } from './batch-result.js';
import { countByStatus, dependencyDone, isActive, isSettled, readyTasks, reviveForRetry, skipDependents } from './scheduler.js';

type Activities = ReturnType<typeof createActivities>;

const setup = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });
const gitSteps = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export const batchIdKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.batchId, SearchAttributeType.KEYWORD);

/** One repository the batch works in: the host that holds it and its integration branch. */
interface RepoState {
  binding: WorkspaceBinding;
  repo: BatchRepo;
}

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
export class BatchRun {
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
  private conflictsInFlight = 0;
  /** Commits, merges and worktree removals under way; continue-as-new waits for them. */
  private gitStepsInFlight = 0;
  /** Worktrees being cut and children being started. */
  private startsInFlight = 0;
  private mergeLock: Promise<void> = Promise.resolve();
  /** `CodeloopStatus` kept current; `CodeloopPhase` for a batch is always `conducting`. */
  private readonly searchAttributes = new SearchAttributeTracker();

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
  }

  async execute(): Promise<BatchResult> {
    upsertSearchAttributes([{ key: batchIdKey, value: this.batchId }]);
    if (this.states.length === 0) await this.prepare();
    this.publish();
    for (;;) {
      while (this.inbox.length > 0) await this.handle(this.inbox.shift()!);
      if (this.done()) return this.finish();
      if (this.continueAsNewDue()) {
        // Merges in flight finish first (seconds); a merge waiting on a human postpones continue-as-new instead.
        await condition(() => this.gitStepsInFlight === 0 && this.startsInFlight === 0);
        if (this.conflictsInFlight === 0) await this.continueAsNew();
      }
      this.startReady();
      this.publish();
      await condition(() => this.inbox.length > 0 || this.startable() || this.done());
    }
  }

  /** Reads the tasks file if there is one, checks the DAG, binds each repository's host and cuts its integration branch. */
  private async prepare(): Promise<void> {
    if (this.input.tasksFile) {
      const binding = await this.bind(this.input.workspace!);
      const fromFile = await setup.readTasksFile.executeWithOptions(
        { taskQueue: binding.hostQueue, summary: `read tasks from ${this.input.tasksFile}` },
        [{ workspace: binding.workspace, file: this.input.tasksFile }],
      );
      this.tasks = [...this.tasks, ...fromFile];
      assertValidDag(this.tasks);
    }
    for (const workspace of new Set(this.tasks.map((task) => this.workspaceOf(task)))) {
      const binding = await this.bind(workspace);
      const repo = await gitSteps.prepareBatchRepo.executeWithOptions(
        { taskQueue: binding.hostQueue, summary: `integration branch for batch ${this.batchId}` },
        [{ repo: binding.workspace, batchId: this.batchId, baseBranch: this.input.baseBranch }],
      );
      this.repos[workspace] = { binding, repo };
    }
    this.states = this.tasks.map((task) => ({
      id: task.id,
      title: task.title,
      dependsOn: task.dependsOn,
      status: 'pending',
      childWorkflowId: `${workflowInfo().workflowId}/${task.id}`,
      attempts: 0,
    }));
  }

  private bind(workspace: string): Promise<WorkspaceBinding> {
    return setup.bindWorkspace.executeWithOptions({ summary: `bind workspace ${workspace}` }, [workspace]);
  }

  private workspaceOf(task: BatchTask): string {
    return task.workspace ?? this.input.workspace!;
  }

  /** Every task settled, and no git step or conflict still under way. */
  private done(): boolean {
    return this.states.every(isSettled) && this.conflictsInFlight === 0 && this.gitStepsInFlight === 0 && this.startsInFlight === 0;
  }

  private startable(): boolean {
    return this.slots() > 0 && readyTasks(this.states, this.input.onFailure).length > 0 && this.outcome !== 'failed';
  }

  private slots(): number {
    return this.input.maxParallel - this.states.filter(isActive).length;
  }

  /**
   * Starts every ready task there is a slot for: its worktree cut from the integration branch, then its child. The
   * starts run on their own, so a slow worktree never delays noticing the next task that becomes ready.
   */
  private startReady(): void {
    if (this.outcome === 'failed') return;
    const ready = readyTasks(this.states, this.input.onFailure).slice(0, Math.max(0, this.slots()));
    const now = workflowNow();
    for (const state of ready) {
      state.readyAt ??= now;
      state.status = 'running';
      this.startsInFlight += 1;
      void this.startTask(state)
        .catch((error) => this.receive(this.failedToStart(state, error)))
        .finally(() => (this.startsInFlight -= 1));
    }
  }

  /** A task whose worktree or child could not be started ends as failed, like any other failure. */
  private failedToStart(state: BatchTaskState, error: unknown): ChildReport {
    const cause = (error as { cause?: Error }).cause;
    const reason = `could not start: ${cause?.message ?? (error instanceof Error ? error.message : String(error))}`;
    return failedReport(state, reason);
  }

  private task(id: string): BatchTask {
    return this.tasks.find((candidate) => candidate.id === id)!;
  }

  private async startTask(state: BatchTaskState): Promise<void> {
    const task = this.task(state.id);
    if (state.attempts > 0) await this.collectAnswers(state);
    const { binding, repo } = this.repos[this.workspaceOf(task)];
    const prepared = this.prepared[task.id];
    delete this.prepared[task.id];
    const worktree =
      prepared ??
      (await gitSteps.createTaskWorktree.executeWithOptions({ taskQueue: binding.hostQueue, summary: `worktree for ${task.id}` }, [
        { repo: repo.repo, batchId: this.batchId, taskId: task.id, fresh: state.attempts > 0 },
      ]));
    state.branch = worktree.branch;
    this.worktrees[task.id] = worktree.path;
    state.attempts += 1;
    const child = await startChild<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      workflowId: state.childWorkflowId,
      args: [
        {
          // What the batch lets every task's commands reach, unless taskDefaults or the task itself say otherwise.
          ...(this.input.network === undefined ? {} : { network: this.input.network }),
          ...(this.input.env === undefined ? {} : { env: this.input.env }),
          ...this.input.taskDefaults,
          title: task.title,
          description: task.description,
          workspace: worktree.path,
          hostQueue: binding.hostQueue,
          ...(task.prd === undefined ? {} : { prd: task.prd }),
          ...(task.maxIterations === undefined ? {} : { maxIterations: task.maxIterations }),
          ...(task.complexity === undefined ? {} : { complexity: task.complexity }),
          ...(task.network === undefined ? {} : { network: task.network }),
          ...(task.env === undefined ? {} : { env: task.env }),
          ...(state.answers?.length ? { answers: state.answers } : {}),
        },
      ],
      // Children outlive a run of the batch (continue-as-new); cancelling the batch cancels them explicitly.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [{ key: batchIdKey, value: this.batchId }],
      staticSummary: `${task.id}: ${task.title}`,
      staticDetails: task.description,
    });
    state.startedAt = workflowNow();
    state.finishedAt = undefined;
    state.blockedOn = undefined;
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
   * Before a re-run (`retryTask`, or 'retry' on a merge conflict): what humans answered the earlier runs, so the new
   * run does not ask again. Reading them is best effort; a re-run without them is still a re-run.
   */
  private async collectAnswers(state: BatchTaskState): Promise<void> {
    if (!applies('batchRerunKeepsAnswers')) return;
    try {
      const answered = await setup.readAnsweredQuestions.executeWithOptions({ summary: `answers given to ${state.id}` }, [state.childWorkflowId]);
      state.answers = withoutRepeats([...(state.answers ?? []), ...answered]);
    } catch (error) {
      log.warn('re-running without the earlier answers', { taskId: state.id, error: String(error) });
    }
  }

  /** Child reports arrive by signal; they are queued and handled one at a time by the main loop. */
  receive(report: ChildReport): void {
    const state = this.states.find((candidate) => candidate.childWorkflowId === report.workflowId);
    if (!state) return;
    if (report.kind === 'blockers') {
      if (state.status === 'running') state.blockedOn = report.open.length ? report.open : undefined;
      this.publish();
      return;
    }
    this.inbox.push({ taskId: state.id, report });
  }

  retry(taskId: string): void {
    const problem = reviveForRetry(this.states, taskId);
    if (problem) log.warn('retryTask ignored', { taskId, problem });
    this.publish();
  }

  private async handle({ taskId, report }: InboxItem): Promise<void> {
    const state = this.states.find((candidate) => candidate.id === taskId)!;
    if (state.status !== 'running' || report.kind !== 'finished') return;
    state.finishedAt = workflowNow();
    state.iterations = report.iterations;
    state.usage = report.usage;
    state.costUsd = report.costUsd;
    state.blockedOn = undefined;
    if (report.status === 'completed') {
      state.status = 'merging';
      void this.merge(state);
      return;
    }
    state.status = report.status;
    state.endedAt = workflowNow();
    state.reason = report.reason;
    this.onFailure(state);
  }

  private onFailure(state: BatchTaskState): void {
    if (this.input.onFailure === 'skip-dependents') skipDependents(this.states, state.id);
    if (this.input.onFailure === 'fail-fast') {
      this.outcome = 'failed';
      for (const other of this.states) {
        if (other.status === 'pending') {
          other.status = 'skipped';
          other.reason = `fail-fast after ${state.id} failed`;
        }
        if (other.status === 'running') void this.cancelChild(other);
      }
    }
    this.publish();
  }

  /** Merges run one at a time: they all move the same integration branch. */
  private withMergeLock<T>(body: () => Promise<T>): Promise<T> {
    const next = this.mergeLock.then(body);
    this.mergeLock = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /**
   * Commits the task's worktree and merges its branch, one merge at a time (they all move the integration branch);
   * removing the worktree afterwards runs beside other merges. A conflict becomes a blocker on the batch.
   */
  private async merge(state: BatchTaskState): Promise<void> {
    const task = this.task(state.id);
    const { binding, repo } = this.repos[this.workspaceOf(task)];
    const onHost = (summary: string) => ({ taskQueue: binding.hostQueue, summary });
    this.gitStepsInFlight += 1;
    try {
      const outcome = await this.withMergeLock(() =>
        gitSteps.integrateTask.executeWithOptions(onHost(`commit and merge ${task.id} into ${repo.integrationBranch}`), [
          {
            worktree: this.worktrees[task.id],
            commitMessage: `${task.id}: ${task.title}`,
            integrationPath: repo.integrationPath,
            branch: state.branch!,
            mergeMessage: `Merge ${task.id}: ${task.title}`,
            prepare: { repo: repo.repo, batchId: this.batchId, taskIds: this.readyAfter(state) },
          },
        ]),
      );
      if (outcome.merged) for (const worktree of outcome.prepared) this.prepared[worktree.taskId] = worktree;
      if (!outcome.merged) {
        this.conflictsInFlight += 1;
        void this.resolveConflict(state, outcome.conflicts).finally(() => (this.conflictsInFlight -= 1));
        return;
      }
      state.status = 'completed';
      state.endedAt = workflowNow();
      this.publish();
      await gitSteps.removeTaskWorktree.executeWithOptions(onHost(`remove worktree of ${task.id}`), [{ repo: repo.repo, path: this.worktrees[task.id] }]);
    } finally {
      this.gitStepsInFlight -= 1;
    }
  }

  /** The pending dependents (in the same repository) whose last unfinished dependency is `state`. */
  private readyAfter(state: BatchTaskState): string[] {
    const workspace = this.workspaceOf(this.task(state.id));
    const done = (id: string) => dependencyDone(this.states.find((candidate) => candidate.id === id)!, this.input.onFailure);
    return this.states
      .filter((other) => other.status === 'pending' && other.dependsOn.includes(state.id))
      .filter((other) => other.dependsOn.every((id) => id === state.id || done(id)))
      .filter((other) => this.workspaceOf(this.task(other.id)) === workspace)
      .map((other) => other.id);
  }

  /** Waits for a human on a merge conflict without holding up unrelated tasks. */
  private async resolveConflict(state: BatchTaskState, files: string[]): Promise<void> {
    const { repo } = this.repos[this.workspaceOf(this.task(state.id))];
    const outcome = await this.desk.ask({
      origin: 'merge-conflict',
      question:
        `Merging task ${state.id} (${state.branch}) into ${repo.integrationBranch} conflicts in: ${files.join(', ')}.\n` +
        `Resolve it by merging ${state.branch} in ${repo.integrationPath} and committing, then answer 'resolved'; ` +
        `or answer 'retry' to re-run the task on the current integration branch, or 'skip' to fail it.`,
      options: ['resolved', 'retry', 'skip'],
    });
    const answer = outcome.answered ? outcome.answer.trim().toLowerCase() : 'skip';
    if (answer.startsWith('retry')) {
      state.status = 'pending';
      state.reason = undefined;
    } else if (answer.startsWith('resolved')) {
      await this.merge(state);
    } else {
      state.status = 'failed';
      state.endedAt = workflowNow();
      state.reason = `merge conflict in ${files.join(', ')}`;
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

  /** Cancelling the batch cancels its running children and waits (briefly) for them to say they stopped. */
  async cancel(): Promise<void> {
    const running = this.states.filter((state) => state.status === 'running');
    await Promise.all(running.map((state) => this.cancelChild(state)));
    const stopped = () => running.every((state) => this.inbox.some((item) => item.taskId === state.id));
    await condition(stopped, '1 minute');
    for (const state of this.states) {
      if (state.status === 'running' || state.status === 'pending' || state.status === 'merging') {
        state.status = 'cancelled';
        state.endedAt ??= workflowNow();
      }
    }
    this.outcome = 'cancelled';
    this.publish();
  }

  private continueAsNewDue(): boolean {
    const info = workflowInfo();
    return (info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_BUDGET) && this.conflictsInFlight === 0;
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
    };
    log.info('batch continuing as new', { runs: this.runs, historyLength: workflowInfo().historyLength });
    // The next run gets the tasks as read (a tasks file is read once, when the batch starts).
    const next: BatchInput = { ...this.input, tasks: this.tasks, tasksFile: undefined, batchId: this.batchId };
    return continueAsNew<(input: unknown, carry?: BatchCarry) => Promise<BatchResult>>(next, carry);
  }

  private finish(): BatchResult {
    const allDone = this.states.every((state) => state.status === 'completed');
    this.outcome ??= allDone ? 'completed' : 'failed';
    this.publish();
    return this.result();
  }

  result(): BatchResult {
    return buildBatchResult({
      batchId: this.batchId,
      status: this.outcome === 'cancelled' || this.outcome === 'failed' ? this.outcome : 'completed',
      integrationBranch: Object.values(this.repos)[0]?.repo.integrationBranch,
      states: this.states,
      startedAt: this.startedAt,
      runs: this.runs,
    });
  }

  private status(): BatchStateSnapshot['status'] {
    if (this.outcome) return this.outcome === 'failed' && !this.states.every(isSettled) ? 'running' : this.outcome;
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
    };
  }
}

/**
 * The batch id of a batch started without one. Ids past 64 characters used to lose their end (a schedule's time);
 * runs that started before keep the id they have.
 */
function derivedBatchId(): string {
  const { workflowId } = workflowInfo();
  const derived = batchIdFromWorkflowId(workflowId);
  const legacy = legacyBatchIdFromWorkflowId(workflowId);
  return derived === legacy || applies('batchIdKeepsSuffix') ? derived : legacy;
}

/** The report of a child that could not report its own end: failed, having used nothing the batch can count. */
function failedReport(state: BatchTaskState, reason: string): ChildReport {
  return { kind: 'finished', workflowId: state.childWorkflowId, status: 'failed', iterations: 0, usage: emptyUsage(), costUsd: 0, reason };
}

function withoutRepeats(answers: AnsweredQuestion[]): AnsweredQuestion[] {
  const seen = new Set<string>();
  return answers.filter(({ question, answer }) => {
    const key = JSON.stringify([question, answer]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
