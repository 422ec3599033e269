import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { batchConductorWorkflow } from '../workflows/index.js';
import { readBatchFile } from './batch-start.js';
import { parseBatchInput } from '../shared/batch-input.js';
import { SCHEDULED_BATCH_DEADLINE } from '../shared/constants.js';
import { CliError, emit, parseOrExplain, type OutputOptions } from './output.js';
import { clientTaskQueue, withClient } from './session.js';

export const OVERLAP_CHOICES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;
export const toOverlapPolicy = (choice: string) => choice.toUpperCase().replace(/-/g, '_') as ScheduleOverlapPolicy;

export interface ScheduleCreateOptions extends OutputOptions {
  cron: string;
  batch: string;
  timezone?: string;
  overlap: string;
  catchupWindow: string;
  deadline?: string;
}

/**
 * `codeloop schedule create NAME`: a Temporal Schedule whose action starts `batchConductorWorkflow`. Overlap is
 * `skip` unless told otherwise, and the catch-up window is always set explicitly rather than left to a default.
 * Each run's workflow id is NAME plus the scheduled time, and so is its batch id.
 */
export async function createSchedule(name: string, options: ScheduleCreateOptions): Promise<void> {
  const file = readBatchFile(options.batch);
  // A night, not days: each run stops waiting at its deadline unless the batch file or --deadline sets another.
  const input = parseOrExplain(parseBatchInput, { ...file, deadline: options.deadline ?? file.deadline ?? SCHEDULED_BATCH_DEADLINE });
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
        deadline: input.deadline,
        nextRun: next,
        taskQueue,
      },
      (value) =>
        `created schedule ${value.scheduleId}: "${value.cron}" (${value.timezone}), overlap ${value.overlap}, catch-up window ${value.catchupWindow}, each run stops at ${value.deadline}\n  next run: ${value.nextRun ?? 'none'}\n  run it now: npx codeloop schedule trigger ${value.scheduleId}`,
    );
  });
}
