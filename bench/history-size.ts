import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadConfig } from '../src/config.js';
import { payloadCodecsFor } from '../src/payloads/codecs.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { payloadSizes } from '../tests/support/history.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { chunkFiles, largeOutputSession } from '../tests/support/sessions.js';

const OUTPUT_BYTES = 5_000;
const KB = 1024;

interface Measured {
  setting: string;
  iterations: number;
  runs: number;
  events: number;
  historyBytes: number;
  largestPayload: number;
  storeBytes?: number;
  seconds: number;
}

/**
 * History bytes of a session whose tool calls mostly read a ~5 KB file, at several lengths, with payloads inline and
 * with the payload store (large payloads become references; the store keeps each chunk once), side by side.
 */
export async function benchHistorySize(env: BenchEnv): Promise<void> {
  const lengths = (process.env.CODELOOP_BENCH_HISTORY_LENGTHS ?? '10,100,1000').split(',').map(Number);
  const measured: Measured[] = [];
  for (const iterations of lengths) {
    if (iterations <= 100) measured.push(await measure(env, iterations, 'inline'));
    if (iterations === 100) measured.push(await measure(env, iterations, "npm start's default"));
    measured.push(await measure(env, iterations, 'store'));
    measured.push(await measure(env, iterations, 'store + keys'));
  }
  const rows = measured.map((row) => [
    row.setting,
    row.iterations,
    row.runs,
    row.events,
    (row.historyBytes / KB).toFixed(0),
    (row.historyBytes / KB / row.iterations).toFixed(1),
    (row.largestPayload / KB).toFixed(1),
    row.storeBytes === undefined ? '-' : (row.storeBytes / KB).toFixed(0),
    row.storeBytes === undefined ? '-' : (row.storeBytes / KB / row.iterations).toFixed(1),
    row.seconds.toFixed(0),
  ]);
  const markdown = `## History size

\`npm run bench -- history\`, ${stamp()}. A scripted session whose tool calls mostly read a ~${OUTPUT_BYTES / 1000} KB file
(every fourth is a small edit), at several lengths, one after the other on one dev server with Temporal's default
continue-as-new suggestion (4 MB / 4,096 events). *inline*: payloads in history as they are (the default); *store*:
\`CODELOOP_PAYLOAD_STORE=file://…\` (payloads over 2 KB become references, their content stored once by chunk);
*store + keys*: the same with \`CODELOOP_PAYLOAD_KEYS\` (every payload and every blob encrypted); *npm start's default*: no
payload setting at all, as \`npm start\`'s worker runs (the store in its data directory, goal under 12 KB per iteration). History bytes are the
server's own, read without codecs, over every run of the continue-as-new chain.

${table(['payloads', 'iterations', 'runs', 'events', 'history KB', 'history KB / iteration', 'largest payload KB', 'store KB', 'store KB / iteration', 'seconds'], rows)}
`;
  writeSection('20-history-size', markdown);
  console.log(markdown);
}

async function measure(env: BenchEnv, iterations: number, setting: Measured['setting']): Promise<Measured> {
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-store-'));
  const extraEnv: NodeJS.ProcessEnv =
    setting === 'inline'
      ? { CODELOOP_PAYLOAD_STORE: 'off' }
      : setting === "npm start's default"
        ? // Nothing set, as for npm start's worker: the store is its data directory's.
          { CODELOOP_DATA_DIR: storeDir, CODELOOP_PAYLOAD_STORE: undefined }
        : {
            CODELOOP_PAYLOAD_STORE: `file://${storeDir}`,
            ...(setting === 'store + keys' ? { CODELOOP_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}` } : {}),
          };
  const payloads = payloadCodecsFor(loadConfig(extraEnv).payloads, extraEnv);
  const client = new Client({ connection: env.client.connection, dataConverter: payloads.dataConverter });
  const fake = await startFakeMessagesApi();
  fake.setResponder(largeOutputSession(iterations));
  const taskQueue = `bench-history-${randomUUID().slice(0, 8)}`;
  const workflowId = `${taskQueue}-task`;
  const started = Date.now();
  try {
    await withWorkers(
      env,
      fake,
      taskQueue,
      async () => {
        const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
          taskQueue,
          workflowId,
          args: [{ description: 'read everything', workspace: makeWorkspace(chunkFiles(OUTPUT_BYTES)), maxIterations: iterations }],
        });
        await handle.result();
      },
      undefined,
      extraEnv,
    );
    const seconds = (Date.now() - started) / 1000;
    let runs = 0;
    let events = 0;
    let historyBytes = 0;
    let largestPayload = 0;
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      const history = await env.client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
      runs += 1;
      events += history.events?.length ?? 0;
      historyBytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
      largestPayload = Math.max(largestPayload, ...(history.events ?? []).flatMap((event) => payloadSizes(event)));
    }
    const storeBytes = payloads.store ? await payloads.store.size() : undefined;
    console.error(
      `history bench: ${setting}, ${iterations} iterations: ${(historyBytes / KB).toFixed(0)} KB of history in ${seconds.toFixed(0)} s`,
    );
    return { setting, iterations, runs, events, historyBytes, largestPayload, storeBytes, seconds };
  } finally {
    await fake.close();
    await payloads.close();
  }
}
