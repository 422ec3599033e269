import type { Client } from '@temporalio/client';

/** The workflows a schedule started, by id, in order. */
export async function scheduledRuns(client: Client, scheduleId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) ids.push(run.workflowId);
  return ids.sort();
}
