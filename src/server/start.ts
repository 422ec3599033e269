import path from 'node:path';
import { loadConfig } from '../config.js';
import { runWorker } from '../worker.js';
import { ensureBubblewrap } from './bubblewrap.js';
import { startDevServer } from './dev-server.js';

/**
 * `npm start`: the embedded Temporal dev server (SQLite under the data directory, Web UI on 8233) and a worker, in
 * one command. With `TEMPORAL_ADDRESS` set, only the worker starts, against that server.
 */
async function start(): Promise<void> {
  const config = loadConfig();
  ensureBubblewrap(config.sandbox.mode);
  if (config.temporal.addressSet) {
    console.error(`codeloop: TEMPORAL_ADDRESS is set; starting only a worker against ${config.temporal.address}`);
    return runWorker();
  }
  const { dataDir, port, uiPort, temporalCliPath } = config.server;
  console.error(`codeloop: starting the Temporal dev server (data in ${dataDir})`);
  const server = await startDevServer({ port, uiPort, dbFile: path.join(dataDir, 'temporal.db'), stdio: 'inherit', temporalCliPath });
  console.error(`codeloop: Temporal at ${server.address}, Web UI at ${server.uiUrl}`);
  try {
    await runWorker({ ...process.env, TEMPORAL_ADDRESS: server.address });
  } finally {
    await server.stop();
    console.error('codeloop: stopped');
  }
}

start().catch((error) => {
  console.error(`codeloop: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
