import { pathToFileURL } from 'node:url';
import { loadConfig, readModelCredentials } from './config.js';
import { connectWorker } from './connection.js';
import { createCodeloopWorkers } from './create-workers.js';
import { missingGateTools } from './activities/host-gate-tools.js';
import { startTracing } from './telemetry/tracing.js';
import { installWorkerRuntime } from './telemetry/worker-runtime.js';

/**
 * Runs codeloop's workers against the configured server until a shutdown signal (Ctrl-C, SIGTERM). The settings are
 * loaded from `env` once, before anything connects: a value that cannot be used stops the worker with one line.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  installWorkerRuntime(config.worker.logLevel, config.telemetry);
  const tracing = startTracing(config.telemetry.traces, config.worker.hostId);
  try {
    const connection = await connectWorker(config.temporal);
    try {
      const plugins = tracing ? [tracing.plugin] : [];
      const workers = await createCodeloopWorkers({ connection, config, env, workflowBundlePath: config.worker.workflowBundle, plugins });
      const { address, namespace } = config.temporal;
      console.error(
        `codeloop worker on ${address} (namespace ${namespace}): task queue ${workers.taskQueue}, host queue ${workers.hostQueue}`,
      );
      console.error(`codeloop worker: ${workers.sandbox.mode === 'off' ? 'WARNING: ' : ''}${workers.sandbox.description}`);
      console.error(`codeloop worker: ${workers.search.name === 'built-in' ? 'WARNING: ' : ''}${workers.search.description}`);
      for (const line of missingGateTools(env.PATH)) console.error(`codeloop worker: ${line}`);
      const { metricsAddress } = config.telemetry;
      if (metricsAddress) console.error(`codeloop worker: Prometheus metrics on http://${metricsAddress}/metrics`);
      if (tracing) console.error(`codeloop worker: traces to ${tracing.url} (${config.telemetry.traces?.protocol})`);
      if (config.worker.recordDir)
        console.error(`codeloop worker: recording every model request and response in ${config.worker.recordDir}`);
      if (!readModelCredentials(env).apiKey) {
        console.error('codeloop worker: ANTHROPIC_API_KEY is not set; model calls will fail until it is set and the worker restarted');
      }
      await workers.run();
    } finally {
      await connection.close();
    }
  } finally {
    // After the workers: the last workflow and activity spans end as they stop.
    await tracing?.shutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runWorker().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
