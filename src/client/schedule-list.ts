import { emit, type OutputOptions } from './output.js';
import { withClient } from './session.js';

export interface ScheduleRow {
  scheduleId: string;
  workflowType?: string;
  cron?: string;
  paused: boolean;
  nextRun?: string;
  lastRun?: string;
  note?: string;
}

/** `codeloop schedule list`. */
export async function listSchedules(options: OutputOptions): Promise<void> {
  await withClient(async (client) => {
    const rows: ScheduleRow[] = [];
    for await (const schedule of client.schedule.list()) {
      rows.push({
        scheduleId: schedule.scheduleId,
        workflowType: schedule.action?.workflowType,
        cron: schedule.memo?.cron as string | undefined,
        paused: schedule.state.paused,
        nextRun: schedule.info.nextActionTimes[0]?.toISOString(),
        lastRun: schedule.info.recentActions.at(-1)?.takenAt.toISOString(),
        note: schedule.state.note,
      });
    }
    emit(options, rows, (list) =>
      list.length === 0
        ? 'no schedules'
        : list
            .map(
              (row) =>
                `${row.scheduleId}  ${row.paused ? 'paused' : 'active'}  ${row.cron ? `"${row.cron}"  ` : ''}next ${row.nextRun ?? '-'}  last ${row.lastRun ?? '-'}${row.note ? `  (${row.note})` : ''}`,
            )
            .join('\n'),
    );
  });
}
