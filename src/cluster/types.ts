import type { ClusterPorts } from './ports.js';
import type { PrivatePostgres } from './postgres.js';
import type { ClusterProcessName, TemporalService } from './services.js';

export interface ClusterOptions {
  /** Holds everything the cluster keeps: PostgreSQL's data, the configuration, `logs/` and `cluster.json`. */
  dataDir: string;
  /** The frontend's gRPC port on 127.0.0.1, the cluster's address; default 7233. */
  frontendPort?: number;
  /** The Web UI's port on 127.0.0.1, default 8080; `false` runs no UI. */
  uiPort?: number | false;
  /** `false` runs PostgreSQL without fsync: faster, for clusters a test throws away. Default `true`. */
  durable?: boolean;
  /** Progress lines, e.g. `console.error`; silent by default. */
  log?: (line: string) => void;
  /** The server configuration's directory, default deploy/temporal: another commit's, to measure a change against it. */
  serverConfig?: string;
}

export interface ProcessStatus {
  name: ClusterProcessName | 'postgres';
  pid?: number;
  running: boolean;
  ports: number[];
  logFile: string;
}

export interface ClusterStatus {
  dataDir: string;
  address: string;
  uiUrl?: string;
  /** The frontend, every history shard and matching answer (see `waitUntilServing`). */
  serving: boolean;
  processes: ProcessStatus[];
}

/**
 * A PostgreSQL-backed Temporal cluster on this host, one process per service. Every process can be killed and started
 * on its own while the others keep running; the state lives in `<dataDir>/cluster.json`, so another process can
 * `openCluster` the same cluster and do the same.
 */
export interface Cluster {
  readonly dataDir: string;
  /** The frontend, `127.0.0.1:<port>`: what workers and clients connect to. */
  readonly address: string;
  readonly uiUrl?: string;
  readonly ports: ClusterPorts;
  /** `restart({ mode: 'fast' })` drops every connection the services hold; `stop`/`start` for a longer outage. */
  readonly postgres: PrivatePostgres;
  /** The Temporal services, in the order they start. */
  readonly services: readonly TemporalService[];
  /** Whether any of its processes (PostgreSQL included) runs. */
  anyRunning(): boolean;
  /** The live pid of a process, or `undefined` when it is not running. */
  pid(name: ClusterProcessName): number | undefined;
  logFile(name: ClusterProcessName): string;
  /** Signals one process (SIGKILL by default: no shutdown) and waits until it is gone; a SIGTERM not heeded in 20 s is escalated. */
  kill(name: ClusterProcessName, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts one stopped process with the ports and configuration it had, and waits until its ports listen (the
   * frontend: until it answers; the UI: until it serves its page). Shards a restarted history takes over may need a few
   * seconds more: `waitUntilServing` waits for those.
   */
  start(name: ClusterProcessName): Promise<void>;
  /** `kill` (SIGTERM by default) and `start`. */
  restart(name: ClusterProcessName, options?: { signal?: NodeJS.Signals }): Promise<void>;
  /** Waits until the frontend, every history shard and matching answer a client, as after `startCluster`. */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  /** Each process and whether the cluster serves; `{ probe: false }` skips asking the frontend (`serving` is then false). */
  status(options?: { probe?: boolean }): Promise<ClusterStatus>;
  /** Stops the Web UI, the services (SIGTERM, then SIGKILL after 20 s) and PostgreSQL; the data stays for the next start. */
  stop(): Promise<void>;
}
