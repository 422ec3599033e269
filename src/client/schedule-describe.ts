import { emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';
import { scheduleHandle } from './schedule-control.js';

/** `codeloop schedule describe NAME`: spec, policies, state, recent and running batches, next runs. */
export async function describeSchedule(name: string, options: OutputOptions): Promise<void> {
  await withClient(async (client) => {
    const description = await (await scheduleHandle(client, name)).describe();
    const view = {
      scheduleId: name,
      cron: (description.memo?.cron as string | undefined) ?? JSON.stringify(description.spec.calendars ?? []),
      timezone: description.spec.timezone ?? 'UTC',
      overlap: description.policies.overlap,
      catchupWindowMs: description.policies.catchupWindow,
      paused: description.state.paused,
      note: description.state.note,
      actionsTaken: description.info.numActionsTaken,
      skippedOverlap: description.info.numActionsSkippedOverlap,
      missedCatchupWindow: description.info.numActionsMissedCatchupWindow,
      running: description.info.runningActions.map((action) => action.workflow.workflowId),
      recent: description.info.recentActions.map((action) => ({
        scheduledAt: action.scheduledAt.toISOString(),
        workflowId: action.action.workflow.workflowId,
      })),
      nextRuns: description.info.nextActionTimes.slice(0, 3).map((time) => time.toISOString()),
    };
    emit(options, view, (value) =>
      [
        `${value.scheduleId}  ${value.paused ? 'PAUSED' : 'active'}  "${value.cron}"${value.note ? `  (${value.note})` : ''}`,
        `  timezone ${value.timezone} · overlap ${value.overlap} · catch-up window ${Math.round(value.catchupWindowMs / 1000)}s`,
        `  runs taken ${value.actionsTaken} · skipped for overlap ${value.skippedOverlap} · missed the catch-up window ${value.missedCatchupWindow}`,
        `  running: ${value.running.join(', ') || 'none'}`,
        ...value.recent.slice(-5).map((run) => `  ran ${run.scheduledAt}: ${run.workflowId}`),
        `  next: ${value.nextRuns.join(', ') || 'none'}`,
      ].join('\n'),
    );
  });
}
