import type { Client } from '@temporalio/client';
import type { Timestamp } from '@temporalio/common';

const toMs = (time?: Timestamp | null) => Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** How long the workflow tasks and activities of these workflows waited between scheduled and started, from their histories. */
export async function scheduleToStart(
  client: Client,
  workflowIds: string[],
): Promise<{ workflowTaskStart: number[]; activityStart: number[] }> {
  const workflowTaskStart: number[] = [];
  const activityStart: number[] = [];
  // A few histories at a time: a thousand at once would measure the server's read path, not the run.
  for (let index = 0; index < workflowIds.length; index += 20) {
    const histories = await Promise.all(
      workflowIds.slice(index, index + 20).map((id) =>
        client.workflow
          .getHandle(id)
          .fetchHistory()
          .catch(() => undefined),
      ),
    );
    for (const history of histories) {
      const scheduledAt = new Map<number, number>();
      for (const event of history?.events ?? []) {
        const at = toMs(event.eventTime);
        const id = Number(event.eventId);
        if (event.workflowTaskScheduledEventAttributes || event.activityTaskScheduledEventAttributes) scheduledAt.set(id, at);
        const workflowTask = event.workflowTaskStartedEventAttributes;
        if (workflowTask) workflowTaskStart.push(at - scheduledAt.get(Number(workflowTask.scheduledEventId))!);
        const activity = event.activityTaskStartedEventAttributes;
        if (activity) activityStart.push(at - scheduledAt.get(Number(activity.scheduledEventId))!);
      }
    }
  }
  return { workflowTaskStart, activityStart };
}
