import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;

/** One run of the batch or of a child, as the server holds it. */
export interface RunHistory {
  workflowId: string;
  history: History;
}

/**
 * A fault as the rig injected it, in this machine's clock (the server's event times are on the same clock):
 * `at` when it struck, `back` when the part that failed was running again (the same for a fault that is one step).
 */
export interface FaultWindow {
  at: number;
  back: number;
  /**
   * How long the fault kept its part away on purpose (a host gone for a minute), which a batch's lateness is not
   * held to: the goal is about recovering, not about the outage itself. 0 or absent for a kill and restart.
   */
  awayMs?: number;
}

/** What a piece of work was waiting for when the fault struck, and how long it took to go through. */
export interface Straggler {
  workflowId: string;
  /** `activity integrateTasks` or `workflow task`. */
  what: string;
  scheduledAt: number;
  doneAt: number;
  /** The attempt that went through (1 when nothing was retried). */
  attempt: number;
  /** Why the attempt before it failed, if one did (the server records it on the attempt that started). */
  lastFailure?: string;
}

/** How a batch came through a fault, from its own histories. */
export interface Recovery {
  /** From the fault to the first activity or workflow task completed once the failed part was back. */
  resumedMs: number;
  /**
   * From the fault until every activity and workflow task in flight at it (scheduled before the failed part was back
   * and not done before the fault) had gone through: the longest any piece of work was held up.
   */
  drainedMs: number;
  /** The piece of work that took longest, `drainedMs` of it. */
  slowest?: Straggler;
}

export const eventMs = (event: Event): number =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

/**
 * Every activity and workflow task of these runs, each from scheduled to done. An activity is done when it closes
 * (completed, or failed, timed out or cancelled for good: retries happen inside it); a workflow task when one completes,
 * so a task that timed out or failed and was scheduled again stays one piece of work until a worker completes it.
 */
export function workItems(runs: RunHistory[]): Straggler[] {
  const items: Straggler[] = [];
  for (const { workflowId, history } of runs) {
    const activities = new Map<number, { at: number; name: string }>();
    const started = new Map<number, { attempt: number; lastFailure?: string }>();
    let workflowTask: number | undefined;
    for (const event of history.events ?? []) {
      const at = eventMs(event);
      const id = Number(event.eventId);
      if (event.workflowTaskScheduledEventAttributes) workflowTask ??= at;
      if (event.workflowTaskCompletedEventAttributes && workflowTask !== undefined) {
        items.push({ workflowId, what: 'workflow task', scheduledAt: workflowTask, doneAt: at, attempt: 1 });
        workflowTask = undefined;
      }
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) activities.set(id, { at, name: scheduled.activityType?.name ?? '?' });
      const start = event.activityTaskStartedEventAttributes;
      if (start)
        started.set(Number(start.scheduledEventId), { attempt: start.attempt ?? 1, lastFailure: start.lastFailure?.message ?? undefined });
      const closed =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes ??
        event.activityTaskCanceledEventAttributes;
      if (closed) {
        const origin = activities.get(Number(closed.scheduledEventId));
        if (!origin) continue;
        const attempt = started.get(Number(closed.scheduledEventId));
        items.push({
          workflowId,
          what: `activity ${origin.name}`,
          scheduledAt: origin.at,
          doneAt: at,
          attempt: attempt?.attempt ?? 1,
          lastFailure: attempt?.lastFailure,
        });
      }
    }
  }
  return items;
}

/** `resumedMs` and `drainedMs` of one fault; `undefined` figures when no work came after it (a rig fault). */
export function recoveryFrom(runs: RunHistory[], fault: FaultWindow): Recovery {
  const items = workItems(runs);
  const completions = items.filter((item) => item.doneAt >= fault.back).map((item) => item.doneAt);
  if (completions.length === 0) throw new Error('no activity or workflow task completed after the fault: nothing to measure');
  const inFlight = items.filter((item) => item.scheduledAt <= fault.back && item.doneAt >= fault.at);
  const slowest = inFlight.reduce<Straggler | undefined>((worst, item) => (!worst || item.doneAt > worst.doneAt ? item : worst), undefined);
  return {
    resumedMs: Math.min(...completions) - fault.at,
    drainedMs: slowest ? slowest.doneAt - fault.at : 0,
    slowest,
  };
}

/** How much later than `referenceMs` the batch ended, the deliberate outage of `fault` not counted. */
export function latenessMs(batchMs: number, referenceMs: number, fault: FaultWindow): number {
  return batchMs - referenceMs - (fault.awayMs ?? 0);
}

/** From the batch's first run's start to its last run's close. */
export function batchDurationMs(batchRuns: History[]): number {
  const times = batchRuns.flatMap((history) => (history.events ?? []).map(eventMs));
  return Math.max(...times) - Math.min(...times);
}
