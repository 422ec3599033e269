import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startCluster, type Cluster } from '../src/cluster/cluster.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { byTurn, startFakeMessagesApi, type FakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { freePort } from '../tests/support/free-port.js';
import { startWorkerProcess } from '../tests/support/worker-spawn.js';
import { type BenchEnv, machine, percentile, stamp, table, writeSection } from './harness.js';
import { scheduleToStart } from './schedule-to-start.js';

/** Task counts started at once; `CODELOOP_SCALE_N=100,500` measures fewer. */
const COUNTS = (process.env.CODELOOP_SCALE_N ?? '100,500,1000').split(',').map(Number);
/** `CODELOOP_SCALE_BACKENDS=dev` or `=cluster` measures one backend only. */
const BACKENDS = (process.env.CODELOOP_SCALE_BACKENDS ?? 'dev,cluster').split(',');
/** A count that has not completed by then is reported as where the backend topped out. */
const DEADLINE_MS = Number(process.env.CODELOOP_SCALE_DEADLINE_MS ?? 20 * 60_000);
/** Starts in flight at once: the client's own limit, not the server's. */
const START_CONCURRENCY = 50;

interface Backend {
  name: string;
  address: string;
  /** The server's processes now (pids), for RSS: one for the dev server; every service and PostgreSQL for the cluster. */
  pids(): number[];
  close(): Promise<void>;
}

interface Figures {
  completed: number;
  failed: number;
  wallMs: number;
  workflowTaskStart: number[];
  activityStart: number[];
  serverRssMb: number;
  workerRssMb: number;
}

/**
 * `npm run bench -- scale`: N independent scripted tasks (one file written, then done) started at once, on the dev
 * server and on the PostgreSQL cluster (`npm run install-cluster` first), each with one worker process of its own.
 * Completion, wall time, schedule-to-start of workflow tasks and activities, and peak RSS of the server and worker.
 */
export async function benchScale(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  fake.setResponder(
    byTurn([{ toolCalls: [{ name: 'create_file', input: { path: 'done.txt', content: 'done\n' } }] }, { text: 'Wrote done.txt.' }]),
  );
  const rows: (string | number)[][] = [];
  // Written after every measurement: a backend that fails later keeps what was measured before it.
  const record = (figures: (string | number)[]) => {
    rows.push(figures);
    writeSection('80-scale', render(rows));
  };
  try {
    const devServer: Backend = {
      name: 'dev server (SQLite)',
      address: env.server.address,
      pids: () => [env.server.process.pid!],
      close: async () => {},
    };
    if (BACKENDS.includes('dev'))
      for (const count of COUNTS) record(row(devServer.name, count, await measure(devServer, fake, env.bundlePath, count)));
    if (BACKENDS.includes('cluster')) {
      const cluster = await clusterBackend();
      try {
        for (const count of COUNTS) record(row(cluster.name, count, await measure(cluster, fake, env.bundlePath, count)));
      } finally {
        await cluster.close();
      }
    }
  } finally {
    await fake.close();
  }
  console.log(render(rows));
}

function render(rows: (string | number)[][]): string {
  return `## Scale: independent tasks started at once

\`npm run bench -- scale\`, ${stamp()}, ${machine()}, ${os.cpus().length} cores. Each task is a real \`agentTaskWorkflow\`
with a scripted model (one \`create_file\`, then done) in a directory of its own, sandboxed as usual, all started at
once (${START_CONCURRENCY} start calls in flight) and served by one worker process per backend. Schedule-to-start is
read from every task's history. RSS is the peak sampled every 500 ms: the dev server's one process; the cluster's
four services plus PostgreSQL and its backends. A count not done within ${DEADLINE_MS / 60_000} minutes stops there.

${table(['backend', 'tasks', 'completed', 'wall time', 'tasks/s', 'workflow task schedule-to-start', 'activity schedule-to-start', 'server RSS', 'worker RSS'], rows)}
`;
}

function row(backend: string, count: number, figures: Figures): (string | number)[] {
  const spread = (values: number[]) => (values.length ? `p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms` : '-');
  return [
    backend,
    count,
    `${figures.completed}${figures.failed ? ` (${figures.failed} failed)` : ''}`,
    `${(figures.wallMs / 1000).toFixed(1)} s`,
    (figures.completed / (figures.wallMs / 1000)).toFixed(1),
    spread(figures.workflowTaskStart),
    spread(figures.activityStart),
    `${figures.serverRssMb} MB`,
    `${figures.workerRssMb} MB`,
  ];
}

