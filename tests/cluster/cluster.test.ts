import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCluster, type Cluster } from '../../src/cluster/cluster.js';
import { isRunning } from '../../src/cluster/process.js';
import { SERVER_CONFIG_FILES, SERVER_CONFIG_SOURCE } from '../../src/cluster/server-config.js';
import { TEMPORAL_SERVICES, type ClusterProcessName } from '../../src/cluster/services.js';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import type { agentTaskWorkflow, batchConductorWorkflow } from '../../src/workflows/index.js';
import { runCliProcess as runCli } from '../support/cli.js';
import { readmeCommand, runShell } from '../support/readme.js';
import { byTask, byTurn, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/polling.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo, makeWorkspace } from '../support/workspace.js';

// The cluster lives where the CLI looks by default (`cluster/` in CODELOOP_DATA_DIR), so the README's commands run as
// written, in a directory PostgreSQL's own user can reach (it runs as `postgres` when the tests run as root).
const root = mkdtempSync(path.join(os.tmpdir(), 'codeloop-cluster-'));
chmodSync(root, 0o755);
const dataDir = path.join(root, 'cluster');
const taskQueue = uniqueName('cluster');

let cluster: Cluster;
let temporal: TestTemporal;
let fake: FakeMessagesApi;
let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
let frontendPort: number;
let uiPort: number;

beforeAll(async () => {
  [frontendPort, uiPort] = [await freePort(), await freePort()];
  cluster = await startCluster({ dataDir, frontendPort, uiPort, durable: false });
  temporal = await connectTemporal(cluster.address);
  fake = await startFakeMessagesApi();
  workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake) });
}, 180_000);

afterAll(async () => {
  await workers?.stop();
  await fake?.close();
  await temporal?.close();
  await cluster?.stop();
  rmSync(root, { recursive: true, force: true });
}, 120_000);

/** A two-turn codeloop task (write a file, then finish) run to completion on the cluster; returns its workflow id. */
async function runTask(label: string): Promise<string> {
  const workspace = makeWorkspace({ 'README.md': '# scratch\n' });
  fake.enqueue(
    { toolCalls: [{ name: 'create_file', input: { path: 'done.txt', content: `${label}\n` } }] },
    { text: `Wrote done.txt for ${label}.` },
  );
  const workflowId = uniqueName(`cluster-${label}`);
  const handle = await temporal.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
    args: [{ title: `Cluster ${label}`, description: 'Write done.txt', workspace }],
    taskQueue,
    workflowId,
  });
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'completed', filesChanged: ['done.txt'] });
  expect(readFileSync(path.join(workspace, 'done.txt'), 'utf8')).toBe(`${label}\n`);
  expect(fake.problems).toEqual([]);
  return workflowId;
}

/** A `codeloop cluster` line of the README, run with bash as written (its comment dropped, so flags can follow). */
const readmeCluster = (command: string, extra = '') =>
  runShell(`${readmeCommand(command).replace(/\s+#.*$/, '')}${extra}`, { CODELOOP_DATA_DIR: root });

const commandLineOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);

