import { ScheduleNotFoundError, type Client, type ScheduleHandle } from '@temporalio/client';
import { CliError, emit, type OutputOptions } from './output.js';
import { toOverlapPolicy } from './schedule-create.js';
import { withClient } from './session.js';

/** A schedule's handle, with an error that names it when it does not exist. */
export async function scheduleHandle(client: Client, name: string): Promise<ScheduleHandle> {
  const handle = client.schedule.getHandle(name);
  await handle.describe().catch((error) => {
    if (error instanceof ScheduleNotFoundError) throw new CliError(`no schedule ${name}; see npx codeloop schedule list`);
    throw error;
  });
  return handle;
}

async function control(
  name: string,
  options: OutputOptions,
  action: string,
  body: (handle: ScheduleHandle) => Promise<void>,
): Promise<void> {
  await withClient(async (client) => {
    await body(await scheduleHandle(client, name));
    emit(options, { scheduleId: name, action }, () => `${action}: ${name}`);
  });
}

export const pauseSchedule = (name: string, options: OutputOptions & { note?: string }) =>
  control(name, options, 'paused', (handle) => handle.pause(options.note ?? 'paused with codeloop'));

export const unpauseSchedule = (name: string, options: OutputOptions) =>
  control(name, options, 'unpaused', (handle) => handle.unpause('unpaused with codeloop'));

export const deleteSchedule = (name: string, options: OutputOptions) => control(name, options, 'deleted', (handle) => handle.delete());

/**
 * Runs the schedule's batch now. The SDK's trigger defaults to allow-all; this one keeps the schedule's own overlap
 * policy unless `--overlap` says otherwise, so a trigger while a batch runs is skipped under `skip`.
 */
export const triggerSchedule = (name: string, options: OutputOptions & { overlap?: string }) =>
  control(name, options, 'triggered', async (handle) => {
    const overlap = options.overlap ? toOverlapPolicy(options.overlap) : (await handle.describe()).policies.overlap;
    await handle.trigger(overlap);
  });

/** Takes the runs the schedule would have taken between two times, now. */
export const backfillSchedule = (name: string, options: OutputOptions & { start: string; end: string; overlap?: string }) =>
  control(name, options, 'backfilled', async (handle) => {
    const start = new Date(options.start);
    const end = new Date(options.end);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()))
      throw new CliError('--start and --end must be dates, e.g. 2026-11-20T00:00:00Z', 2);
    await handle.backfill({ start, end, overlap: options.overlap ? toOverlapPolicy(options.overlap) : undefined });
  });
