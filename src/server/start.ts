import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWorker } from '../worker.js';
import { ensureBubblewrap } from './bubblewrap.js';
import { startDevServer } from './dev-server.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm start`: the embedded Temporal dev server (SQLite under the data directory, Web UI on 8233) and a worker, in
 * one command. With `TEMPORAL_ADDRESS` set, only the worker starts, against that server.
 */
async function start(): Promise<void> {
  ensureBubblewrap();
  if (process.env.TEMPORAL_ADDRESS) {
    console.error(`codeloop: TEMPORAL_ADDRESS is set; starting only a worker against ${process.env.TEMPORAL_ADDRESS}`);
    return runWorker();
  }
  const dataDir = process.env.CODELOOP_DATA_DIR || path.join(projectRoot, '.data');
  const port = Number(process.env.CODELOOP_TEMPORAL_PORT || 7233);
  const uiPort = Number(process.env.CODELOOP_UI_PORT || 8233);
  console.error(`codeloop: starting the Temporal dev server (data in ${dataDir})`);
  const server = await startDevServer({ port, uiPort, dbFile: path.join(dataDir, 'temporal.db'), stdio: 'inherit' });
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