describe('codeloop cluster', () => {
  let firstTask: string;

  test('runs each Temporal service as its own process from one configuration, on PostgreSQL with 4 shards', async () => {
    const pids = TEMPORAL_SERVICES.map((service) => cluster.pid(service)!);
    expect(new Set(pids).size).toBe(4);
    for (const [index, service] of TEMPORAL_SERVICES.entries()) {
      const commandLine = commandLineOf(pids[index]);
      expect(commandLine.slice(-3)).toEqual(['start', '--service', service]);
      expect(commandLine[commandLine.indexOf('--root') + 1]).toBe(path.join(dataDir, 'temporal'));
    }
    // The configuration the services read is deploy/temporal's, the one docker-compose.yml mounts, dynamic settings too.
    for (const file of SERVER_CONFIG_FILES)
      expect(readFileSync(path.join(dataDir, 'temporal', file), 'utf8')).toBe(readFileSync(path.join(SERVER_CONFIG_SOURCE, file), 'utf8'));
    for (const pid of pids)
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(
        `DYNAMIC_CONFIG_FILE_PATH=${path.join(dataDir, 'temporal', 'dynamic-config.yaml')}`,
      );

    const info = await temporal.connection.workflowService.getClusterInfo({});
    expect(info).toMatchObject({ historyShardCount: 4, persistenceStore: 'postgres12', serverVersion: '1.29.1' });
    expect(info.visibilityStore).toContain('postgres12');
    const namespace = await temporal.connection.workflowService.describeNamespace({ namespace: 'default' });
    expect(Number(namespace.config?.workflowExecutionRetentionTtl?.seconds)).toBe(30 * 86_400);
    const attributes = await temporal.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(attributes.customAttributes ?? {})).toEqual(expect.arrayContaining(Object.values(SEARCH_ATTRIBUTES)));

    // The Web UI serves its page and reaches the frontend.
    expect((await fetch(cluster.uiUrl!)).status).toBe(200);
    const namespaces = (await (await fetch(`${cluster.uiUrl}/api/v1/namespaces`)).json()) as {
      namespaces: { namespaceInfo: { name: string } }[];
    };
    expect(namespaces.namespaces.map((entry) => entry.namespaceInfo.name)).toContain('default');
  });

  test("reads deploy/temporal's dynamic settings: every history shard looks for due work every few seconds, unprompted", async () => {
    // Index scans of the history task tables while nothing runs: with Temporal's defaults a shard reads its timers
    // every 5 minutes and its transfers every minute when not told of new ones; dynamic-config.yaml makes both 5 s.
    const db = new pg.Client({ connectionString: cluster.postgres.url.replace(/\/[^/]*$/, '/temporal') });
    await db.connect();
    try {
      const scans = async () => {
        const { rows } = await db.query<{ relname: string; scans: string }>(
          "SELECT relname, idx_scan AS scans FROM pg_stat_user_tables WHERE relname IN ('timer_tasks', 'transfer_tasks')",
        );
        return Object.fromEntries(rows.map((row) => [row.relname, Number(row.scans)]));
      };
      const before = await scans();
      await new Promise((resolve) => setTimeout(resolve, 25_000));
      const after = await scans();
      // 4 shards, a look every 5 s (±15 %) for 25 s: 36 and 20 were measured; Temporal's defaults gave 3 and 2.
      for (const table of ['timer_tasks', 'transfer_tasks']) expect(after[table] - before[table], table).toBeGreaterThanOrEqual(12);
    } finally {
      await db.end();
    }
  });

  test('runs a codeloop task, and finds it by its search attribute in SQL visibility', async () => {
    firstTask = await runTask('first');
    const listCompleted = async () => {
      const found: string[] = [];
      for await (const execution of temporal.client.workflow.list({ query: `${SEARCH_ATTRIBUTES.status}="completed"` }))
        found.push(execution.workflowId);
      return found;
    };
    await eventually(listCompleted, (found) => found.includes(firstTask), `${firstTask} listed as completed`, { timeoutMs: 15_000 });
  });

  test('runs a batch: child workflows and their reports to the conductor cross the history shards', async () => {
    const repo = makeGitRepo();
    const creates = (file: string) =>
      byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: 'done' }]);
    fake.setResponder(byTask({ 'Task a': creates('a.txt'), 'Task b': creates('b.txt'), 'Task c': creates('c.txt') }));
    try {
      const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `write ${id}.txt`, dependsOn });
      const handle = await temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
        args: [{ workspace: repo, tasks: [task('a'), task('b', ['a']), task('c')] }],
        taskQueue,
        workflowId: uniqueName('cluster-batch'),
      });
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(result.tasks.map((entry) => entry.status)).toEqual(['completed', 'completed', 'completed']);
      for (const file of ['a.txt', 'b.txt', 'c.txt']) expect(fileOnBranch(repo, result.integrationBranch!, file)).toBe(`${file}\n`);
    } finally {
      fake.setResponder(undefined);
    }
  });

  test("task start, batch start and plan print the cluster's Web UI, found from the cluster's own state", async () => {
    // A queue no worker polls: the runs only need to exist. CODELOOP_UI_URL empty is unset, whatever the caller has.
    const env = {
      TEMPORAL_ADDRESS: cluster.address,
      CODELOOP_DATA_DIR: root,
      CODELOOP_TASK_QUEUE: uniqueName('links'),
      CODELOOP_UI_URL: '',
    };
    const workspace = makeGitRepo();
    writeFileSync(
      path.join(root, 'links-batch.yaml'),
      `workspace: ${workspace}\ntasks:\n  - id: a\n    title: Task a\n    description: write a.txt\n`,
    );
    writeFileSync(path.join(root, 'links-prd.md'), '# A note\n\nWrite NOTE.md.\n');
    const runs = [
      ['task', 'start', '--workspace', workspace, '--title', 'Links', 'Write a.txt'],
      ['batch', 'start', path.join(root, 'links-batch.yaml')],
      ['plan', path.join(root, 'links-prd.md'), '--workspace', workspace, '--no-wait'],
    ];
    for (const args of runs) {
      const human = await runCli(args, env);
      expect(human.code, human.stderr).toBe(0);
      const workflowId = /^started (\S+)/.exec(human.stdout)![1];
      expect(human.stdout).toContain(`web UI:  ${cluster.uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
      const json = await runCli([...args, '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      const started = JSON.parse(json.stdout) as { workflowId: string; url: string };
      expect(started.url).toBe(`${cluster.uiUrl}/namespaces/default/workflows/${encodeURIComponent(started.workflowId)}`);
      for (const id of [workflowId, started.workflowId]) await temporal.client.workflow.getHandle(id).terminate('link test');
    }
    expect(cluster.uiUrl).not.toContain('8233');
  });

  test('restarts each process on its own while the others keep running, and tasks go on', async () => {
    const processes: ClusterProcessName[] = [...TEMPORAL_SERVICES, 'ui'];
    for (const name of processes) {
      const before = Object.fromEntries(processes.map((other) => [other, cluster.pid(other)]));
      await cluster.restart(name, { signal: 'SIGKILL' });
      expect(cluster.pid(name), `${name} has a new process`).not.toBe(before[name]);
      for (const other of processes.filter((other) => other !== name))
        expect(cluster.pid(other), `${other} kept running`).toBe(before[other]);
      await cluster.waitUntilServing();
      if (name !== 'ui') await runTask(`after-${name}`);
    }
    expect((await fetch(cluster.uiUrl!)).status).toBe(200);

    const postmaster = cluster.postgres.pid();
    const services = TEMPORAL_SERVICES.map((service) => cluster.pid(service));
    await cluster.postgres.restart({ mode: 'fast' });
    expect(cluster.postgres.pid()).not.toBe(postmaster);
    expect(TEMPORAL_SERVICES.map((service) => cluster.pid(service))).toEqual(services);
    await cluster.waitUntilServing();
    await runTask('after-postgres');
  });

  test("the README's commands report it, restart a service, stop it, and start it again from the same data", async () => {
    const status = await readmeCluster('npx codeloop cluster status', ' --json');
    const reported = JSON.parse(status.stdout) as { serving: boolean; processes: { name: string; pid?: number; running: boolean }[] };
    expect(reported.serving).toBe(true);
    expect(reported.processes.map(({ name, pid, running }) => ({ name, pid, running }))).toEqual([
      { name: 'postgres', pid: cluster.postgres.pid(), running: true },
      ...[...TEMPORAL_SERVICES, 'ui' as const].map((name) => ({ name, pid: cluster.pid(name), running: true })),
    ]);

    // A restart from another process, with SIGTERM: the history service shuts down and comes back; nothing else moves.
    const before = Object.fromEntries(TEMPORAL_SERVICES.map((service) => [service, cluster.pid(service)]));
    const restarted = await readmeCluster('npx codeloop cluster restart history');
    expect(restarted.stdout).toContain('history restarted');
    expect(cluster.pid('history')).not.toBe(before.history);
    for (const service of TEMPORAL_SERVICES.slice(1)) expect(cluster.pid(service)).toBe(before[service]);
    await runTask('after-cli-restart');

    await workers?.stop();
    workers = undefined;
    const pids = [...TEMPORAL_SERVICES, 'ui' as const].map((name) => cluster.pid(name)!);
    const postmaster = cluster.postgres.pid()!;
    expect((await readmeCluster('npx codeloop cluster down')).stdout).toContain('cluster stopped');
    expect([...pids, postmaster].filter((pid) => isRunning(pid, []))).toEqual([]);
    const stopped = await runCli(['cluster', 'status', '--data-dir', dataDir]);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain('stopped');

    const up = await readmeCluster('npx codeloop cluster up', ` --port ${frontendPort} --ui-port ${uiPort}`);
    expect(up.stdout).toContain(`Temporal cluster started at 127.0.0.1:${frontendPort}`);
    expect(up.stdout).toContain(`Web UI at http://127.0.0.1:${uiPort}`);
    expect(up.stderr).toContain('namespace default exists');
    expect((await runCli(['cluster', 'status', '--data-dir', dataDir])).code).toBe(0);
    // Everything lives in PostgreSQL: the task run before the restart is still there.
    const described = await temporal.client.workflow.getHandle(firstTask).describe();
    expect(described.status.name).toBe('COMPLETED');
  });
});
