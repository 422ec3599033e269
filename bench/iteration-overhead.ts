import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { loadConfig } from '../src/config.js';
import { payloadCodecsFor } from '../src/payloads/codecs.js';
import { createSandbox } from '../src/activities/process/sandbox.js';
import { createWorkerActivities } from '../src/create-workers.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { runPlainLoop } from './plain-loop.js';
import { cyclingSession } from '../tests/support/sessions.js';

const ITERATIONS = 40;
const ROUNDS = 4;

/**
 * Overhead per iteration: the same scripted 40-iteration session through Temporal (workflow, activities, history)
 * and as a plain in-process loop over the same activity functions, alternating, in one run.
 */
export async function benchIterationOverhead(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  const seed = { 'app.py': 'value = 1\nprint(value)\n' };
  const input = (workspace: string) => ({ description: 'bench', workspace, maxIterations: ITERATIONS });
  const temporalMs: number[] = [];
  const storedMs: number[] = [];
  const plainMs: number[] = [];
  // The same session with the payload store and encryption on: the codecs' cost per iteration, side by side.
  const storeEnv = {
    CODELOOP_PAYLOAD_STORE: `file://${mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-store-'))}`,
    CODELOOP_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
  const payloads = payloadCodecsFor(loadConfig(storeEnv).payloads, storeEnv);
  const storeClient = new Client({ connection: env.client.connection, dataConverter: payloads.dataConverter });
  const activities = createWorkerActivities({
    env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, CODELOOP_MODEL: 'bench-model' },
    hostId: 'bench',
    hostQueue: 'unused',
    sandbox: createSandbox(),
  });
  const taskQueue = `bench-overhead-${randomUUID().slice(0, 8)}`;
  /** One session through workers of their own, started for it: both Temporal rows pay the same worker set-up. */
  const session = async (client: Client, queue: string, workerEnv: NodeJS.ProcessEnv, into: number[]) => {
    fake.setResponder(cyclingSession(ITERATIONS));
    await withWorkers(
      env,
      fake,
      queue,
      async () => {
        const started = performance.now();
        const result = await client.workflow.execute<typeof agentTaskWorkflow>('agentTaskWorkflow', {
          taskQueue: queue,
          workflowId: `${queue}-${into.length}`,
          args: [input(makeWorkspace(seed))],
        });
        into.push(performance.now() - started);
        if (result.iterations !== ITERATIONS) throw new Error(`${queue} run took ${result.iterations} iterations`);
      },
      undefined,
      workerEnv,
    );
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // The second session of a pair runs ~0.5 s slower whatever it is (measured with both inline): alternate the order.
      const inline = () => session(env.client, taskQueue, {}, temporalMs);
      const stored = () => session(storeClient, `${taskQueue}-store`, storeEnv, storedMs);
      for (const run of round % 2 === 0 ? [inline, stored] : [stored, inline]) await run();
      fake.setResponder(cyclingSession(ITERATIONS));
      const started = performance.now();
      const plain = await runPlainLoop(activities, input(makeWorkspace(seed)));
      plainMs.push(performance.now() - started);
      if (plain.iterations !== ITERATIONS) throw new Error(`plain run took ${plain.iterations} iterations`);
    }
  } finally {
    await fake.close();
    await payloads.close();
  }
  if (fake.problems.length) throw new Error(`fake model problems: ${fake.problems.join('; ')}`);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const perIteration = (ms: number) => (ms / ITERATIONS).toFixed(1);
  const temporal = median(temporalMs);
  const plain = median(plainMs);
  const storedMedian = median(storedMs);
  const rows = [
    ['Temporal workflow (worker, activities, history)', perIteration(temporal), (temporal / 1000).toFixed(2)],
    ['the same with the payload store and encryption', perIteration(storedMedian), (storedMedian / 1000).toFixed(2)],
    ['plain in-process loop, same activity functions', perIteration(plain), (plain / 1000).toFixed(2)],
    ['difference: the cost of durability', perIteration(temporal - plain), ((temporal - plain) / 1000).toFixed(2)],
  ];
  const markdown = `## Overhead per iteration

\`npm run bench -- overhead\`, ${stamp()}. A scripted ${ITERATIONS}-iteration session (one tool call per turn: read,
edit, search, command) against the loopback Messages API, run ${ROUNDS} times each way, alternating (the two Temporal rows swap order each round); medians shown.
The store-and-keys row runs the same session with \`CODELOOP_PAYLOAD_STORE\` (a directory) and \`CODELOOP_PAYLOAD_KEYS\`.
Both sides call the same activity functions and the same fake model; one local dev server (SQLite in memory).

${table(['path', 'ms / iteration', 'session (s)'], rows)}

Each Temporal iteration is at least two activities (model + tool) and two workflow tasks, each a round trip to the
server; the plain loop has none of that and survives nothing.
Raw session times (ms): Temporal ${temporalMs.map((ms) => ms.toFixed(0)).join(', ')}; with the store and keys ${storedMs.map((ms) => ms.toFixed(0)).join(', ')}; plain ${plainMs.map((ms) => ms.toFixed(0)).join(', ')}.
`;
  writeSection('10-iteration-overhead', markdown);
  console.log(markdown);
}
