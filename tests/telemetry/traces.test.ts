import '../support/quiet-runtime.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTracing } from '../../src/telemetry/tracing.js';
import { workflowBundlerOptions } from '../../src/workflow-bundle.js';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { byTurn, reportedUsage, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { eventually } from '../support/polling.js';
import { HISTORIES_DIR, recordedWorkflowIds } from '../support/record-history.js';
import { connectTemporal, modelEnv, uniqueName, type TestTemporal } from '../support/temporal.js';
import { spawnWorker } from '../support/worker-process.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * A worker started as `npm run worker` is, with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a loopback OTLP/HTTP
 * receiver, runs one scripted task. The spans it exports must form one trace: the workflow run, under it each
 * activity as the workflow scheduled it and as a worker ran it, and under the model activity the model call itself.
 */

let temporal: TestTemporal;
let fake: FakeMessagesApi;
let receiver: OtlpReceiver;

beforeAll(async () => {
  temporal = await connectTemporal();
  fake = await startFakeMessagesApi();
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await fake?.close();
  await temporal?.close();
});

test('a task exports one trace: workflow → activities → the model call under its activity', async () => {
  const taskQueue = uniqueName('traces');
  const worker = await spawnWorker(
    {
      ...modelEnv(fake),
      CODELOOP_TASK_QUEUE: taskQueue,
      CODELOOP_HOST_ID: taskQueue,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // The workflow spans come from interceptors inside the workflow bundle: the worker bundles them in at start.
      CODELOOP_WORKFLOW_BUNDLE: '',
    },
    { startTimeoutMs: 90_000 },
  );
  let workflowId: string;
  try {
    const said = `traces to ${receiver.url}/v1/traces (http/protobuf)`;
    await eventually(
      async () => worker.output(),
      (output) => output.includes(said),
      'no traces line',
      { timeoutMs: 5_000 },
    );
    fake.setResponder(byTurn([{ toolCalls: [{ name: 'read_file', input: { path: 'app.py' } }] }, { text: 'done' }]));
    const handle = await temporal.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      args: [{ description: 'read the app', workspace: makeWorkspace({ 'app.py': 'x = 1\n', 'codeloop.json': '{"gates": []}' }) }],
      taskQueue,
      workflowId: uniqueName('traces'),
    });
    workflowId = handle.workflowId;
    expect(await handle.result()).toMatchObject({ status: 'completed', iterations: 2 });
  } finally {
    // Stopping the worker flushes the spans it still holds.
    await worker.stop();
  }
  expect(receiver.contentTypes).toEqual(new Set(['application/x-protobuf']));

  const workflowSpans = await eventually(
    async () => receiver.spans.filter((span) => span.name === 'RunWorkflow:agentTaskWorkflow'),
    (spans) => spans.length > 0,
    'no workflow span arrived',
    { timeoutMs: 5_000, intervalMs: 100 },
  );
  expect(workflowSpans).toHaveLength(1);
  const [root] = workflowSpans;
  expect(root.attributes.workflowId).toBe(workflowId!);
  expect(root.resource).toMatchObject({ 'service.name': 'codeloop-worker', 'service.instance.id': taskQueue });
  const trace = receiver.spans.filter((span) => span.traceId === root.traceId);
  const children = (parent: ReceivedSpan, name?: string) =>
    trace.filter((span) => span.parentSpanId === parent.spanId && (name === undefined || span.name === name));

  // The workflow scheduled each activity; a worker ran it, as a child of the scheduling span.
  const scheduled = children(root).map((span) => span.name);
  expect(scheduled).toEqual(expect.arrayContaining(['StartActivity:openWorkspace', 'StartActivity:readFile', 'StartActivity:callModel']));
  for (const start of children(root)) expect(children(start).map((span) => span.name)).toEqual([start.name.replace('Start', 'Run')]);

  // Each model activity names its purpose and holds its Messages API call: the Anthropic SDK's span, with the model,
  // the tokens the API reported and the task's workflow id as its conversation.
  const modelRuns = children(root, 'StartActivity:callModel').flatMap((start) => children(start, 'RunActivity:callModel'));
  expect(modelRuns.map((run) => run.attributes['codeloop.purpose'])).toEqual(['default', 'default']);
  const calls = modelRuns.flatMap((run) => children(run, 'anthropic.messages.create'));
  expect(calls).toHaveLength(2);
  const reported = fake.requests.slice(-2).map(reportedUsage);
  expect(calls.map((call) => call.attributes)).toEqual(
    reported.map((usage) =>
      expect.objectContaining({
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.conversation.id': workflowId,
        'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
        'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      }),
    ),
  );
}, 150_000);

test('with OTEL_EXPORTER_OTLP_PROTOCOL=http/json the same spans go as OTLP/JSON, under OTEL_SERVICE_NAME', async () => {
  const json = await startOtlpReceiver();
  try {
    const settings = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${json.url}/`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'codeloop-eu',
    };
    const tracing = startTracing(loadConfig(settings).telemetry.traces, 'host-7')!;
    expect(tracing.url).toBe(`${json.url}/v1/traces`);
    const outer = trace.getTracer('test').startActiveSpan('outer', (span) => {
      trace.getTracer('test').startSpan('inner').end();
      span.end();
      return span.spanContext();
    });
    await tracing.shutdown();
    expect(json.contentTypes).toEqual(new Set(['application/json']));
    expect(json.spans.map(({ name, parentSpanId, traceId }) => ({ name, parentSpanId, traceId }))).toEqual([
      { name: 'inner', parentSpanId: outer.spanId, traceId: outer.traceId },
      { name: 'outer', parentSpanId: undefined, traceId: outer.traceId },
    ]);
    expect(json.spans[0].resource).toMatchObject({ 'service.name': 'codeloop-eu', 'service.instance.id': 'host-7' });
  } finally {
    await json.close();
  }
});

test('runs recorded without tracing replay on a worker with tracing on: turning it on breaks no running task', async () => {
  const receiverless = startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }).telemetry.traces, 'replay')!;
  const ids = recordedWorkflowIds();
  const histories = readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json') && file !== 'workflow-ids.json')
    .map((file) => {
      const name = path.basename(file, '.json');
      return { workflowId: ids[name] ?? name, history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))) };
    });
  const failures: string[] = [];
  const { workflowsPath, preloadModules } = workflowBundlerOptions;
  const options = { workflowsPath, bundlerOptions: { preloadModules }, plugins: [receiverless.plugin] };
  try {
    for await (const { workflowId, error } of Worker.runReplayHistories(options, histories)) {
      if (error) failures.push(`${workflowId}: ${error}`);
    }
  } finally {
    await receiverless.shutdown();
  }
  expect(histories.length).toBeGreaterThanOrEqual(5);
  expect(failures).toEqual([]);
}, 120_000);
