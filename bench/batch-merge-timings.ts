import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Timestamp } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

/** The batch's merge activities: one task each (`mergeTask`, older `integrateTask`) or several (`integrateTasks`). */
const MERGE_ACTIVITIES = new Set(['integrateTask', 'integrateTasks', 'mergeTask']);

export interface MergeTimings {
  /** Scheduled → started: waiting for a worker slot. */
  queuedMs: number[];
  /** Started → completed: the git work itself. */
  runMs: number[];
  /** Tasks merged by each activity. */
  tasksPerMerge: number[];
  /** The batch's own workflow tasks, scheduled → started and started → completed: the conductor's reaction time. */
  workflowTaskQueuedMs: number[];
  workflowTaskRunMs: number[];
  /** A child's end reaching the batch (its signal) → the merge activity that takes it scheduled: the merge queue. */
  mergeWaitMs: number[];
  /** The batch asking to start a child → the server reporting it started. */
  childStartMs: number[];
  /** Tasks whose worktree was cut when they started (`createTaskWorktree`), not by the merge that made them ready. */
  cutAtStart: string[];
  /** Per task, when its history events happened (ms since the epoch): to take a dependent's hand-off apart. */
  moments: Map<string, TaskMoments>;
}

export interface TaskMoments {
  /** Its child's end reached the batch. */
  reported?: number;
  /** The merge activity that took it: scheduled and completed. */
  mergeScheduled?: number;
  mergeCompleted?: number;
  /** When the batch's workflow task that took in that merge's result (the first to start after it) completed. */
  mergeTakenIn?: number;
  mergeEventId?: number;
  /** The batch run (its run id) whose history holds the merge's completion, and the one that asked for the child. */
  mergedInRun?: string;
  startedInRun?: string;
  /** The batch asked for its child (its worktree ready), and the server reported the child started. */
  startAsked?: number;
  childStarted?: number;
}

const toMs = (time?: Timestamp | null) => Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** Reads every run of the batch (it continues as new) and times its merge activities from their history events. */
export async function mergeTimings(client: Client, workflowId: string): Promise<MergeTimings> {
  const timings: MergeTimings = {
    queuedMs: [],
    runMs: [],
    tasksPerMerge: [],
    workflowTaskQueuedMs: [],
    workflowTaskRunMs: [],
    mergeWaitMs: [],
    childStartMs: [],
    moments: new Map(),
    cutAtStart: [],
  };
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
    addRun(history.events ?? [], timings, execution.runId);
  }
  return timings;
}

function addRun(events: temporal.api.history.v1.IHistoryEvent[], timings: MergeTimings, runId: string): void {
  const moment = (taskId: string) => timings.moments.get(taskId) ?? timings.moments.set(taskId, {}).get(taskId)!;
  const scheduled = new Map<number, { at: number; tasks: number; taskIds: string[] }>();
  const reported = new Map<string, number>();
  const startAsked = new Map<string, number>();
  const started = new Map<number, number>();
  const times = new Map<number, number>();
  /** Each completed workflow task: when it completed, and the event id of its start (what it can have seen). */
  const workflowTasksCompleted: { at: number; startedEventId: number }[] = [];
  for (const event of events) {
    const id = Number(event.eventId);
    const at = toMs(event.eventTime);
    times.set(id, at);
    const workflowTask = event.workflowTaskCompletedEventAttributes;
    if (workflowTask) {
      const startedAt = times.get(Number(workflowTask.startedEventId))!;
      timings.workflowTaskQueuedMs.push(startedAt - times.get(Number(workflowTask.scheduledEventId))!);
      timings.workflowTaskRunMs.push(at - startedAt);
      workflowTasksCompleted.push({ at, startedEventId: Number(workflowTask.startedEventId) });
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === 'childReport') {
      const [report] = (signal.input?.payloads ?? []).map((payload) =>
        defaultPayloadConverter.fromPayload<{ kind: string; workflowId: string }>(payload),
      );
      if (report?.kind === 'finished') {
        reported.set(taskIdOf(report.workflowId), at);
        moment(taskIdOf(report.workflowId)).reported = at;
      }
    }
    const scheduling = event.activityTaskScheduledEventAttributes;
    if (scheduling?.activityType?.name === 'createTaskWorktree') {
      timings.cutAtStart.push(defaultPayloadConverter.fromPayload<{ taskId: string }>(scheduling.input!.payloads![0]).taskId);
    }
    if (scheduling && MERGE_ACTIVITIES.has(scheduling.activityType?.name ?? '')) {
      const [input] = (scheduling.input?.payloads ?? []).map((payload) =>
        defaultPayloadConverter.fromPayload<{ tasks?: { taskId: string }[]; commitMessage?: string }>(payload),
      );
      // integrateTasks names its tasks; the older integrateTask only in its commit message, `<task id>: <title>`.
      const taskIds = input?.tasks?.map((task) => task.taskId) ?? [input?.commitMessage?.split(':')[0] ?? ''];
      for (const taskId of taskIds) if (reported.has(taskId)) timings.mergeWaitMs.push(at - reported.get(taskId)!);
      for (const taskId of taskIds) moment(taskId).mergeScheduled = at;
      scheduled.set(id, { at, tasks: taskIds.length, taskIds });
    }
    const asking = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (asking?.workflowId) {
      startAsked.set(asking.workflowId, at);
      moment(taskIdOf(asking.workflowId)).startAsked = at;
      moment(taskIdOf(asking.workflowId)).startedInRun = runId;
    }
    const childStarted = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (childStarted && startAsked.has(childStarted)) {
      timings.childStartMs.push(at - startAsked.get(childStarted)!);
      moment(taskIdOf(childStarted)).childStarted = at;
    }
    const start = event.activityTaskStartedEventAttributes;
    if (start && scheduled.has(Number(start.scheduledEventId))) started.set(Number(start.scheduledEventId), at);
    const completion = event.activityTaskCompletedEventAttributes;
    const merge = completion && scheduled.get(Number(completion.scheduledEventId));
    if (merge) {
      const startedAt = started.get(Number(completion!.scheduledEventId))!;
      timings.queuedMs.push(startedAt - merge.at);
      timings.runMs.push(at - startedAt);
      timings.tasksPerMerge.push(merge.tasks);
      for (const taskId of merge.taskIds) Object.assign(moment(taskId), { mergeCompleted: at, mergedInRun: runId, mergeEventId: id });
    }
  }
  for (const moments of timings.moments.values()) {
    if (moments.mergedInRun !== runId || moments.mergeTakenIn !== undefined) continue;
    moments.mergeTakenIn = workflowTasksCompleted.find(({ startedEventId }) => startedEventId > moments.mergeEventId!)?.at;
  }
}

const taskIdOf = (childWorkflowId: string) => childWorkflowId.slice(childWorkflowId.lastIndexOf('/') + 1);
