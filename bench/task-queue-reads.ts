import { randomUUID } from 'node:crypto';
import { FAST_TASK_QUEUE_READS } from '../src/server/dev-server.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { cyclingSession } from '../tests/support/sessions.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { percentile, stamp, startBenchEnv, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { scheduleToStart } from './schedule-to-start.js';

const ITERATIONS = 40;
const ROUNDS = 3;

/** Temporal's own default for each setting codeloop's dev server raises: 20 reads a second per shard. */
export const TEMPORAL_DEFAULTS = Object.fromEntries(Object.keys(FAST_TASK_QUEUE_READS).map((key) => [key, 20]));

interface Side {
  name: string;
  env: BenchEnv;
  sessions: number[];
  workflowTaskStart: number[];
  activityStart: number[];
}

/**
 * The dev server's task-queue read limits: the same scripted 40-iteration task on a dev server with Temporal's
 * default limits and on one with codeloop's (`FAST_TASK_QUEUE_READS`), alternating, in one run. Reports the time per
 * iteration and how long workflow tasks and activities waited between scheduled and started.
 */
export async function benchTaskQueueReads(env: BenchEnv): Promise<void> {
  const defaults = await startBenchEnv(TEMPORAL_DEFAULTS);
  const fake = await startFakeMessagesApi();
  const side = (name: string, sideEnv: BenchEnv): Side => ({ name, env: sideEnv, sessions: [], workflowTaskStart: [], activityStart: [] });
  const sides = [side("Temporal's defaults (20 reads/s per shard)", defaults), side("codeloop's dev server (1,000 reads/s)", env)];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const current of round % 2 === 0 ? sides : [...sides].reverse()) await runSession(current, fake);
    }
  } finally {
    await fake.close();
    await defaults.close();
  }
  if (fake.problems.length) throw new Error(`fake model problems: ${fake.problems.join('; ')}`);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const spread = (values: number[]) => `p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms`;
  const rows = sides.map((current) => [
    current.name,
    (median(current.sessions) / ITERATIONS).toFixed(1),
    spread(current.workflowTaskStart),
    spread(current.activityStart),
  ]);
  const markdown = `## Task-queue reads on the dev server

\`npm run bench -- reads\`, ${stamp()}. The same scripted ${ITERATIONS}-iteration task (one tool call per turn) on two
dev servers started for this run: one with Temporal's default history task-queue read limits, one with the limits
\`startDevServer\` sets (\`FAST_TASK_QUEUE_READS\`). ${ROUNDS} sessions each, alternating; medians per iteration, and
the waits between scheduled and started from the runs' histories.

${table(['dev server', 'ms / iteration', 'workflow task scheduled → started', 'activity scheduled → started'], rows)}

Raw session times (ms): ${sides.map((current) => `${current.name}: ${current.sessions.map((ms) => ms.toFixed(0)).join(', ')}`).join('; ')}.
`;
  writeSection('15-task-queue-reads', markdown);
  console.log(markdown);
}

async function runSession(side: Side, fake: Awaited<ReturnType<typeof startFakeMessagesApi>>): Promise<void> {
  fake.setResponder(cyclingSession(ITERATIONS));
  const taskQueue = `bench-reads-${randomUUID().slice(0, 8)}`;
  await withWorkers(side.env, fake, taskQueue, async () => {
    const started = performance.now();
    const result = await side.env.client.workflow.execute<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      taskQueue,
      workflowId: taskQueue,
      args: [{ description: 'bench', workspace: makeWorkspace({ 'app.py': 'value = 1\nprint(value)\n' }), maxIterations: ITERATIONS }],
    });
    side.sessions.push(performance.now() - started);
    if (result.iterations !== ITERATIONS) throw new Error(`${taskQueue} took ${result.iterations} iterations`);
  });
  const waits = await scheduleToStart(side.env.client, [taskQueue]);
  side.workflowTaskStart.push(...waits.workflowTaskStart);
  side.activityStart.push(...waits.activityStart);
}
