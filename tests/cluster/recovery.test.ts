import type { temporal } from '@temporalio/proto';
import { describe, expect, test } from 'vitest';
import { batchDurationMs, latenessMs, recoveryFrom, workItems, type RunHistory } from './recovery.js';

type Event = temporal.api.history.v1.IHistoryEvent;

/**
 * An event at `ms` (epoch milliseconds) with the attributes given. Plain numbers stand in for the protobuf `Long`s,
 * which the code under test reads through `Number()` either way.
 */
const at = (ms: number, eventId: number, attributes: Record<string, unknown>): Event =>
  ({ eventId, eventTime: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 }, ...attributes }) as unknown as Event;

const scheduled = (ms: number, id: number, name: string) =>
  at(ms, id, { activityTaskScheduledEventAttributes: { activityType: { name } } });
const started = (ms: number, id: number, scheduledEventId: number, attempt = 1, lastFailure?: string) =>
  at(ms, id, {
    activityTaskStartedEventAttributes: { scheduledEventId, attempt, ...(lastFailure ? { lastFailure: { message: lastFailure } } : {}) },
  });
const completedActivity = (ms: number, id: number, scheduledEventId: number) =>
  at(ms, id, { activityTaskCompletedEventAttributes: { scheduledEventId } });
const workflowTaskScheduled = (ms: number, id: number) => at(ms, id, { workflowTaskScheduledEventAttributes: {} });
const workflowTaskTimedOut = (ms: number, id: number) => at(ms, id, { workflowTaskTimedOutEventAttributes: {} });
const workflowTaskCompleted = (ms: number, id: number) => at(ms, id, { workflowTaskCompletedEventAttributes: {} });

const run = (workflowId: string, events: Event[]): RunHistory => ({ workflowId, history: { events } });

describe('workItems', () => {
  test('an activity runs from scheduled to closed, its last attempt and why the one before failed kept', () => {
    const items = workItems([
      run('batch', [
        scheduled(1_000, 5, 'integrateTasks'),
        started(31_000, 6, 5, 2, 'activity Heartbeat timeout'),
        completedActivity(32_000, 7, 5),
      ]),
    ]);
    expect(items).toEqual([
      {
        workflowId: 'batch',
        what: 'activity integrateTasks',
        scheduledAt: 1_000,
        doneAt: 32_000,
        attempt: 2,
        lastFailure: 'activity Heartbeat timeout',
      },
    ]);
  });

  test('a workflow task that timed out and was scheduled again is one piece of work until one completes', () => {
    const items = workItems([
      run('t01', [
        workflowTaskScheduled(1_000, 2),
        workflowTaskTimedOut(11_000, 4),
        workflowTaskScheduled(11_000, 5),
        workflowTaskCompleted(11_500, 7),
      ]),
    ]);
    expect(items).toEqual([{ workflowId: 't01', what: 'workflow task', scheduledAt: 1_000, doneAt: 11_500, attempt: 1 }]);
  });

  test('an activity still open is not a piece of work that went through', () => {
    expect(workItems([run('t01', [scheduled(1_000, 5, 'callModel')])])).toEqual([]);
  });
});

describe('recoveryFrom', () => {
  const runs = [
    run('batch', [
      // Done before the fault: not held up by it.
      scheduled(1_000, 5, 'createTaskWorktree'),
      completedActivity(2_000, 6, 5),
      // In flight at the fault (10 s), through at 40 s: the longest held up.
      scheduled(9_000, 7, 'integrateTasks'),
      started(39_000, 8, 7, 2, 'activity Heartbeat timeout'),
      completedActivity(40_000, 9, 7),
    ]),
    run('t01', [
      // Scheduled during the outage (back at 13 s), through first after it.
      workflowTaskScheduled(12_000, 2),
      workflowTaskCompleted(14_000, 4),
      // Scheduled after the part was back: not in flight at the fault.
      scheduled(60_000, 5, 'callModel'),
      completedActivity(90_000, 6, 5),
    ]),
  ];

  test('resumed: from the fault to the first completion once the part was back; drained: until all in flight went through', () => {
    const recovery = recoveryFrom(runs, { at: 10_000, back: 13_000 });
    expect(recovery.resumedMs).toBe(4_000);
    expect(recovery.drainedMs).toBe(30_000);
    expect(recovery.slowest).toMatchObject({ what: 'activity integrateTasks', attempt: 2, lastFailure: 'activity Heartbeat timeout' });
  });

  test('nothing completed after the fault: an error, not a figure', () => {
    expect(() => recoveryFrom(runs, { at: 100_000, back: 100_000 })).toThrow(/nothing to measure/);
  });
});

describe('batch duration and lateness', () => {
  test('from the first run start to the last run close, across runs; a deliberate outage is not counted late', () => {
    const first = { events: [workflowTaskScheduled(1_000, 1), workflowTaskCompleted(2_000, 2)] };
    const second = { events: [workflowTaskScheduled(3_000, 1), workflowTaskCompleted(21_000, 2)] };
    expect(batchDurationMs([second, first])).toBe(20_000);
    expect(latenessMs(95_000, 20_000, { at: 0, back: 0, awayMs: 60_000 })).toBe(15_000);
    expect(latenessMs(25_000, 20_000, { at: 0, back: 3_000 })).toBe(5_000);
  });
});
