import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Replay fixtures written with the payload store and encryption on: their histories, and the store they point into. */
export const CODEC_HISTORIES_DIR = path.resolve('tests/fixtures/codec-histories');

/** The test key those fixtures were sealed with; a test key, known to all, never a deployment's. */
export const CODEC_FIXTURE_KEYS = 'fixture:y5R4u9cRGZbJ2tq3vJw0m6dJbEfbkZ6pRGw0b4pVq1k=';

/** As `recordHistory`, for a run under the payload store: the store's blobs are saved beside the history. */
export async function recordCodecHistory(name: string, handle: WorkflowHandle, storeDir: string): Promise<void> {
  if (!process.env.CODELOOP_RECORD_HISTORIES) return;
  const history = await handle.fetchHistory();
  writeFileSync(path.join(CODEC_HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
  const store = path.join(CODEC_HISTORIES_DIR, `${name}.store`);
  rmSync(store, { recursive: true, force: true });
  cpSync(storeDir, store, { recursive: true });
}
