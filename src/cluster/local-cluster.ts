import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { setUpNamespace } from './namespace.js';
import { openPostgres, type PrivatePostgres } from './postgres.js';
import { isRunning, spawnDetached, stopProcess, tailOf } from './process.js';
import { acceptsConnections, retryUntil, waitUntilServing } from './readiness.js';
import { setUpSchemas } from './schema.js';
import { installServerConfig, serverEnvironment, serviceCommand } from './server-config.js';
import { DEFAULT_NAMESPACE, TEMPORAL_SERVICES, type ClusterProcessName } from './services.js';
import { readState, writeState, type ClusterState } from './state.js';
import { requireClusterTools, type ClusterTools } from './tools.js';
import type { Cluster, ClusterStatus, ProcessStatus } from './types.js';
import { installUiConfig, uiAnswers, uiCommand, uiEnvironment } from './web-ui.js';

/** PostgreSQL's superuser in the cluster, and the owner of Temporal's databases. */
const POSTGRES_USER = 'temporal';

/** The cluster of one data directory, its processes found through the pids `cluster.json` records. */
export class LocalCluster implements Cluster {
  readonly services = TEMPORAL_SERVICES;
  readonly postgres: PrivatePostgres;

  constructor(
    private readonly state: ClusterState,
    private readonly log: (line: string) => void,
    private tools?: ClusterTools,
  ) {
    this.postgres = openPostgres({
      dir: path.join(state.dataDir, 'postgres'),
      port: state.ports.postgres,
      user: POSTGRES_USER,
      password: postgresPassword(state.dataDir),
      durable: state.durable,
    });
  }

  get dataDir() {
    return this.state.dataDir;
  }
  get address() {
    return this.state.address;
  }
  get uiUrl() {
    return this.state.uiUrl;
  }
  get ports() {
    return this.state.ports;
  }

