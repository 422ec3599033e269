import Anthropic from '@anthropic-ai/sdk';
import { NativeConnection, Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { createSearchEngine, type SearchEngine } from './activities/tools/index.js';
import { createActivityShell } from './activities/process/activity-shell.js';
import { createSandbox, type Sandbox } from './activities/process/sandbox.js';
import { loadConfig, readModelCredentials, type CodeloopConfig, type ModelCredentials } from './config.js';
import { createExchangeRecorder } from './activities/model-recording.js';
import { payloadCodecsFor } from './payloads/codecs.js';
import { hostQueueFor } from './shared/host-queue.js';
import { workflowBundlerOptions } from './workflow-bundle.js';

export interface CodeloopWorkerOptions {
  connection: NativeConnection;
  /** Settings already loaded (`runWorker` loads them once); otherwise they are loaded from `env`. */
  config?: CodeloopConfig;
  namespace?: string;
  /** The shared queue: workflows, model calls and workspace binding. */
  taskQueue?: string;
  /** Stable across restarts, so a restarted worker picks up its host's pending tool activities. */
  hostId?: string;
  /** A prebuilt bundle (tests build one per run); otherwise the workflows are bundled from source at start. */
  workflowBundlePath?: string;
  /**
   * Variables over the worker's own `process.env`, for settings and the model's credentials alike: tests and the demo
   * point the model at a loopback server this way. The credentials are read from it at each model call.
   */
  env?: NodeJS.ProcessEnv;
  /** The tracing interceptors when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (see `startTracing`), for both workers. */
  plugins?: WorkerPlugin[];
}

export interface CodeloopWorkers {
  hostId: string;
  /** Where the agent's commands run on this host (see `createSandbox`). */
  sandbox: Sandbox;
  /** How `search_codebase` searches on this host: ripgrep in the sandbox, or the slower built-in search. */
  search: SearchEngine;
  taskQueue: string;
  hostQueue: string;
  workers: Worker[];
  /** Runs every worker until `shutdown()` or a shutdown signal; rejects if one of them fails. */
  run(): Promise<void>;
  shutdown(): void;
}

/**
 * Builds the two workers a codeloop host runs: one on the shared queue (workflows, model calls, binding) and one on
 * the host's own queue (`codeloop@<host-id>`) for the tools that must touch its workspace.
 */
export async function createCodeloopWorkers(options: CodeloopWorkerOptions): Promise<CodeloopWorkers> {
  const env = workerEnv(options.env);
  const config = options.config ?? loadConfig(env);
  const taskQueue = options.taskQueue ?? config.temporal.taskQueue;
  const hostId = options.hostId ?? config.worker.hostId;
  const hostQueue = hostQueueFor(taskQueue, hostId);
  const sandbox = createSandbox(env, config.sandbox);
  const search = createSearchEngine(sandbox, env.PATH);
  const activities = createWorkerActivities({ env: options.env, config, hostId, hostQueue, sandbox, search });
  const payloads = payloadCodecsFor(config.payloads, env);
  const common: Pick<WorkerOptions, 'connection' | 'namespace' | 'activities' | 'dataConverter' | 'plugins'> = {
    connection: options.connection,
    namespace: options.namespace ?? config.temporal.namespace,
    activities,
    dataConverter: payloads.dataConverter,
    plugins: options.plugins,
  };
  const workflowSource = options.workflowBundlePath
    ? { workflowBundle: { codePath: options.workflowBundlePath } }
    : { workflowsPath: workflowBundlerOptions.workflowsPath, bundlerOptions: { preloadModules: workflowBundlerOptions.preloadModules } };
  const workers = await Promise.all([
    Worker.create({ ...common, taskQueue, ...workflowSource }),
    Worker.create({ ...common, taskQueue: hostQueue }),
  ]);
  return {
    hostId,
    sandbox,
    search,
    taskQueue,
    hostQueue,
    workers,
    async run() {
      try {
        await Promise.all(workers.map((worker) => worker.run()));
      } finally {
        await payloads.close();
      }
    },
    shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}

/** The activities a worker registers, with the real dependencies: the model client, the process runner. */
export function createWorkerActivities(options: {
  env?: NodeJS.ProcessEnv;
  config?: CodeloopConfig;
  hostId: string;
  hostQueue: string;
  sandbox: Sandbox;
  search?: SearchEngine;
}) {
  const env = workerEnv(options.env);
  const config = options.config ?? loadConfig(env);
  return createActivities({
    createModelClient: modelClientFactory(() => readModelCredentials(workerEnv(options.env))),
    models: config.model.models,
    recordExchange: config.worker.recordDir ? createExchangeRecorder(config.worker.recordDir) : undefined,
    worktreesDir: config.worker.worktreesDir,
    workerEnv: () => workerEnv(options.env),
    hostId: options.hostId,
    hostQueue: options.hostQueue,
    sandbox: options.sandbox.mode,
    search: options.search ?? createSearchEngine(options.sandbox, env.PATH),
    // Not configuration: the environment the command sandbox copies its allow-listed names from (see `commandEnv`).
    shell: createActivityShell(options.sandbox, env),
  });
}

/** The worker's environment: `overrides` over its own, built afresh at each read so that a later change shows. */
const workerEnv = (overrides?: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...process.env, ...overrides });

/**
 * Reads the credentials per call, so a key set after a task blocked on its absence is picked up, and the key itself
 * never travels through workflow history. The SDK's own retries are off: Temporal retries instead.
 */
function modelClientFactory(readCredentials: () => ModelCredentials): () => Anthropic | undefined {
  let cached: { key: string; baseURL?: string; client: Anthropic } | undefined;
  return () => {
    const { apiKey: key, baseURL } = readCredentials();
    if (!key) return undefined;
    if (cached?.key !== key || cached.baseURL !== baseURL) {
      cached = { key, baseURL, client: new Anthropic({ apiKey: key, baseURL, maxRetries: 0, timeout: 10 * 60_000 }) };
    }
    return cached.client;
  };
}
