import { randomUUID } from 'node:crypto';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { agentRequests, cacheableText, cacheReadShare, identicalPrefixShare } from './request-prefix.js';
import { cyclingSession } from '../tests/support/sessions.js';

const ITERATIONS = 30;
const GOAL = 0.85;

/**
 * Prompt-cache prefix stability: for each request of a 30-iteration session, the share of its input that is a
 * byte-identical prefix of the previous request, plus the cache-read share the loopback server's cache simulation
 * reports for it.
 */
export async function benchPromptCache(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  fake.setResponder(cyclingSession(ITERATIONS));
  const taskQueue = `bench-cache-${randomUUID().slice(0, 8)}`;
  try {
    await withWorkers(env, fake, taskQueue, () =>
      env.client.workflow.execute<typeof agentTaskWorkflow>('agentTaskWorkflow', {
        taskQueue,
        workflowId: `${taskQueue}-task`,
        args: [
          { description: 'cache bench', workspace: makeWorkspace({ 'app.py': 'value = 1\nprint(value)\n' }), maxIterations: ITERATIONS },
        ],
      }),
    );
  } finally {
    await fake.close();
  }
  const requests = agentRequests(fake.requests);
  const texts = requests.map((request) => cacheableText(request.body));
  const rows = requests.map((request, index) => {
    const share = index === 0 ? 0 : identicalPrefixShare(texts[index - 1], texts[index]);
    return { iteration: index + 1, kb: texts[index].length / 1024, share, cacheRead: cacheReadShare(request) };
  });
  const fromThird = rows.filter((row) => row.iteration >= 3);
  const minShare = Math.min(...fromThird.map((row) => row.share));
  const meanShare = fromThird.reduce((sum, row) => sum + row.share, 0) / fromThird.length;
  const minCache = Math.min(...fromThird.map((row) => row.cacheRead));
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  const shown = rows.filter((row) => row.iteration <= 5 || row.iteration % 5 === 0 || row.iteration === rows.length);
  const markdown = `## Prompt-cache prefix stability

\`npm run bench -- cache\`, ${stamp()}. A scripted ${ITERATIONS}-iteration session through the workflow. For each request,
the share of its input (tools, system, messages, as bytes) that is a byte-identical prefix of the previous request,
and the cache-read share that the loopback server's prompt-cache simulation (prefix hashes at cache breakpoints)
reported for it.

${table(
  ['iteration', 'request KB', 'identical prefix', 'cache read (simulated)'],
  shown.map((row) => [row.iteration, row.kb.toFixed(1), pct(row.share), pct(row.cacheRead)]),
)}

From iteration 3 on: identical prefix min ${pct(minShare)}, mean ${pct(meanShare)} (goal: at least ${pct(GOAL)}: ${minShare >= GOAL ? 'met' : 'NOT met'});
simulated cache read min ${pct(minCache)}.
`;
  writeSection('30-prompt-cache', markdown);
  console.log(markdown);
}
