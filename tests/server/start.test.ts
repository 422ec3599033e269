import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { chunkFiles, largeOutputSession } from '../support/sessions.js';
import { freePort } from '../support/free-port.js';
import { killNow, reapOnExit } from '../support/reap-on-exit.js';
import { modelEnv, uniqueName } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';

/** `npm start` as a user runs it: its own process group, so Ctrl-C reaches the worker and the server alike. */
interface Started {
  child: ChildProcess;
  output(): string;
  /** Ctrl-C: SIGINT to the whole process group; resolves with the exit code. */
  interrupt(): Promise<number | null>;
}

let fake: FakeMessagesApi;
beforeAll(async () => (fake = await startFakeMessagesApi()));
afterAll(async () => fake?.close());

async function npmStart(env: NodeJS.ProcessEnv, ready: string): Promise<Started> {
  // npm start runs its own server unless TEMPORAL_ADDRESS names another: it is set only where a test sets it.
  const { TEMPORAL_ADDRESS: _inherited, ...inherited } = process.env;
  const { TEMPORAL_ADDRESS: _shared, ...model } = modelEnv(fake);
  const child = reapOnExit(
    spawn(process.execPath, ['--import', 'tsx', path.resolve('src/server/start.ts')], {
      env: { ...inherited, CODELOOP_WORKFLOW_BUNDLE: inject('workflowBundlePath'), ...model, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
    { group: true },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      killNow(child);
      throw new Error(`npm start did not get ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    output: () => output,
    interrupt() {
      process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  };
}

/** Runs one scripted task to the end on `address` and returns its workflow id. */
async function runTask(address: string, taskQueue: string): Promise<string> {
  fake.enqueue({ text: 'nothing to change' });
  const connection = await Connection.connect({ address });
  try {
    const handle = await new Client({ connection }).workflow.start('agentTaskWorkflow', {
      taskQueue,
      workflowId: uniqueName('npm-start'),
      args: [{ title: 'Look around', description: 'Say what is here', workspace: makeWorkspace({ 'a.txt': 'a\n' }) }],
    });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'nothing to change' });
    return handle.workflowId;
  } finally {
    await connection.close();
  }
}

/**
 * Runs a 100-iteration scripted session (tool calls that mostly read a ~5 KB file) on `address`: its history bytes
 * per iteration over every run of its continue-as-new chain, as the server holds them, and one payload the store took.
 */
async function runLongTask(address: string): Promise<{ kbPerIteration: number; stored: proto.temporal.api.common.v1.IPayload }> {
  const iterations = 100;
  fake.setResponder(largeOutputSession(iterations));
  const connection = await Connection.connect({ address, channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 } });
  try {
    const client = new Client({ connection });
    const handle = await client.workflow.start('agentTaskWorkflow', {
      taskQueue: 'codeloop',
      workflowId: uniqueName('npm-start-long'),
      args: [{ description: 'read everything', workspace: makeWorkspace(chunkFiles(5_000)), maxIterations: iterations }],
    });
    await handle.result();
    let bytes = 0;
    let stored: proto.temporal.api.common.v1.IPayload | undefined;
    for (let runId: string | undefined = handle.firstExecutionRunId; runId;) {
      const history: proto.temporal.api.history.v1.IHistory = await client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
      const events: proto.temporal.api.history.v1.IHistoryEvent[] = history.events ?? [];
      stored ??= events.flatMap((event) => event.activityTaskCompletedEventAttributes?.result?.payloads ?? []).find(isStoredReference);
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return { kbPerIteration: bytes / 1024 / iterations, stored: stored! };
  } finally {
    fake.setResponder(undefined);
    await connection.close();
  }
}

const isStoredReference = (payload: proto.temporal.api.common.v1.IPayload) =>
  !Buffer.from(payload.metadata?.encoding ?? [])
    .toString()
    .startsWith('json/');

/** What the Web UI gets when it asks its codec server, from its own origin, to decode `payload`. */
async function decodeAsTheUi(codecUrl: string, uiPort: number, payload: proto.temporal.api.common.v1.IPayload) {
  const base64 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, base64(value)]));
  const response = await fetch(`${codecUrl}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${uiPort}`, 'x-namespace': 'default' },
    body: JSON.stringify({ payloads: [{ metadata, data: base64(payload.data) }] }),
  });
  const { payloads } = (await response.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
  return {
    allowedOrigin: response.headers.get('access-control-allow-origin'),
    encoding: Buffer.from(payloads[0].metadata.encoding, 'base64').toString(),
    text: Buffer.from(payloads[0].data, 'base64').toString(),
  };
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

test('npm start: server, Web UI and worker in one command; Ctrl-C stops both; a restart keeps earlier runs', async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  const env = {
    CODELOOP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'codeloop-data-')),
    CODELOOP_TEMPORAL_PORT: String(port),
    CODELOOP_UI_PORT: String(uiPort),
  };
  const address = `127.0.0.1:${port}`;

  const first = await npmStart(env, 'codeloop worker on');
  expect(first.output()).toContain(`large payloads are kept in file://${path.join(env.CODELOOP_DATA_DIR, 'payloads')}`);
  const workflowId = await runTask(address, 'codeloop');
  expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);

  // The default keeps history small: a 100-iteration session under 12 KB of history per iteration (inline, ~216 KB).
  const { kbPerIteration, stored } = await runLongTask(address);
  expect(kbPerIteration).toBeLessThan(12);
  // The Web UI is pointed at npm start's codec server, which decodes what the store took, for the UI's own origin.
  const codecUrl = /payloads decoded by (\S+)\)/.exec(first.output())?.[1];
  const uiSettings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
  expect(uiSettings.Codec.Endpoint).toBe(codecUrl);
  const decoded = await decodeAsTheUi(codecUrl!, uiPort, stored);
  expect(decoded).toMatchObject({ allowedOrigin: `http://127.0.0.1:${uiPort}`, encoding: 'json/plain' });
  expect(decoded.text).toContain('the quick brown fox');
  const connection = await Connection.connect({ address });
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
  expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.values(SEARCH_ATTRIBUTES)));
  const { config } = await connection.workflowService.describeNamespace({ namespace: 'default' });
  expect(Number(config!.workflowExecutionRetentionTtl!.seconds)).toBeGreaterThanOrEqual(30 * 24 * 3600);
  await connection.close();

  expect(await first.interrupt()).toBe(0);
  expect(first.output()).toContain('codeloop: stopped');
  expect(await listening(port)).toBe(false);
  expect(await listening(uiPort)).toBe(false);

  const second = await npmStart(env, 'codeloop worker on');
  const client = new Client({ connection: await Connection.connect({ address }) });
  expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
  await client.connection.close();
  expect(await second.interrupt()).toBe(0);
}, 180_000);

test('npm start with TEMPORAL_ADDRESS starts only a worker against that server', async () => {
  const taskQueue = uniqueName('npm-start-worker');
  const started = await npmStart({ TEMPORAL_ADDRESS: inject('temporalAddress'), CODELOOP_TASK_QUEUE: taskQueue }, 'codeloop worker on');
  expect(started.output()).toContain(`starting only a worker against ${inject('temporalAddress')}`);
  expect(started.output()).not.toContain('starting the Temporal dev server');
  await runTask(inject('temporalAddress'), taskQueue);
  expect(await started.interrupt()).toBe(0);
}, 120_000);
