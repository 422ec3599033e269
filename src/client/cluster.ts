import path from 'node:path';
import { openCluster, startCluster, type Cluster, type ClusterStatus } from '../cluster/cluster.js';
import type { ClusterProcessName } from '../cluster/services.js';
import { sleep } from '../cluster/process.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { cliConfig } from './session.js';

interface DataDirOptions extends OutputOptions {
  dataDir?: string;
}

interface UpOptions extends DataDirOptions {
  port: string;
  uiPort: string;
  ui: boolean;
  foreground?: boolean;
}

/** `--data-dir`, else `cluster/` in codeloop's data directory (`CODELOOP_DATA_DIR`, default `.data`). */
const dataDirOf = (options: DataDirOptions) => path.resolve(options.dataDir ?? path.join(cliConfig().server.dataDir, 'cluster'));

/** What the commands a message suggests need to reach this cluster: nothing for the default data directory. */
const dataDirFlag = (options: DataDirOptions) => (options.dataDir ? ` --data-dir ${path.resolve(options.dataDir)}` : '');

const portOf = (value: string, option: string) => {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new CliError(`${option} must be a port number, not ${value}`, 2);
  return port;
};

/**
 * `codeloop cluster up`: starts the cluster and returns once it serves, leaving it running; `--foreground` (what
 * `npm run cluster` runs) stays and stops it all on Ctrl-C.
 */
export async function clusterUp(options: UpOptions): Promise<void> {
  const dataDir = dataDirOf(options);
  const existing = openCluster(dataDir);
  if (existing?.anyRunning() && !options.foreground) {
    emit(options, summaryOf(existing, 'already running'), describe(dataDirFlag(options)));
    return;
  }
  const log = options.json ? () => {} : (line: string) => console.error(line);
  // In the foreground, a Ctrl-C while the cluster starts stops it once started, instead of leaving it half running.
  const interrupted = options.foreground ? whenInterrupted() : undefined;
  const cluster = await startCluster({
    dataDir,
    frontendPort: portOf(options.port, '--port'),
    uiPort: options.ui ? portOf(options.uiPort, '--ui-port') : false,
    log,
  });
  emit(options, summaryOf(cluster, 'started'), describe(dataDirFlag(options)));
  if (interrupted) await superviseUntil(interrupted, dataDir, dataDirFlag(options), log);
}

/** `codeloop cluster status`: every process, its pid, ports and log; exit code 0 only while the cluster serves. */
export async function clusterStatus(options: DataDirOptions): Promise<void> {
  const cluster = requireCluster(dataDirOf(options));
  const status = await cluster.status();
  emit(options, status, formatStatus);
  if (!status.serving) process.exitCode = 1;
}

/** `codeloop cluster down`: stops every process; the data stays for the next `up`. */
export async function clusterDown(options: DataDirOptions): Promise<void> {
  const dataDir = dataDirOf(options);
  const cluster = openCluster(dataDir);
  const wasRunning = cluster?.anyRunning() ?? false;
  await cluster?.stop();
  emit(options, { dataDir, stopped: wasRunning }, () =>
    wasRunning ? `cluster stopped; its data stays in ${dataDir}` : `no cluster running from ${dataDir}`,
  );
}

/** `codeloop cluster restart <process>`: one process, the others keep running. */
export async function clusterRestart(name: ClusterProcessName | 'postgres', options: DataDirOptions & { signal: string }): Promise<void> {
  const cluster = requireCluster(dataDirOf(options));
  const started = Date.now();
  if (name === 'postgres') await cluster.postgres.restart({ mode: 'fast' });
  else await cluster.restart(name, { signal: options.signal as NodeJS.Signals });
  await cluster.waitUntilServing();
  const pid = name === 'postgres' ? cluster.postgres.pid() : cluster.pid(name);
  emit(options, { name, pid, ms: Date.now() - started }, (value) => `${value.name} restarted (pid ${value.pid}); the cluster serves again`);
}

function requireCluster(dataDir: string): Cluster {
  const cluster = openCluster(dataDir);
  if (!cluster)
    throw new CliError(`no cluster was started from ${dataDir}: start one with \`npx codeloop cluster up\` (or pass --data-dir)`);
  return cluster;
}

interface Summary {
  state: 'started' | 'already running';
  address: string;
  uiUrl?: string;
  dataDir: string;
}

const summaryOf = (cluster: Cluster, state: Summary['state']): Summary => ({
  state,
  address: cluster.address,
  uiUrl: cluster.uiUrl,
  dataDir: cluster.dataDir,
});

/** The human summary; `flag` is what the commands it suggests need to reach this cluster. */
const describe =
  (flag: string) =>
  ({ state, address, uiUrl, dataDir }: Summary) =>
    [
      `Temporal cluster ${state} at ${address} (namespace default)${uiUrl ? `, Web UI at ${uiUrl}` : ', no Web UI'}`,
      `  data, logs and state in ${dataDir}`,
      `  workers: TEMPORAL_ADDRESS=${address} npm run worker`,
      `  \`npx codeloop cluster status${flag}\` shows each process; \`npx codeloop cluster down${flag}\` stops them`,
    ].join('\n');

function formatStatus(status: ClusterStatus): string {
  const running = status.processes.filter((process) => process.running).length;
  const headline =
    running === 0
      ? `cluster in ${status.dataDir}: stopped`
      : `cluster at ${status.address}: ${status.serving ? 'serving' : 'NOT serving'}${status.uiUrl ? `, Web UI at ${status.uiUrl}` : ''}`;
  const rows = status.processes.map(
    (process) =>
      `  ${process.name.padEnd(9)} ${(process.running ? `pid ${process.pid}` : 'stopped').padEnd(11)} ports ${process.ports.join(', ').padEnd(20)} ${process.logFile}`,
  );
  return [headline, ...rows].join('\n');
}

/** Resolves on the first SIGINT or SIGTERM, which then no longer end the process: codeloop stops the cluster first. */
function whenInterrupted(): { signalled: Promise<void>; happened(): boolean } {
  let happened = false;
  const signalled = new Promise<void>((resolve) => {
    const stop = () => {
      happened = true;
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return { signalled, happened: () => happened };
}

/**
 * The foreground: reports a process that exits on its own (with the command that restarts it) until interrupted, then
 * stops the whole cluster. The state is re-read each time, so a restart from another terminal is followed.
 */
async function superviseUntil(
  interrupted: ReturnType<typeof whenInterrupted>,
  dataDir: string,
  flag: string,
  log: (line: string) => void,
): Promise<void> {
  log('codeloop: the cluster runs until Ctrl-C');
  const reported = new Set<string>();
  while (!interrupted.happened()) {
    const status = await openCluster(dataDir)!.status({ probe: false });
    for (const process of status.processes) {
      if (process.running) reported.delete(process.name);
      else if (!reported.has(process.name) && !interrupted.happened()) {
        reported.add(process.name);
        log(
          `codeloop: ${process.name} is not running (see ${process.logFile}); restart it: npx codeloop cluster restart ${process.name}${flag}`,
        );
      }
    }
    await Promise.race([sleep(2_000), interrupted.signalled]);
  }
  log('codeloop: stopping the cluster');
  await openCluster(dataDir)!.stop();
  log('codeloop: cluster stopped');
}
