import os from 'node:os';
import Anthropic from '@anthropic-ai/sdk';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { createActivityShell } from './activities/process/activity-shell.js';
import { createSandbox, type Sandbox } from './activities/process/sandbox.js';
import { DEFAULT_MODEL, DEFAULT_TASK_QUEUE } from './shared/constants.js';

export interface WorkerConfig {
  connection: NativeConnection;
  namespace?: string;
  /** The shared queue: workflows, model calls and workspace binding. */
  taskQueue?: string;
  /** Stable across restarts, so a restarted worker picks up its host's pending tool activities. */
  hostId?: string;
  /** A prebuilt bundle (tests build one per run); otherwise the workflows are bundled from source at start. */
  workflowBundlePath?: string;
  /** Environment the worker reads for the model client; defaults to `process.env`. Commands see `process.env` under it. */
  env?: NodeJS.ProcessEnv;
}

export interface CodeloopWorkers {
  hostId: string;
  /** Where the agent's commands run on this host (see `createSandbox`). */
  sandbox: Sandbox;
  taskQueue: string;
  hostQueue: string;
  workers: Worker[];
  /** Runs every worker until `shutdown()` or a shutdown signal; rejects if one of them fails. */
  run(): Promise<void>;
  shutdown(): void;
}

export const hostQueueFor = (taskQueue: string, hostId: string) => `${taskQueue}@${hostId}`;

/**
 * Builds the two workers a codeloop host runs: one on the shared queue (workflows, model calls, binding) and one on
 * the host's own queue (`codeloop@<host-id>`) for the tools that must touch its workspace.
 */
export async function createCodeloopWorkers(config: WorkerConfig): Promise<CodeloopWorkers> {
  const env = config.env ?? process.env;
  const taskQueue = config.taskQueue ?? env.CODELOOP_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const hostId = config.hostId ?? env.CODELOOP_HOST_ID ?? os.hostname();
  const hostQueue = hostQueueFor(taskQueue, hostId);
  const sandbox = createSandbox({ ...process.env, ...env });
  const activities = createWorkerActivities({ env, hostId, hostQueue, sandbox });
  const common: Pick<WorkerOptions, 'connection' | 'namespace' | 'activities'> = {
    connection: config.connection,
    namespace: config.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default',
    activities,
  };
  const workflowSource = config.workflowBundlePath
    ? { workflowBundle: { codePath: config.workflowBundlePath } }
    : { workflowsPath: new URL('./workflows/index.ts', import.meta.url).pathname };
  const workers = await Promise.all([
    Worker.create({ ...common, taskQueue, ...workflowSource }),
    Worker.create({ ...common, taskQueue: hostQueue }),
  ]);
  return {
    hostId,
    sandbox,
    taskQueue,
    hostQueue,
    workers,
    async run() {
      await Promise.all(workers.map((worker) => worker.run()));
    },
    shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}

/** The activities a worker registers, with the real dependencies: the model client, the process runner. */
export function createWorkerActivities(options: { env: NodeJS.ProcessEnv; hostId: string; hostQueue: string; sandbox: Sandbox }) {
  return createActivities({
    createModelClient: modelClientFactory(options.env),
    defaultModel: options.env.CODELOOP_MODEL || DEFAULT_MODEL,
    hostId: options.hostId,
    hostQueue: options.hostQueue,
    sandbox: options.sandbox.mode,
    shell: createActivityShell(options.sandbox, { ...process.env, ...options.env }),
  });
}

/**
 * Reads the key per call, so a worker whose key is fixed and restarted is picked up without code changes, and the
 * key itself never travels through workflow history. The SDK's own retries are off: Temporal retries instead.
 */
function modelClientFactory(env: NodeJS.ProcessEnv): () => Anthropic | undefined {
  let cached: { key: string; baseURL?: string; client: Anthropic } | undefined;
  return () => {
    const key = env.ANTHROPIC_API_KEY;
    if (!key) return undefined;
    const baseURL = env.ANTHROPIC_BASE_URL || undefined;
    if (cached?.key !== key || cached.baseURL !== baseURL) {
      cached = { key, baseURL, client: new Anthropic({ apiKey: key, baseURL, maxRetries: 0, timeout: 10 * 60_000 }) };
    }
    return cached.client;
  };
}
