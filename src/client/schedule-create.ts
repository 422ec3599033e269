import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { batchConductorWorkflow } from '../workflows/index.js';
import { readBatchFile } from './batch-start.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { clientTaskQueue, withClient } from './session.js';

export const OVERLAP_CHOICES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;
export const toOverlapPolicy = (choice: string) => choice.toUpperCase().replace(/-/g, '_') as ScheduleOverlapPolicy;

export interface ScheduleCreateOptions extends OutputOptions {
  cron: string;
  batch: string;
  timezone?: string;
  overlap: string;
  catchupWindow: string;
}

/**
 * `codeloop schedule create NAME`: a Temporal Schedule whose action starts `batchConductorWorkflow`. Overlap is
 * `skip` unless told otherwise, and the catch-up window is always set explicitly rather than left to a default.
 * Each run's workflow id is NAME plus the scheduled time, and so is its batch id.
 */
export async function createSchedule(name: string, options: ScheduleCreateOptions): Promise<void> {
  const input = readBatchFile(options.batch);
  const taskQueue = clientTaskQueue();
  await withClient(async (client) => {
    try {
      await client.schedule.create({
        scheduleId: name,
        spec: { cronExpressions: [options.cron], timezone: options.timezone },
        action: {
          type: 'startWorkflow',
          workflowType: 'batchConductorWorkflow',
          args: [input] as Parameters<typeof batchConductorWorkflow>,
          taskQueue,
          workflowId: name,
        },
        policies: { overlap: toOverlapPolicy(options.overlap), catchupWindow: options.catchupWindow },
        state: { note: `codeloop batch from ${options.batch}` },
        // Temporal stores a cron as calendar specs; the memo keeps the line the operator wrote.
        memo: { cron: options.cron, batchFile: options.batch },
      });
    } catch (error) {
      if ((error as Error).name === 'ScheduleAlreadyRunning')
        throw new CliError(`schedule ${name} already exists; delete it first or pick another name`);
      throw new CliError(`cannot create schedule ${name}: ${(error as Error).message}`);
    }
    const description = await client.schedule.getHandle(name).describe();
    const next = description.info.nextActionTimes[0]?.toISOString();
    emit(
      options,
      {
        scheduleId: name,
        cron: options.cron,
        timezone: options.timezone ?? 'UTC',
        overlap: options.overlap,
        catchupWindow: options.catchupWindow,
        nextRun: next,
        taskQueue,
      },
      (value) =>
        `created schedule ${value.scheduleId}: "${value.cron}" (${value.timezone}), overlap ${value.overlap}, catch-up window ${value.catchupWindow}\n  next run: ${value.nextRun ?? 'none'}\n  run it now: npx codeloop schedule trigger ${value.scheduleId}`,
    );
  });
}
