import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { METRICS } from '../../src/shared/metrics.js';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTurn, reportedUsage, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/polling.js';
import { scrapeMetrics, total, totalsBy, type Sample } from '../support/prometheus.js';
import { connectTemporal, modelEnv, uniqueName, type TestTemporal } from '../support/temporal.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * A worker started as `npm run worker` is, with `CODELOOP_METRICS_ADDRESS`, runs one scripted task; its `/metrics`
 * is scraped while the task waits on a human and after it ends, and codeloop's figures there must equal the task's
 * own account of itself (its result and `getState`), next to the SDK's own metrics on the same endpoint.
 */

let temporal: TestTemporal;
let fake: FakeMessagesApi;
let worker: WorkerProcess;
let address: string;
const taskQueue = uniqueName('metrics');

beforeAll(async () => {
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
  address = `127.0.0.1:${await freePort()}`;
  worker = await spawnWorker({
    ...modelEnv(fake),
    CODELOOP_TASK_QUEUE: taskQueue,
    CODELOOP_HOST_ID: taskQueue,
    CODELOOP_METRICS_ADDRESS: address,
  });
});

afterAll(async () => {
  await worker?.stop();
  await fake?.close();
  await temporal?.close();
});

const call = (name: string, input: unknown) => ({ toolCalls: [{ name, input }] });

test("the worker's /metrics counts a task's iterations, spend, tools, refusals, blockers and gates as its result does", async () => {
  await eventually(
    async () => worker.output(),
    (output) => output.includes(`Prometheus metrics on http://${address}/metrics`),
    'no metrics line',
    { timeoutMs: 30_000 },
  );
  const workspace = makeWorkspace({
    'app.py': 'x = 1\n',
    'codeloop.json': JSON.stringify({ gates: [{ name: 'check', command: 'test -f app.py' }], lint: false }),
  });
  fake.setResponder(
    byTurn([
      call('read_file', { path: 'app.py' }),
      call('edit_file', { path: 'app.py', edits: [{ search: 'x = 1', replace: 'x = 2' }] }),
      call('run_command', { command: 'echo ok' }),
      call('run_command', { command: 'sudo ls' }),
      call('read_file', { path: '../outside.txt' }),
      call('raise_blocker', { question: 'Which database?' }),
      { text: 'done' },
    ]),
  );
  const handle = await temporal.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
    args: [{ description: 'change x', workspace }],
    taskQueue,
    workflowId: uniqueName('metrics'),
  });

  // While it runs: the task waits on its blocker, and the figures so far are there.
  await waitForBlockers(handle);
  const during = await scrapeUntil((samples) => total(samples, METRICS.blockersRaised.name) === 1);
  expect(total(during, METRICS.iterations.name, { workflowType: 'agentTaskWorkflow' })).toBe(6);
  expect(total(during, METRICS.blockersAnswered.name)).toBe(0);
  expect(total(during, METRICS.gateResults.name, { gate: 'check', result: 'passed', stage: 'baseline' })).toBe(1);

  await handle.signal(answerBlockerSignal, { answer: 'PostgreSQL' });
  const result = await handle.result();
  expect(result.status).toBe('completed');
  // The SDK counts a workflow completed once the server acknowledged it, which may come after the client's result.
  const completed = (samples: Sample[]) => total(samples, 'temporal_workflow_completed', { workflow_type: 'agentTaskWorkflow' }) > 0;
  const after = await scrapeUntil((samples) => total(samples, METRICS.iterations.name) === result.iterations && completed(samples));

  expect(result.iterations).toBe(7);
  // Tokens three ways: as the API reported them, as the task's result adds them up, and on /metrics.
  const reported = fake.requests.map(reportedUsage);
  const sum = (kind: keyof (typeof reported)[number]) => reported.reduce((all, usage) => all + usage[kind], 0);
  const byKind = {
    input: sum('inputTokens'),
    output: sum('outputTokens'),
    cache_read: sum('cacheReadTokens'),
    cache_write: sum('cacheWriteTokens'),
  };
  expect(byKind.output).toBeGreaterThan(0);
  expect(byKind.cache_read).toBeGreaterThan(0);
  expect(result.usage).toEqual({
    inputTokens: byKind.input,
    outputTokens: byKind.output,
    cacheReadTokens: byKind.cache_read,
    cacheWriteTokens: byKind.cache_write,
  });
  expect(totalsBy(after, METRICS.modelTokens.name, 'kind')).toEqual(byKind);
  expect(total(after, METRICS.modelTokens.name, { model: 'claude-test', purpose: 'default', kind: 'output' })).toBe(
    result.usage.outputTokens,
  );
  expect(total(after, `${METRICS.modelCost.name}_sum`, { purpose: 'default' })).toBeCloseTo(result.costUsd, 9);
  expect(total(after, `${METRICS.modelCost.name}_count`)).toBe(result.spendByPurpose?.default?.calls);
  expect(total(after, `${METRICS.modelCallDuration.name}_count`, { model: 'claude-test', outcome: 'ok' })).toBe(fake.requests.length);

  expect(totalsBy(after, METRICS.toolCalls.name, 'tool')).toEqual({ read_file: 2, edit_file: 1, run_command: 2, raise_blocker: 1 });
  expect(totalsBy(after, METRICS.toolErrors.name, 'tool')).toEqual({ read_file: 1, run_command: 1 });
  expect(totalsBy(after, METRICS.sandboxRefusals.name, 'reason')).toEqual({ denied_command: 1, path_outside_workspace: 1 });

  expect(totalsBy(after, METRICS.blockersRaised.name, 'origin')).toEqual({ agent: 1 });
  expect(totalsBy(after, METRICS.blockersAnswered.name, 'origin')).toEqual({ agent: 1 });
  expect(total(after, `${METRICS.blockerWait.name}_count`, { origin: 'agent' })).toBe(1);
  expect(result.gates).toEqual([expect.objectContaining({ name: 'check', passed: true })]);
  expect(totalsBy(after, METRICS.gateResults.name, 'stage')).toEqual({ baseline: 1, final: 1 });
  expect(total(after, METRICS.gateResults.name, { gate: 'check', result: 'passed', stage: 'final' })).toBe(1);

  // The SDK's own figures come from the same endpoint, for Temporal's dashboards.
  expect(total(after, 'temporal_workflow_completed', { workflow_type: 'agentTaskWorkflow' })).toBe(1);
  expect(total(after, 'temporal_activity_execution_latency_count', { activity_type: 'callModel' })).toBe(fake.requests.length);
  expect(fake.problems).toEqual([]);
});

