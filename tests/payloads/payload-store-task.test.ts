import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Report } from '../../src/client/report.js';
import { loadConfig } from '../../src/config.js';
import { startCodecServer } from '../../src/payloads/codec-server.js';
import { payloadCodecsFor, type PayloadCodecs } from '../../src/payloads/codecs.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { runCli } from '../support/cli.js';
import { CODEC_FIXTURE_KEYS, recordCodecHistory } from '../support/record-history.js';
import { fillIn, readmeCommand, runShell } from '../support/readme.js';
import { byTurn, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { connectTemporal, modelEnv, startWorkers, uniqueName, type TestTemporal } from '../support/temporal.js';
import { spawnWorker } from '../support/worker-process.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * A task with large payloads in the file store and every payload encrypted: the server's history holds neither the
 * file the agent read nor what it wrote, and every reader that has the settings (CLI, codec server, temporal) sees
 * them as written.
 */
let temporal: TestTemporal;
let fake: FakeMessagesApi;
let payloads: PayloadCodecs;
let client: Client;
const storeDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-store-'));
/** A fixed key, so the run recorded as a replay fixture can be decoded when it is replayed. */
const settings = { CODELOOP_PAYLOAD_STORE: `file://${storeDir}`, CODELOOP_PAYLOAD_KEYS: CODEC_FIXTURE_KEYS };
const marker = `marker-${randomBytes(8).toString('hex')}`;
/** A file of ~6 KB, so the tool result and every later model call go to the store. */
const notes = [marker, ...Array.from({ length: 90 }, (_, line) => createHash('sha256').update(String(line)).digest('hex'))].join('\n');

const session = () =>
  byTurn([
    { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
    { toolCalls: [{ name: 'create_file', input: { path: 'copy.txt', content: `${marker}\n` } }] },
    { toolCalls: [{ name: 'run_command', input: { command: 'cat copy.txt' } }] },
    { text: `Copied ${marker}.` },
  ]);

beforeAll(async () => {
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
  payloads = payloadCodecsFor(loadConfig(settings).payloads, settings);
  client = new Client({ connection: temporal.client.connection, namespace: 'default', dataConverter: payloads.dataConverter });
});

afterAll(async () => {
  await payloads?.close();
  await fake?.close();
  await temporal?.close();
});

/** The history as the server holds it, bytes and all, read without any codec. */
async function rawHistory(workflowId: string): Promise<Buffer> {
  const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
}

/** Every payload's data in `temporal workflow show --output json`, base64 decoded, as one text. */
function payloadText(json: string): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const { data, metadata } = value as { data?: unknown; metadata?: unknown };
      if (typeof data === 'string' && metadata) texts.push(Buffer.from(data, 'base64').toString('utf8'));
      Object.values(value).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return texts.join('\n');
}

function storeHolds(text: string): boolean {
  return readdirSync(storeDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .some((entry) => readFileSync(path.join(entry.parentPath, entry.name)).includes(text));
}

test('a task runs with the store and encryption; no plaintext in history or store; the CLI, codec server and temporal read it', async () => {
  fake.setResponder(session());
  const taskQueue = uniqueName('payloads');
  const workers = await startWorkers(temporal, { taskQueue, env: modelEnv(fake, settings) });
  const workflowId = uniqueName('payload-task');
  try {
    const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [{ description: 'copy the marker', workspace: makeWorkspace({ 'notes.txt': notes }) }],
      taskQueue,
      workflowId,
    });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', summary: `Copied ${marker}.` });
    await recordCodecHistory('task-with-store-and-keys', handle, storeDir);
    // The model saw the file and the command output: what it receives did not change.
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain(marker);
  } finally {
    await workers.stop();
  }
  const raw = await rawHistory(workflowId);
  expect(raw.length).toBeGreaterThan(1000);
  expect(raw.includes(marker)).toBe(false);
  expect(raw.includes('notes.txt')).toBe(false);
  expect(storeHolds(marker)).toBe(false);

  const cliEnv = { ...settings, CODELOOP_TASK_QUEUE: taskQueue };
  const status = await runCli(['task', 'status', workflowId], cliEnv);
  expect(status.stdout).toContain(`summary: Copied ${marker}.`);
  const followed = await runCli(['task', 'follow', workflowId], cliEnv);
  expect(followed.stdout).toContain(`summary: Copied ${marker}.`);
  const report = JSON.parse((await runCli(['report', '--since', '1h', '--json'], cliEnv)).stdout) as Report;
  expect(report.rows.find((row) => row.workflowId === workflowId)).toMatchObject({ status: 'completed', summary: `Copied ${marker}.` });
  const withoutKeys = await runCli(['task', 'result', workflowId], { CODELOOP_PAYLOAD_STORE: settings.CODELOOP_PAYLOAD_STORE });
  expect(withoutKeys.code).toBe(1);
  expect(withoutKeys.stdout).toContain('this payload is encrypted (key fixture): set CODELOOP_PAYLOAD_KEYS to the keys the workers use');
  // A report on a machine without the keys still reports, naming what it cannot read.
  const plainReport = JSON.parse(
    (await runCli(['report', '--since', '1h', '--json'], { CODELOOP_TASK_QUEUE: taskQueue })).stdout,
  ) as Report;
  expect(plainReport.rows.find((row) => row.workflowId === workflowId)?.reason).toMatch(/^cannot be read here: .*CODELOOP_PAYLOAD_KEYS/);

  const server = await startCodecServer({ codecs: payloads.codecs, port: 0, origins: ['http://localhost:8233'] });
  try {
    // The README's line, as written but for the workflow id and the port.
    const line = fillIn(readmeCommand('temporal workflow show --workflow-id <workflow-id> --codec-endpoint'), [
      ['<workflow-id>', workflowId],
      ['http://127.0.0.1:8888', server.url],
    ]);
    expect(payloadText((await runShell(line)).stdout)).toContain(marker);
    expect(payloadText((await runShell(line.replace(/ --codec-endpoint \S+/, ''))).stdout)).not.toContain(marker);
    const preflight = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:8233' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
  } finally {
    await server.close();
  }
  const guarded = await startCodecServer({ codecs: payloads.codecs, port: 0, origins: [], token: 'sesame' });
  try {
    expect((await fetch(`${guarded.url}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(401);
    const authorized = await fetch(`${guarded.url}/decode`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sesame' },
      body: '{"payloads":[]}',
    });
    expect(await authorized.json()).toEqual({ payloads: [] });
  } finally {
    await guarded.close();
  }
}, 120_000);

test('a worker killed mid-task with the store on is replaced, and the task completes', async () => {
  fake.setResponder(session());
  const taskQueue = uniqueName('payloads-crash');
  const env = { ...modelEnv(fake, settings), CODELOOP_TASK_QUEUE: taskQueue, CODELOOP_HOST_ID: 'payload-crash-host' };
  const workspace = makeWorkspace({ 'notes.txt': notes });
  const first = await spawnWorker(env);
  const handle: WorkflowHandle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
    args: [{ description: 'copy the marker', workspace }],
    taskQueue,
    workflowId: uniqueName('payload-crash'),
  });
  const before = fake.requests.length;
  const deadline = Date.now() + 30_000;
  // Killed once the copy exists: after the second model call, whose input went through the store.
  while (!readdirSync(workspace).includes('copy.txt')) {
    if (Date.now() > deadline) throw new Error(`the task never wrote its copy:\n${first.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await first.kill();
  // The replacement runs in this process: a worker like the killed one, without a second process to start.
  const second = await startWorkers(temporal, { taskQueue, env, hostId: env.CODELOOP_HOST_ID });
  try {
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: `Copied ${marker}.` });
    expect(fake.requests.length - before).toBeGreaterThanOrEqual(3);
  } finally {
    await second.stop();
  }
}, 120_000);
