import { Option, type Command } from 'commander';
import { DEFAULT_FRONTEND_PORT, DEFAULT_UI_PORT } from '../cluster/cluster.js';
import { TEMPORAL_SERVICES } from '../cluster/services.js';
import { clusterDown, clusterRestart, clusterStatus, clusterUp } from './cluster.js';
import { CliError } from './output.js';

const dataDir = () =>
  new Option('--data-dir <dir>', "the cluster's data, logs and state (default: cluster/ in CODELOOP_DATA_DIR, .data/cluster)");
const json = () => new Option('--json', 'print JSON for scripts');

/** `codeloop cluster up|status|down|restart`: a PostgreSQL-backed Temporal cluster on this host, one process per service. */
export function addClusterCommand(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('a PostgreSQL-backed Temporal cluster on this host: one process per service (needs `npm run install-cluster`)');
  cluster
    .command('up')
    .description(
      'start PostgreSQL, the schemas, history, matching, frontend, worker and the Web UI, the default namespace (30 days) and ' +
        "codeloop's search attributes; returns once it serves and leaves it running",
    )
    .addOption(dataDir())
    .option('--port <port>', 'frontend gRPC port on 127.0.0.1: the address workers use', String(DEFAULT_FRONTEND_PORT))
    .option('--ui-port <port>', 'Web UI port on 127.0.0.1', String(DEFAULT_UI_PORT))
    .option('--no-ui', 'run no Web UI')
    .option('--foreground', 'stay in the foreground and stop the cluster on Ctrl-C (what `npm run cluster` does)')
    .addOption(json())
    .action(reported(clusterUp));
  cluster
    .command('status')
    .description('each process with its pid, ports and log, and whether the cluster serves; exit code 0 only if it does')
    .addOption(dataDir())
    .addOption(json())
    .action(reported(clusterStatus));
  cluster
    .command('down')
    .description('stop every process of the cluster; its data stays for the next `up`')
    .addOption(dataDir())
    .addOption(json())
    .action(reported(clusterDown));
  cluster
    .command('restart')
    .description('restart one process while the others keep running, and wait until the cluster serves again')
    .addArgument(cluster.createArgument('<process>', 'which one').choices([...TEMPORAL_SERVICES, 'ui', 'postgres']))
    .addOption(dataDir())
    .addOption(
      new Option('--signal <signal>', 'how to stop a Temporal service or the UI: SIGTERM lets it shut down, SIGKILL does not')
        .choices(['SIGTERM', 'SIGKILL'])
        .default('SIGTERM'),
    )
    .addOption(json())
    .action(reported(clusterRestart));
}

/** A cluster that cannot start or stop says why on one line, as every CLI error does, not with a stack trace. */
function reported<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return (...args) =>
    action(...args).catch((error: unknown) => {
      throw error instanceof CliError ? error : new CliError((error as Error).message);
    });
}
