import { pathToFileURL } from 'node:url';
import { Runtime } from '@temporalio/worker';
import { connectWorker, serverSettings } from './connection.js';
import { createCodeloopWorkers } from './create-workers.js';
import { createWorkerLogger } from './worker-logger.js';

/**
 * Runs codeloop's workers against the configured server until a shutdown signal (Ctrl-C, SIGTERM).
 * `CODELOOP_WORKFLOW_BUNDLE` may name a prebuilt workflow bundle to skip bundling at start.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  Runtime.install({ logger: createWorkerLogger(env.CODELOOP_LOG_LEVEL) });
  const connection = await connectWorker(env);
  try {
    const workers = await createCodeloopWorkers({ connection, env, workflowBundlePath: env.CODELOOP_WORKFLOW_BUNDLE || undefined });
    const { address, namespace } = serverSettings(env);
    console.error(
      `codeloop worker on ${address} (namespace ${namespace}): task queue ${workers.taskQueue}, host queue ${workers.hostQueue}`,
    );
    console.error(`codeloop worker: ${workers.sandbox.mode === 'off' ? 'WARNING: ' : ''}${workers.sandbox.description}`);
    if (!env.ANTHROPIC_API_KEY) {
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