test("a host the task's network list does not name: the command's output names the refusal, and /metrics counts it", async () => {
  const listed = createServer((_request, response) => response.end('listed\n'));
  await new Promise<void>((resolve) => listed.listen(0, '127.0.0.2', resolve));
  const port = (listed.address() as { port: number }).port;
  const fetchFrom = (host: string) =>
    `python3 -c "import urllib.request\ntry: print(urllib.request.urlopen('http://${host}:${port}/', timeout=5).read().decode().strip())\nexcept Exception as e: print('failed:', e)"`;
  fake.setResponder(
    byTurn([
      call('run_command', { command: fetchFrom('127.0.0.2') }),
      call('run_command', { command: fetchFrom('127.0.0.3') }),
      { text: 'done' },
    ]),
  );
  const before = fake.requests.length;
  try {
    const handle = await temporal.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [{ description: 'fetch', workspace: makeWorkspace({ 'a.txt': 'a\n' }), network: [`127.0.0.2:${port}`] }],
      taskQueue,
      workflowId: uniqueName('metrics-network'),
    });
    expect((await handle.result()).status).toBe('completed');
  } finally {
    listed.close();
  }
  const results = fake.requests.slice(before + 1).map((request) => JSON.stringify(request.body.messages.at(-1)));
  expect(results[0]).toContain('listed');
  expect(results[1]).toContain(`the network refused 127.0.0.3:${port}: not on this task's network list`);
  const after = await scrapeUntil((samples) => total(samples, METRICS.sandboxRefusals.name, { reason: 'network_host_not_allowed' }) > 0);
  expect(total(after, METRICS.sandboxRefusals.name, { reason: 'network_host_not_allowed' })).toBe(1);
}, 60_000);

/** Scrapes until `ready` holds: a workflow's figures land when its worker finishes the workflow task. */
function scrapeUntil(ready: (samples: Sample[]) => boolean): Promise<Sample[]> {
  return eventually(() => scrapeMetrics(address), ready, 'the metrics never matched; last scrape', { timeoutMs: 10_000, intervalMs: 100 });
}
