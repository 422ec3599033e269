import { randomUUID } from 'node:crypto';
import { createSandbox } from '../src/activities/process/sandbox.js';
import { createWorkerActivities } from '../src/create-workers.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { runPlainLoop } from './plain-loop.js';
import { cyclingSession } from '../tests/support/sessions.js';

const ITERATIONS = 40;
const ROUNDS = 3;

/**
 * Overhead per iteration: the same scripted 40-iteration session through Temporal (workflow, activities, history)
 * and as a plain in-process loop over the same activity functions, alternating, in one run.
 */
export async function benchIterationOverhead(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  const seed = { 'app.py': 'value = 1\nprint(value)\n' };
  const input = (workspace: string) => ({ description: 'bench', workspace, maxIterations: ITERATIONS });
  const temporalMs: number[] = [];
  const plainMs: number[] = [];
  const activities = createWorkerActivities({
    env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, CODELOOP_MODEL: 'bench-model' },
    hostId: 'bench',
    hostQueue: 'unused',
    sandbox: createSandbox(),
  });
  const taskQueue = `bench-overhead-${randomUUID().slice(0, 8)}`;
  try {
    await withWorkers(env, fake, taskQueue, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        fake.setResponder(cyclingSession(ITERATIONS));
        let started = performance.now();
        const result = await env.client.workflow.execute<typeof agentTaskWorkflow>('agentTaskWorkflow', {
          taskQueue,
          workflowId: `${taskQueue}-${round}`,
          args: [input(makeWorkspace(seed))],
        });
        temporalMs.push(performance.now() - started);
        if (result.iterations !== ITERATIONS) throw new Error(`temporal run took ${result.iterations} iterations`);

        fake.setResponder(cyclingSession(ITERATIONS));
        started = performance.now();
        const plain = await runPlainLoop(activities, input(makeWorkspace(seed)));
        plainMs.push(performance.now() - started);
        if (plain.iterations !== ITERATIONS) throw new Error(`plain run took ${plain.iterations} iterations`);
      }
    });
  } finally {
    await fake.close();
  }
  if (fake.problems.length) throw new Error(`fake model problems: ${fake.problems.join('; ')}`);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const perIteration = (ms: number) => (ms / ITERATIONS).toFixed(1);
  const temporal = median(temporalMs);
  const plain = median(plainMs);
  const rows = [
    ['Temporal workflow (worker, activities, history)', perIteration(temporal), (temporal / 1000).toFixed(2)],
    ['plain in-process loop, same activity functions', perIteration(plain), (plain / 1000).toFixed(2)],
    ['difference: the cost of durability', perIteration(temporal - plain), ((temporal - plain) / 1000).toFixed(2)],
  ];
  const markdown = `## Overhead per iteration

\`npm run bench -- overhead\`, ${stamp()}. A scripted ${ITERATIONS}-iteration session (one tool call per turn: read,
edit, search, command) against the loopback Messages API, run ${ROUNDS} times each way, alternating; medians shown.
Both sides call the same activity functions and the same fake model; one local dev server (SQLite in memory).

${table(['path', 'ms / iteration', 'session (s)'], rows)}

Each Temporal iteration is at least two activities (model + tool) and two workflow tasks, each a round trip to the
server; the plain loop has none of that and survives nothing.
Raw session times (ms): Temporal ${temporalMs.map((ms) => ms.toFixed(0)).join(', ')}; plain ${plainMs.map((ms) => ms.toFixed(0)).join(', ')}.
`;
  writeSection('10-iteration-overhead', markdown);
  console.log(markdown);
}
