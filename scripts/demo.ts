/**
 * `npm run demo`: a complete codeloop task through the real stack (Temporal dev server, workers, the real Anthropic
 * SDK) with no API key. The model is scripted: a loopback server that speaks the Messages API replays canned turns.
 *
 *   npm run demo             run the task, then keep the Web UI up until Ctrl-C
 *   npm run demo -- --exit   run the task and stop
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { shownLink, webUiUrl } from '../src/client/web-ui.js';
import { payloadCodecsFor } from '../src/payloads/codecs.js';
import { loadConfig, type CodeloopConfig } from '../src/config.js';
import { createCodeloopWorkers } from '../src/create-workers.js';
import { ensureBubblewrap, ensureRipgrep } from '../src/server/bubblewrap.js';
import { startDevServer, type DevServer } from '../src/server/dev-server.js';
import type { TaskStateSnapshot } from '../src/shared/task-state.js';
import { installWorkerRuntime } from '../src/telemetry/worker-runtime.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { getStateQuery } from '../src/shared/messages.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { demoResponder, makeDemoWorkspace } from './demo-session.js';

const exitWhenDone = process.argv.includes('--exit');

async function main(): Promise<void> {
  const config = loadConfig();
  installWorkerRuntime(config.worker.logLevel, config.telemetry);
  ensureBubblewrap(config.sandbox.mode);
  ensureRipgrep();
  const { address, server } = await findOrStartServer(config);
  const fake = await startFakeMessagesApi();
  fake.setResponder(demoResponder());
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  // The worker's payload settings, so a demo run under CODELOOP_PAYLOAD_STORE / _KEYS reads its own results.
  const payloads = payloadCodecsFor(config.payloads);
  const client = new Client({ connection, dataConverter: payloads.dataConverter });
  const taskQueue = 'codeloop-demo';
  const workers = await createCodeloopWorkers({
    connection: nativeConnection,
    taskQueue,
    env: { ...process.env, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, CODELOOP_MODEL: 'scripted-demo-model' },
  });
  const running = workers.run();
  try {
    const workspace = makeDemoWorkspace();
    const workflowId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    console.log(`codeloop demo: the model is SCRIPTED (a loopback Messages API server replaying canned turns); no API key is used.`);
    console.log(`workspace: ${workspace}`);
    const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      taskQueue,
      workflowId,
      args: [{ title: 'Add removeTask', description: 'Add a removeTask(id) function to src/tasks.mjs, with a test.', workspace }],
    });
    console.log(`started ${workflowId}`);
    const result = await followUntilDone(handle.result(), () => handle.query(getStateQuery));
    console.log(`\n${result.status} after ${result.iterations} iterations: ${result.summary}`);
    console.log(`files changed: ${result.filesChanged.join(', ')}`);
    // The UI of the server the demo started, else the one of the server it found (see `webUiBase`).
    const link = webUiUrl(
      { ...config, cli: { uiUrl: server?.uiUrl ?? config.cli.uiUrl }, temporal: { ...config.temporal, address } },
      'default',
      workflowId,
    );
    console.log(`\nOpen it in the Temporal Web UI:\n  ${shownLink(link)}`);
    console.log('Each step is an activity with a summary; the current details card shows where the task stands.');
    if (server && !exitWhenDone) {
      console.log('\nThe server and Web UI keep running; press Ctrl-C to stop. Runs persist in .data/ for `npm start`.');
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    workers.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await fake.close();
    await server?.stop();
  }
}

/** Uses `TEMPORAL_ADDRESS` or a server already on 127.0.0.1:7233 (`npm start`); otherwise starts the embedded one. */
async function findOrStartServer({ temporal, server: settings }: CodeloopConfig): Promise<{ address: string; server?: DevServer }> {
  const { address } = temporal;
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.close();
    console.log(`codeloop demo: using the Temporal server at ${address}`);
    return { address };
  } catch {
    if (temporal.addressSet) throw new Error(`cannot reach Temporal at ${address}`);
  }
  console.log(`codeloop demo: starting the embedded Temporal dev server (Web UI on http://127.0.0.1:${settings.uiPort})…`);
  const server = await startDevServer({
    port: settings.port,
    uiPort: settings.uiPort,
    dbFile: path.join(settings.dataDir, 'temporal.db'),
  });
  return { address: server.address, server };
}

/** Prints each new step as the task takes it: the same view as the Web UI's current details. */
async function followUntilDone<T>(result: Promise<T>, state: () => Promise<TaskStateSnapshot>): Promise<T> {
  let done = false;
  const settled = result.finally(() => (done = true));
  let last = '';
  while (!done) {
    const snapshot = await state().catch(() => undefined);
    const line = snapshot ? `  [${snapshot.phase}] iteration ${snapshot.iteration}: ${snapshot.lastStep ?? 'thinking'}` : '';
    if (line && line !== last) console.log((last = line));
    await Promise.race([settled.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 300))]);
  }
  return settled;
}

main().catch((error) => {
  console.error(`codeloop demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
