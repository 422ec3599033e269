import { pathToFileURL } from 'node:url';
import { Runtime } from '@temporalio/worker';
import { loadConfig, readModelCredentials } from './config.js';
import { connectWorker } from './connection.js';
import { createCodeloopWorkers } from './create-workers.js';
import { createWorkerLogger } from './worker-logger.js';

/**
 * Runs codeloop's workers against the configured server until a shutdown signal (Ctrl-C, SIGTERM). The settings are
 * loaded from `env` once, before anything connects: a value that cannot be used stops the worker with one line.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  Runtime.install({ logger: createWorkerLogger(config.worker.logLevel) });
  const connection = await connectWorker(config.temporal);
  try {
    const workers = await createCodeloopWorkers({ connection, config, env, workflowBundlePath: config.worker.workflowBundle });
    const { address, namespace } = config.temporal;
    console.error(
      `codeloop worker on ${address} (namespace ${namespace}): task queue ${workers.taskQueue}, host queue ${workers.hostQueue}`,
    );
    console.error(`codeloop worker: ${workers.sandbox.mode === 'off' ? 'WARNING: ' : ''}${workers.sandbox.description}`);
    if (!readModelCredentials(env).apiKey) {
      console.error('codeloop worker: ANTHROPIC_API_KEY is not set; model calls will fail until it is set and the worker restarted');
    }
    await workers.run();
  } finally {
    await connection.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runWorker().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
