import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { payloadSizes } from '../tests/support/history.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { chunkFiles, largeOutputSession } from '../tests/support/sessions.js';

const ITERATIONS = 100;
const OUTPUT_BYTES = 5_000;
const KB = 1024;

interface RunFigures {
  runId: string;
  events: number;
  bytes: number;
  largestPayload: number;
  modelCalls: number;
}

/**
 * History size of a 100-iteration session whose tool outputs are ~5 KB: bytes per iteration and the largest
 * payload, per run of the continue-as-new chain, on a server with Temporal's default limits.
 */
export async function benchHistorySize(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  fake.setResponder(largeOutputSession(ITERATIONS));
  const taskQueue = `bench-history-${randomUUID().slice(0, 8)}`;
  const workflowId = `${taskQueue}-task`;
  const runs: RunFigures[] = [];
  let iterations = 0;
  try {
    await withWorkers(env, fake, taskQueue, async () => {
      const handle = await env.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
        taskQueue,
        workflowId,
        args: [{ description: 'read everything', workspace: makeWorkspace(chunkFiles(OUTPUT_BYTES)), maxIterations: ITERATIONS }],
      });
      iterations = (await handle.result()).iterations;
    });
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      const history = await env.client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
      const events = history.events ?? [];
      runs.push({
        runId: execution.runId,
        events: events.length,
        bytes: proto.temporal.api.history.v1.History.encode(history).finish().length,
        largestPayload: Math.max(...events.flatMap((event) => payloadSizes(event))),
        modelCalls: events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length,
      });
    }
  } finally {
    await fake.close();
  }
  runs.reverse();
  const total = runs.reduce((sum, run) => sum + run.bytes, 0);
  const largest = Math.max(...runs.map((run) => run.largestPayload));
  const rows = runs.map((run, index) => [
    index + 1,
    run.modelCalls,
    run.events,
    (run.bytes / KB).toFixed(0),
    (run.bytes / KB / Math.max(1, run.modelCalls)).toFixed(1),
    (run.largestPayload / KB).toFixed(0),
  ]);
  const markdown = `## History size

\`npm run bench -- history\`, ${stamp()}. A scripted ${iterations}-iteration session whose tool calls mostly read a
~${OUTPUT_BYTES / 1000} KB file (every fourth is a small edit), on a dev server with Temporal's default continue-as-new
suggestion (4 MB / 4,096 events). codeloop continues as new itself before the next model call would take a run past
3.5 MB, and compacts the conversation at 384 KB.

${table(['run', 'iterations', 'events', 'history KB', 'KB / iteration', 'largest payload KB'], rows)}

Whole chain: ${runs.length} run(s), ${(total / KB / KB).toFixed(2)} MB of history, ${(total / KB / iterations).toFixed(1)} KB per iteration on average.
Largest run: ${(Math.max(...runs.map((run) => run.bytes)) / KB / KB).toFixed(2)} MB (limit to stay under: 4 MB).
Largest payload: ${(largest / KB).toFixed(0)} KB (Temporal warns at 512 KB, fails at 2 MB).
`;
  writeSection('20-history-size', markdown);
  console.log(markdown);
}
