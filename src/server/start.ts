import path from 'node:path';
import { loadConfig } from '../config.js';
import { startCodecServer } from '../payloads/codec-server.js';
import { payloadCodecsFor } from '../payloads/codecs.js';
import { runWorker } from '../worker.js';
import { ensureBubblewrap, ensureRipgrep } from './bubblewrap.js';
import { startDevServer } from './dev-server.js';

/**
 * `npm start`: the embedded Temporal dev server (SQLite under the data directory, Web UI on 8233) and a worker, in
 * one command. With `TEMPORAL_ADDRESS` set, only the worker starts, against that server.
 */
async function start(): Promise<void> {
  const config = loadConfig();
  ensureBubblewrap(config.sandbox.mode);
  ensureRipgrep();
  if (config.temporal.addressSet) {
    console.error(`codeloop: TEMPORAL_ADDRESS is set; starting only a worker against ${config.temporal.address}`);
    return runWorker();
  }
  const { dataDir, port, uiPort, temporalCliPath } = config.server;
  if (config.payloads.storeByDefault)
    console.error(
      `codeloop: large payloads are kept in ${config.payloads.store} and history holds references (CODELOOP_PAYLOAD_STORE=off keeps them in history)`,
    );
  // With payloads stored or encrypted, the embedded Web UI decodes them through a codec server of its own.
  const payloads = payloadCodecsFor(config.payloads);
  const codec = payloads.codecs.length
    ? await startCodecServer({ codecs: payloads.codecs, port: 0, origins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`] })
    : undefined;
  console.error(`codeloop: starting the Temporal dev server (data in ${dataDir})`);
  const dbFile = path.join(dataDir, 'temporal.db');
  const server = await startDevServer({ port, uiPort, dbFile, stdio: 'inherit', temporalCliPath, uiCodecEndpoint: codec?.url });
  console.error(`codeloop: Temporal at ${server.address}, Web UI at ${server.uiUrl}${codec ? ` (payloads decoded by ${codec.url})` : ''}`);
  try {
    // The worker sees an address now, so it is told the store outright: the CLI, with no address, uses the same one.
    await runWorker({ ...process.env, TEMPORAL_ADDRESS: server.address, CODELOOP_PAYLOAD_STORE: config.payloads.store ?? 'off' });
  } finally {
    await server.stop();
    await codec?.close();
    await payloads.close();
    console.error('codeloop: stopped');
  }
}

start().catch((error) => {
  console.error(`codeloop: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
