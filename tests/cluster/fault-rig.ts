import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { startCluster, type Cluster } from '../../src/cluster/cluster.js';
import type { BatchResult, BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { hostQueueFor } from '../../src/shared/host-queue.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { waitForBatch } from '../support/batch.js';
import { eventually } from '../support/polling.js';
import { byTask, byTurn, startFakeMessagesApi, type FakeMessagesApi, type Responder } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import type { WorkerProcess } from '../support/worker-spawn.js';
import { makeGitRepo } from '../support/workspace.js';
import type { RunHistory } from './recovery.js';

export const HOSTS = ['host-a', 'host-b'] as const;
export type HostId = (typeof HOSTS)[number];

/** Each model call takes this long, so a task runs for seconds and a fault lands while tasks run. */
const MODEL_DELAY_MS = 600;
const TASKS = 20;

const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A client of the rig's cluster. */
export interface RigTemporal {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * A PostgreSQL cluster, a loopback Messages API and two worker hosts, each its own process with its own
 * `CODELOOP_HOST_ID` and worktree root. The agent's commands run unsandboxed here: each appends to a ledger outside
 * every worktree, which is how a command that ran twice is caught (containment has tests of its own). Free of vitest,
 * so `npm run bench -- faults` drives the same rig as the cluster tests.
 */
export interface Rig {
  cluster: Cluster;
  temporal: RigTemporal;
  fake: FakeMessagesApi;
  taskQueue: string;
  hostQueue(host: HostId): string;
  host(host: HostId): WorkerProcess | undefined;
  startHost(host: HostId): Promise<void>;
  killHost(host: HostId): Promise<void>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Starts a worker host's process with this environment over the caller's, once it polls. */
  spawnWorker(env: NodeJS.ProcessEnv): Promise<WorkerProcess>;
  /** The cluster's configuration directory (default deploy/temporal): another commit's, to measure it. */
  serverConfig?: string;
  /** PostgreSQL with fsync, as `codeloop cluster up` runs it; default off, which is faster for tests. */
  durable?: boolean;
}

export async function startRig({ spawnWorker, serverConfig, durable = false }: RigOptions): Promise<Rig> {
  // PostgreSQL runs as its own user when the tests run as root: everything it reads must be reachable to it.
  const root = mkdtempSync(path.join(os.tmpdir(), 'codeloop-faults-'));
  chmodSync(root, 0o755);
  const cluster = await startCluster({
    dataDir: path.join(root, 'cluster'),
    frontendPort: await freePort(),
    uiPort: false,
    durable,
    serverConfig,
  });
  const connection = await Connection.connect({ address: cluster.address });
  const temporal: RigTemporal = { client: new Client({ connection }), connection, close: () => connection.close() };
  const fake = await startFakeMessagesApi();
  fake.setResponder(slowed(scriptedTasks()));
  const taskQueue = uniqueName('faults');
  const hosts = new Map<HostId, WorkerProcess>();
  const rig: Rig = {
    cluster,
    temporal,
    fake,
    taskQueue,
    hostQueue: (host) => hostQueueFor(taskQueue, host),
    host: (host) => hosts.get(host),
    async startHost(host) {
      const worktrees = path.join(root, host);
      mkdirSync(worktrees, { recursive: true });
      const env = {
        ANTHROPIC_API_KEY: fake.apiKey,
        ANTHROPIC_BASE_URL: fake.url,
        CODELOOP_MODEL: 'claude-test',
        TEMPORAL_ADDRESS: cluster.address,
        CODELOOP_TASK_QUEUE: taskQueue,
        CODELOOP_HOST_ID: host,
        CODELOOP_WORKTREES_DIR: worktrees,
        CODELOOP_SANDBOX: 'off',
      };
      hosts.set(host, await spawnWorker(env));
    },
    async killHost(host) {
      await hosts.get(host)?.kill();
      hosts.delete(host);
    },
    async close() {
      await Promise.all([...hosts.values()].map((worker) => worker.stop()));
      await fake.close();
      await temporal.close();
      await cluster.stop();
    },
  };
  for (const host of HOSTS) await rig.startHost(host);
  return rig;
}

const taskId = (index: number) => `t${String(index + 1).padStart(2, '0')}`;
type RepoName = 'a' | 'b' | 'c';
/** Seven tasks in a repository pinned to host-a, seven pinned to host-b, six in one on the shared queue. */
const repoOf = (index: number): RepoName => (index < 7 ? 'a' : index < 14 ? 'b' : 'c');

/** Each task writes its own file, appends its id to the ledger with a command, and says it is done: three model calls. */
function scriptedTasks(): Responder {
  const responders: Record<string, Responder> = {};
  for (let index = 0; index < TASKS; index += 1) {
    const id = taskId(index);
    responders[`Task ${id}`] = byTurn([
      { toolCalls: [{ name: 'create_file', input: { path: `work/${id}.txt`, content: `${id} was here\n` } }] },
      (request) => {
        // The ledger's path is in the task's description, which the prompt carries.
        const ledger = /ledger (\/[^\s"\\]+)/.exec(JSON.stringify(request.body))![1];
        return { toolCalls: [{ name: 'run_command', input: { command: `echo ${id} >> ${ledger}` } }] };
      },
      { text: `Wrote work/${id}.txt and recorded ${id}.` },
    ]);
  }
  return byTask(responders);
}

function slowed(responder: Responder): Responder {
  return async (request) => {
    await new Promise((resolve) => setTimeout(resolve, MODEL_DELAY_MS));
    return responder(request);
  };
}

export interface FaultBatch {
  handle: WorkflowHandle<typeof batchConductorWorkflow>;
  repos: Record<RepoName, string>;
  ledger: string;
}

/**
 * A 20-task DAG over three repositories: in each, task n waits for task n - 2 (two chains side by side), and the
 * shared-queue repository's first task also waits for host-a's first. `taskDefaults` go to every task.
 */
export async function startFaultBatch(rig: Rig, taskDefaults: Record<string, unknown> = {}): Promise<FaultBatch> {
  const repos = { a: makeGitRepo(), b: makeGitRepo(), c: makeGitRepo() };
  const ledger = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-ledger-')), 'effects.log');
  const indexes = Array.from({ length: TASKS }, (_, index) => index);
  const tasks = indexes.map((index) => {
    const repo = repoOf(index);
    const sameRepo = indexes.filter((other) => repoOf(other) === repo);
    const position = sameRepo.indexOf(index);
    const dependsOn = position >= 2 ? [taskId(sameRepo[position - 2])] : [];
    if (index === 14) dependsOn.push(taskId(0));
    return {
      id: taskId(index),
      title: `Task ${taskId(index)}`,
      description: `Write work/${taskId(index)}.txt, then record your id in the ledger ${ledger}`,
      dependsOn,
      workspace: repos[repo],
      ...(repo === 'c' ? {} : { hostQueue: rig.hostQueue(repo === 'a' ? 'host-a' : 'host-b') }),
    };
  });
  const handle = await rig.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [{ tasks, maxParallel: 6, taskDefaults }],
    taskQueue: rig.taskQueue,
    workflowId: uniqueName('faults-batch'),
  });
  return { handle, repos, ledger };
}

/** Waits until some tasks are done and others running: the moment to inject a fault. */
export function midway(batch: FaultBatch): Promise<BatchStateSnapshot> {
  return waitForBatch(batch.handle, (state) => state.counts.completed >= 4 && state.counts.running >= 2);
}

/** What a batch left in git: each repository's integration tree, and each task's own change. */
export interface Work {
  integrationTrees: Record<RepoName, string>;
  taskChanges: Record<string, string>;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** What a finished batch left: its result, the commands' ledger, every history, and its work in git. */
export interface Finished {
  result: BatchResult;
  /** Task ids in the order their commands appended them: each should be there exactly once. */
  ledger: string[];
  /** Every run of the batch and of its children, as the server holds them. */
  runs: RunHistory[];
  /** The batch's own runs (one, or more after continue-as-new). */
  batchRuns: temporal.api.history.v1.IHistory[];
  work: Work;
}

/**
 * Waits for the batch to end (a batch that does not fails here with its state, not at a test's timeout) and reads
 * what it left. Judging it is the caller's: see `settle` in faults.test.ts.
 */
export async function finishBatch(rig: Rig, batch: FaultBatch, timeoutMs = 200_000): Promise<Finished> {
  await eventually(
    async () => {
      const state = await batch.handle.query<BatchStateSnapshot>('getBatchState').catch(() => undefined);
      const unfinished = state?.tasks.filter((task) => task.status !== 'completed');
      const running = unfinished?.find((task) => task.status === 'running');
      const child =
        running &&
        (await rig.temporal.client.workflow
          .getHandle(running.childWorkflowId)
          .describe()
          .catch(() => undefined));
      const waitingOn = child?.raw.pendingActivities?.map((activity) => ({
        type: activity.activityType?.name,
        attempt: activity.attempt,
        failure: activity.lastFailure?.message,
      }));
      return state && { status: state.status, counts: state.counts, unfinished, openBlockers: state.openBlockers, waitingOn };
    },
    (state) => state !== undefined && state.status !== 'running' && state.status !== 'blocked',
    'the batch did not end; last state',
    { timeoutMs, intervalMs: 1_000 },
  );
  const result = (await batch.handle.result()) as BatchResult;
  const ledger = existsSync(batch.ledger) ? readFileSync(batch.ledger, 'utf8').split('\n').filter(Boolean) : [];
  const runs = await historiesOf(rig, result.batchId, batch.handle.workflowId);
  const batchRuns = runs.filter((run) => run.workflowId === batch.handle.workflowId).map((run) => run.history);
  const branch = (name: string) => `codeloop/${result.batchId}/${name}`;
  const integrationTrees = {} as Record<RepoName, string>;
  for (const [name, repo] of Object.entries(batch.repos))
    integrationTrees[name as RepoName] = git(repo, 'rev-parse', `${branch('integration')}^{tree}`);
  const taskChanges: Record<string, string> = {};
  for (const task of result.tasks) {
    const index = Number(task.id.slice(1)) - 1;
    taskChanges[task.id] = git(batch.repos[repoOf(index)], 'diff', `${branch(task.id)}~1`, branch(task.id));
  }
  return { result, ledger, runs, batchRuns, work: { integrationTrees, taskChanges } };
}

/** The ids of the batch's tasks, in order: what the ledger holds once each command ran exactly once. */
export const TASK_IDS = Array.from({ length: TASKS }, (_, index) => taskId(index));

/** Every run of the batch and of its children, fetched from the cluster. */
async function historiesOf(rig: Rig, batchId: string, batchWorkflowId: string): Promise<RunHistory[]> {
  const { client } = rig.temporal;
  const query = `${SEARCH_ATTRIBUTES.batchId} = '${batchId}' OR WorkflowId = '${batchWorkflowId}'`;
  const runs: RunHistory[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    runs.push({ workflowId: execution.workflowId, history });
  }
  return runs;
}

/** The host queue each task's child was given: where its workspace, and so its tools, are. */
export async function hostQueuesOfTasks(rig: Rig, batch: FaultBatch): Promise<Record<string, string>> {
  const result = (await batch.handle.result()) as BatchResult;
  const queues: Record<string, string> = {};
  for (const task of result.tasks) {
    const history = await rig.temporal.client.workflow.getHandle(`${batch.handle.workflowId}/${task.id}`).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!;
    queues[task.id] = defaultPayloadConverter.fromPayload<{ hostQueue: string }>(started.input!.payloads![0]).hostQueue;
  }
  return queues;
}
