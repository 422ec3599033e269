import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, TimeoutFailure, type ActivityOptions } from '@temporalio/workflow';

/**
 * How long work for a host may wait for that host's worker to take it, and what to do past that: a host whose worker
 * died and never came back would otherwise hold its tasks for ever without a word. `lost` asks a human; it returns
 * to wait again (the host is back) or throws to give up.
 */
export interface HostWait {
  timeout: string;
  lost(what: string): Promise<void>;
}

/** An activity call on a host's queue, given the `scheduleToStartTimeout` to add to its options (or none). */
export type HostActivity<T> = (limit: Pick<ActivityOptions, 'scheduleToStartTimeout'>) => Promise<T>;

/**
 * Runs an activity on a host's queue with `scheduleToStartTimeout` set from `wait`: each attempt (a retry after the
 * host died mid-activity too) may wait that long to be taken. Past it, `wait.lost` decides, and the activity is
 * scheduled again. Nothing else changes: without `wait`, or on any other failure, this is the plain call.
 */
export async function onHost<T>(wait: HostWait | undefined, what: string, run: HostActivity<T>): Promise<T> {
  for (;;) {
    try {
      return await run(wait ? { scheduleToStartTimeout: wait.timeout } : {});
    } catch (error) {
      if (!wait || !neverTaken(error)) throw error;
      await wait.lost(what);
    }
  }
}

const neverTaken = (error: unknown) =>
  error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && error.cause.timeoutType === TimeoutType.SCHEDULE_TO_START;

/** The question a task asks when its host has not taken its work in time. */
export function hostLostQuestion(hostId: string, what: string, timeout: string): { question: string; options: string[] } {
  return {
    question:
      `Host ${hostId} has not started "${what}" within ${timeout}: its worker is down or cannot reach Temporal. ` +
      `Start it again (CODELOOP_HOST_ID=${hostId}) and answer 'retry', or answer 'stop' to fail the task.`,
    options: ['retry', 'stop'],
  };
}