  /** The first start: everything, in order; `serverConfig` is the configuration's directory (see `ClusterOptions`). */
  async bringUp(serverConfig?: string): Promise<void> {
    const started = Date.now();
    await this.postgres.start();
    this.log(`codeloop: PostgreSQL on 127.0.0.1:${this.ports.postgres} (data in ${this.postgres.dataDir})`);
    installServerConfig(this.dataDir, serverConfig);
    await setUpSchemas(this.requireTools(), this.postgres, this.logFile('schema'));
    this.log('codeloop: schemas of temporal and temporal_visibility up to date');
    const [first, ...rest] = TEMPORAL_SERVICES;
    await this.start(first);
    await Promise.all(rest.map((service) => this.start(service)));
    this.log(`codeloop: ${TEMPORAL_SERVICES.map((service) => `${service} (pid ${this.pid(service)})`).join(', ')}`);
    const connection = await Connection.connect({ address: this.address });
    try {
      const setup = await setUpNamespace(connection);
      const added = setup.searchAttributes.filter((attribute) => attribute.action === 'registered').length;
      this.log(
        `codeloop: namespace ${setup.namespace} ${setup.created ? 'created' : 'exists'} (retention ${setup.retentionDays} days); ` +
          `search attributes ${setup.searchAttributes.map((attribute) => attribute.name).join(', ')} (${added} newly registered)`,
      );
    } finally {
      await connection.close();
    }
    await this.waitUntilServing();
    if (this.uiUrl) {
      installUiConfig(this.requireTools().ui!, this.dataDir);
      await this.start('ui');
    }
    this.log(`codeloop: cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  anyRunning(): boolean {
    return this.postgres.pid() !== undefined || (Object.keys(this.pids()) as ClusterProcessName[]).some((name) => this.pid(name));
  }

  pid(name: ClusterProcessName): number | undefined {
    const pid = this.pids()[name];
    return isRunning(pid, this.marks(name)) ? pid : undefined;
  }

  /** Read from the state file each time: another process (`codeloop cluster restart`) may have changed a pid. */
  private pids(): ClusterState['pids'] {
    return readState(this.dataDir)?.pids ?? this.state.pids;
  }

  private recordPid(name: ClusterProcessName, pid: number | undefined): void {
    this.state.pids = { ...this.pids(), [name]: pid };
    if (pid === undefined) delete this.state.pids[name];
    writeState(this.state);
  }

  logFile(name: ClusterProcessName | 'schema'): string {
    return path.join(this.dataDir, 'logs', `${name}.log`);
  }

  async kill(name: ClusterProcessName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const pid = this.pid(name);
    if (pid) await stopProcess(pid, this.marks(name), signal);
    this.recordPid(name, undefined);
  }

  async start(name: ClusterProcessName): Promise<void> {
    const running = this.pid(name);
    if (running) throw new Error(`${label(name)} is already running (pid ${running})`);
    const { command, args } = this.command(name);
    const logFile = this.logFile(name);
    const { pid } = spawnDetached(command, args, { env: this.environment(name), logFile });
    this.recordPid(name, pid);
    // During start-up the pid may still be the shell that execs the server, so only liveness is checked here.
    const exited = () =>
      isRunning(pid, []) ? undefined : `${label(name)} exited while starting; the end of ${logFile}:\n${tailOf(logFile)}`;
    await retryUntil(`${label(name)} to listen`, 60_000, () => Promise.all(this.listeningPorts(name).map(acceptsConnections)), exited);
    if (name === 'frontend') await retryUntil('the frontend to answer', 60_000, () => answers(this.address), exited);
    if (name === 'ui') await retryUntil('the Web UI to serve', 60_000, () => uiAnswers(this.uiUrl!), exited);
  }

  async restart(name: ClusterProcessName, { signal = 'SIGTERM' }: { signal?: NodeJS.Signals } = {}): Promise<void> {
    await this.kill(name, signal);
    await this.start(name);
  }

  async waitUntilServing(timeoutMs = 60_000): Promise<void> {
    await waitUntilServing(this.address, DEFAULT_NAMESPACE, timeoutMs);
  }

  async status({ probe = true }: { probe?: boolean } = {}): Promise<ClusterStatus> {
    const names: ClusterProcessName[] = [...TEMPORAL_SERVICES, ...(this.uiUrl ? (['ui'] as const) : [])];
    const processes: ProcessStatus[] = names.map((name) => ({
      name,
      pid: this.pid(name),
      running: this.pid(name) !== undefined,
      ports: this.listeningPorts(name),
      logFile: this.logFile(name),
    }));
    const postgresPid = this.postgres.pid();
    processes.unshift({
      name: 'postgres',
      pid: postgresPid,
      running: postgresPid !== undefined,
      ports: [this.ports.postgres],
      logFile: this.postgres.logFile,
    });
    const serving =
      probe &&
      this.pid('frontend') !== undefined &&
      (await waitUntilServing(this.address, DEFAULT_NAMESPACE, 0).then(
        () => true,
        () => false,
      ));
    return { dataDir: this.dataDir, address: this.address, uiUrl: this.uiUrl, serving, processes };
  }

  async stop(): Promise<void> {
    if (this.pid('ui')) await this.kill('ui', 'SIGTERM');
    await Promise.all(TEMPORAL_SERVICES.map((service) => this.kill(service, 'SIGTERM')));
    if (this.postgres.pid() !== undefined) await this.postgres.stop({ mode: 'fast' });
  }

  private requireTools(): ClusterTools {
    return (this.tools ??= requireClusterTools());
  }

  private command(name: ClusterProcessName) {
    if (name === 'ui') return uiCommand(this.requireTools().ui!, path.join(this.dataDir, 'ui'));
    return serviceCommand(path.join(this.dataDir, 'temporal'), name);
  }

  private marks(name: ClusterProcessName): string[] {
    return this.command(name).marks;
  }

  private environment(name: ClusterProcessName): NodeJS.ProcessEnv {
    if (name === 'ui') return uiEnvironment(this.address, this.ports.ui!);
    return serverEnvironment(this.requireTools(), this.ports, this.postgres);
  }

  /** The ports a process listens on once it is up (the internal worker serves membership only). */
  private listeningPorts(name: ClusterProcessName): number[] {
    if (name === 'ui') return [this.ports.ui!];
    const ports = this.ports.services[name];
    if (name === 'worker') return [ports.membership];
    return [ports.grpc, ports.membership, ...(ports.http ? [ports.http] : [])];
  }
}

const label = (name: ClusterProcessName) => (name === 'ui' ? 'the Temporal Web UI' : `temporal ${name}`);

async function answers(address: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
  } finally {
    await connection.close();
  }
}

/** PostgreSQL's password, made once per data directory and kept beside it (readable by its owner only). */
function postgresPassword(dataDir: string): string {
  const file = path.join(dataDir, 'postgres.password');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