async function clusterBackend(): Promise<Backend> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-scale-cluster-'));
  // PostgreSQL runs as its own user when the bench runs as root: it must reach its data directory.
  chmodSync(dataDir, 0o755);
  console.error('bench: starting the cluster…');
  const cluster: Cluster = await startCluster({
    dataDir,
    frontendPort: await freePort(),
    uiPort: false,
    log: (line) => console.error(`  ${line}`),
  });
  return {
    name: 'cluster (PostgreSQL, 4 services)',
    address: cluster.address,
    pids: () => {
      const services = cluster.services.map((service) => cluster.pid(service));
      const postmaster = cluster.postgres.pid();
      return [...services, postmaster, ...(postmaster ? childrenOf(postmaster) : [])].filter((pid): pid is number => pid !== undefined);
    },
    async close() {
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function measure(backend: Backend, fake: FakeMessagesApi, bundlePath: string, count: number): Promise<Figures> {
  console.error(`bench: ${count} tasks on the ${backend.name}…`);
  const taskQueue = `bench-scale-${count}-${Date.now()}`;
  const connection = await Connection.connect({ address: backend.address });
  const client = new Client({ connection });
  // The worker in a process of its own, as `npm run worker` runs it, so its memory is its own to measure.
  const worker = await startWorkerProcess(
    {
      TEMPORAL_ADDRESS: backend.address,
      CODELOOP_TASK_QUEUE: taskQueue,
      CODELOOP_HOST_ID: 'bench',
      CODELOOP_WORKFLOW_BUNDLE: bundlePath,
      CODELOOP_LOG_LEVEL: 'ERROR',
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      CODELOOP_MODEL: 'bench-model',
    },
    { startTimeoutMs: 60_000 },
  );
  const root = mkdtempSync(path.join(os.tmpdir(), 'codeloop-scale-'));
  const peak = { server: 0, worker: 0 };
  const sampler = setInterval(() => {
    peak.server = Math.max(peak.server, rssMb(backend.pids()));
    peak.worker = Math.max(peak.worker, rssMb([worker.child.pid!]));
  }, 500);
  try {
    const started = Date.now();
    const ids = Array.from({ length: count }, (_, index) => `${taskQueue}-${index}`);
    const outcomes: Promise<boolean>[] = [];
    for (let index = 0; index < count; index += START_CONCURRENCY) {
      const batch = ids.slice(index, index + START_CONCURRENCY).map(async (workflowId) => {
        const workspace = mkdtempSync(path.join(root, 'task-'));
        const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
          taskQueue,
          workflowId,
          args: [{ title: 'Write done.txt', description: 'Create done.txt', workspace }],
        });
        return handle;
      });
      for (const handle of await Promise.all(batch)) {
        outcomes.push(
          handle.result().then(
            (result) => (result as { status: string }).status === 'completed',
            () => false,
          ),
        );
      }
    }
    const deadline = new Promise<'deadline'>((resolve) => setTimeout(() => resolve('deadline'), DEADLINE_MS).unref());
    const settled: boolean[] = [];
    await Promise.race([Promise.all(outcomes.map((outcome) => outcome.then((ok) => settled.push(ok)))), deadline]);
    const wallMs = Date.now() - started;
    const timings = await scheduleToStart(client, ids);
    return {
      completed: settled.filter(Boolean).length,
      failed: settled.filter((ok) => !ok).length,
      wallMs,
      ...timings,
      serverRssMb: peak.server,
      workerRssMb: peak.worker,
    };
  } finally {
    clearInterval(sampler);
    await worker.stop();
    await connection.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Resident memory of these processes together, in MB; a process gone counts nothing. */
function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const line = readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith('VmRSS:'));
      kb += Number(line?.match(/\d+/)?.[0] ?? 0);
    } catch {
      // Gone.
    }
  }
  return Math.round(kb / 1024);
}

/** Direct children of a process (PostgreSQL's backends under its postmaster). */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === parent;
      } catch {
        return false;
      }
    });
}
