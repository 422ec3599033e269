import type { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';

type History = temporal.api.history.v1.IHistory;

export interface ScheduledActivity {
  activityType: string;
  summary?: string;
  taskQueue: string;
}

/** Every activity the workflow scheduled, in order, with the summary the Web UI shows. */
export function scheduledActivities(history: History): ScheduledActivity[] {
  return (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => {
      const attributes = event.activityTaskScheduledEventAttributes!;
      const summary = event.userMetadata?.summary;
      return {
        activityType: attributes.activityType?.name ?? '',
        summary: summary ? defaultPayloadConverter.fromPayload<string>(summary) : undefined,
        taskQueue: attributes.taskQueue?.name ?? '',
      };
    });
}

/** How many attempts each completed or failed activity took, in schedule order. */
export function activityAttempts(history: History): number[] {
  return (history.events ?? [])
    .filter((event) => event.activityTaskStartedEventAttributes)
    .map((event) => event.activityTaskStartedEventAttributes!.attempt ?? 1);
}

/** The history as JSON bytes: what the server stores and what `historyFromJSON` replays. */
export function historySize(history: History): number {
  return Buffer.byteLength(JSON.stringify(history));
}

/** Every payload's data size in a history, found by shape: what Temporal's payload limits apply to. */
export function payloadSizes(value: unknown, sizes: number[] = []): number[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return sizes;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && 'metadata' in record) {
    sizes.push(record.data.length);
    return sizes;
  }
  for (const child of Object.values(record)) payloadSizes(child, sizes);
  return sizes;
}
