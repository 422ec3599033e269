import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { retryUntil } from '../cluster/readiness.js';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';
import { ensureTemporalBinary } from './temporal-binary.js';

export interface DevServerOptions {
  /** gRPC port of the frontend. */
  port: number;
  /** Web UI port; `undefined` runs headless. */
  uiPort?: number;
  /** SQLite file; the directory is created. Without it, state lives in memory and dies with the server. */
  dbFile?: string;
  /** Extra `--dynamic-config-value KEY=JSON` pairs, e.g. a lowered continue-as-new suggestion for tests. */
  dynamicConfig?: Record<string, unknown>;
  /** Namespace retention; the dev server's own default is 24 h, too short to inspect old runs. */
  retentionDays?: number;
  /** Where the server's own output goes. */
  stdio?: 'inherit' | 'ignore';
  /** Register codeloop's search attributes at start (default); `false` leaves that to `codeloop setup`. */
  searchAttributes?: boolean;
  /** A codec server the Web UI decodes payloads through (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Variables over this process's environment for the server's, e.g. `GOGC` for its garbage collector. */
  env?: NodeJS.ProcessEnv;
  /** The `temporal` binary to run; unset, `ensureTemporalBinary` finds (or installs) one, `TEMPORAL_CLI_PATH` first. */
  temporalCliPath?: string;
}

/**
 * The dev server (CLI 1.9.1, server 1.32) reads its history task queues at most 20 times a second per shard by
 * default, and it has one shard: every hop of every workflow (a workflow task, an activity, a child, a visibility
 * update) waited ~43 ms for the next read, even on an idle machine. Sixty activities in sequence took 5.1 s with the
 * defaults and 0.6 s with these. (The PostgreSQL cluster of `codeloop cluster`, server 1.29.1 with 4 shards, takes
 * ~4 ms a hop with its defaults; these made no difference there, so it keeps them.)
 */
export const FAST_TASK_QUEUE_READS: Record<string, number> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
};

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs `temporal server start-dev` with codeloop's search attributes registered, waits until the frontend answers,
 * and sets the namespace retention.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = ensureTemporalBinary(options.temporalCliPath);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'error'];
  args.push(...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort), '--ui-disable-news-fetch']));
  if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  if (options.searchAttributes !== false)
    for (const name of Object.values(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=Keyword`);
  for (const [key, value] of Object.entries({ ...FAST_TASK_QUEUE_READS, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const child = spawn(binary, args, {
    stdio: ['ignore', options.stdio ?? 'ignore', options.stdio ?? 'ignore'],
    detached: false,
    env: { ...process.env, ...options.env },
  });
  const address = `127.0.0.1:${options.port}`;
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `temporal server exited (code ${code}, signal ${signal})`));

  const connection = await waitForFrontend(address, () => exited);
  try {
    await connection.workflowService.updateNamespace({
      namespace: 'default',
      config: { workflowExecutionRetentionTtl: msToTs(`${options.retentionDays ?? 30} days`) },
    });
  } finally {
    await connection.close();
  }

  return {
    address,
    uiUrl: options.uiPort === undefined ? undefined : `http://127.0.0.1:${options.uiPort}`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}

/** Connects once the frontend answers for the `default` namespace; a server that exited stops the wait at once. */
function waitForFrontend(address: string, exited: () => string | undefined): Promise<Connection> {
  return retryUntil(
    `temporal server at ${address} to answer`,
    60_000,
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return connection;
      } catch (error) {
        await connection.close();
        throw error;
      }
    },
    () => {
      const reason = exited();
      return reason && `${reason}; is port ${address} already in use?`;
    },
  );
}
