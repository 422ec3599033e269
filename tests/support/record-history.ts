import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = path.resolve('tests/fixtures/histories');

/**
 * With `CODELOOP_RECORD_HISTORIES=1`, saves a finished run's history as a replay fixture. The replay suite then
 * replays every fixture against the current workflow code, so a non-deterministic change fails CI instead of a
 * user's running workflow.
 */
export async function recordHistory(name: string, handle: WorkflowHandle, runId?: string): Promise<void> {
  if (!process.env.CODELOOP_RECORD_HISTORIES) return;
  const run = runId ? handle.client.getHandle(handle.workflowId, runId) : handle;
  const history = await run.fetchHistory();
  writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
  const ids = recordedWorkflowIds();
  ids[name] = handle.workflowId;
  writeFileSync(WORKFLOW_IDS, `${JSON.stringify(ids, null, 2)}\n`);
}

/** The workflow id each fixture ran under: replay needs it where the workflow derives names from it (child ids). */
const WORKFLOW_IDS = path.join(HISTORIES_DIR, 'workflow-ids.json');

export function recordedWorkflowIds(): Record<string, string> {
  return existsSync(WORKFLOW_IDS) ? (JSON.parse(readFileSync(WORKFLOW_IDS, 'utf8')) as Record<string, string>) : {};
}
