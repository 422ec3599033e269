import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ClusterPorts } from './ports.js';
import type { ClusterProcessName } from './services.js';

/**
 * What a running cluster records in `<data dir>/cluster.json`, so that `codeloop cluster status|down|restart` work
 * from any process, not only the one that started it. Pids are those of the processes themselves (no wrappers).
 */
export interface ClusterState {
  dataDir: string;
  address: string;
  uiUrl?: string;
  ports: ClusterPorts;
  /** PostgreSQL with fsync (the default), or without for a throwaway cluster. */
  durable: boolean;
  /** Live processes only: a stopped one is removed. */
  pids: Partial<Record<ClusterProcessName, number>>;
  startedAt: string;
}

export const stateFile = (dataDir: string) => path.join(dataDir, 'cluster.json');

export function readState(dataDir: string): ClusterState | undefined {
  const file = stateFile(dataDir);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
}

/** Written whole and renamed into place, so a reader never sees half a file. */
export function writeState(state: ClusterState): void {
  const file = stateFile(state.dataDir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
