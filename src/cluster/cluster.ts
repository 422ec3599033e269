import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LocalCluster } from './local-cluster.js';
import { allocatePorts } from './ports.js';
import { acceptsConnections } from './readiness.js';
import { readState, writeState, type ClusterState } from './state.js';
import { requireClusterTools } from './tools.js';
import type { Cluster, ClusterOptions } from './types.js';

export type { Cluster, ClusterOptions, ClusterStatus, ProcessStatus } from './types.js';

export const DEFAULT_FRONTEND_PORT = 7233;
export const DEFAULT_UI_PORT = 8080;

/** `startCluster` refused: a cluster from this data directory is still running. */
export class ClusterRunningError extends Error {}

/**
 * Starts a cluster in `dataDir` and resolves once it serves: PostgreSQL (created the first time), the schemas set up
 * or upgraded, history then matching, frontend and worker, the `default` namespace (30-day retention) with codeloop's
 * search attributes, and the Web UI when it is installed. A failure stops what was started and says why.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const tools = requireClusterTools();
  const dataDir = path.resolve(options.dataDir);
  const running = openCluster(dataDir);
  if (running?.anyRunning())
    throw new ClusterRunningError(
      `a cluster from ${dataDir} is running (Temporal at ${running.address}): stop it with \`codeloop cluster down --data-dir ${dataDir}\``,
    );
  const frontendPort = options.frontendPort ?? DEFAULT_FRONTEND_PORT;
  let uiPort = options.uiPort === false ? undefined : (options.uiPort ?? DEFAULT_UI_PORT);
  if (uiPort !== undefined && !tools.ui) {
    log(`codeloop: no Web UI: ${tools.uiError}`);
    uiPort = undefined;
  }
  await assertFree(frontendPort, 'the frontend', '--port');
  if (uiPort !== undefined) await assertFree(uiPort, 'the Web UI', '--ui-port');
  mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const state: ClusterState = {
    dataDir,
    address: `127.0.0.1:${frontendPort}`,
    uiUrl: uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
    ports: await allocatePorts(frontendPort, uiPort),
    pids: {},
    durable: options.durable !== false,
    startedAt: new Date().toISOString(),
  };
  writeState(state);
  const cluster = new LocalCluster(state, log, tools);
  try {
    await cluster.bringUp(options.serverConfig);
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return cluster;
}

/** The cluster whose state `dataDir` holds, running or not; `undefined` when none was ever started there. */
export function openCluster(dataDir: string, log: (line: string) => void = () => {}): Cluster | undefined {
  const state = readState(path.resolve(dataDir));
  return state ? new LocalCluster(state, log) : undefined;
}

async function assertFree(port: number, what: string, option: string): Promise<void> {
  const taken = await acceptsConnections(port).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${port} for ${what} is in use (another Temporal server?): choose another with ${option}`);
}
