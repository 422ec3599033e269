import { randomUUID } from 'node:crypto';
import type { CompactionRecord } from '../src/shared/task-state.js';
import type { agentTaskWorkflow } from '../src/workflows/index.js';
import { getStateQuery } from '../src/shared/messages.js';
import { startFakeMessagesApi, withSummaries, type RecordedRequest } from '../tests/support/fake-messages-api.js';
import { chunkFiles, largeOutputSession } from '../tests/support/sessions.js';
import { makeWorkspace } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { agentRequests, cacheableText, identicalPrefixShare, requestCost } from './request-prefix.js';
import { priceOf } from '../src/workflows/common/pricing.js';
import { DEFAULT_MODEL } from '../src/shared/constants.js';

interface Scenario {
  label: string;
  iterations: number;
  contextWindow?: number;
}

const SCENARIOS: Scenario[] = [
  { label: '200 iterations, 5 KB outputs, 200K window', iterations: 200 },
  { label: '60 iterations, 5 KB outputs, 20K window', iterations: 60, contextWindow: 20_000 },
];

/**
 * What a compaction costs and saves: tokens before and after, the tier-3 summary call, and the prompt-cache miss
 * it causes on the next request (its cache writes priced as writes rather than reads).
 */
export async function benchCompaction(env: BenchEnv): Promise<void> {
  const sections: string[] = [];
  for (const scenario of SCENARIOS) {
    const fake = await startFakeMessagesApi();
    fake.setResponder(withSummaries(largeOutputSession(scenario.iterations)));
    const taskQueue = `bench-compact-${randomUUID().slice(0, 8)}`;
    let log: CompactionRecord[] = [];
    try {
      await withWorkers(env, fake, taskQueue, async () => {
        const handle = await env.client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
          taskQueue,
          workflowId: `${taskQueue}-task`,
          args: [
            {
              description: 'compaction bench',
              workspace: makeWorkspace(chunkFiles(5_000)),
              maxIterations: scenario.iterations,
              contextWindow: scenario.contextWindow,
            },
          ],
        });
        await handle.result();
        log = (await handle.query(getStateQuery)).compactionLog;
      });
    } finally {
      await fake.close();
    }
    const misses = cacheMisses(agentRequests(fake.requests));
    const price = priceOf(DEFAULT_MODEL);
    const rows = log.map((record, index) => {
      const miss = misses[index];
      const missCost = miss ? (miss.usage!.cache_creation_input_tokens * (price.cacheWrite - price.cacheRead)) / 1_000_000 : 0;
      return [
        record.iteration,
        record.tier,
        `${record.tokensBefore.toLocaleString('en-US')} → ${record.tokensAfter.toLocaleString('en-US')}`,
        `${(record.bytesBefore / 1024).toFixed(0)} → ${(record.bytesAfter / 1024).toFixed(0)}`,
        `$${record.summaryCostUsd.toFixed(4)}`,
        miss ? `$${missCost.toFixed(4)} (${miss.usage!.cache_creation_input_tokens.toLocaleString('en-US')} tokens rewritten)` : 'n/a',
      ];
    });
    const total = agentRequests(fake.requests).reduce((sum, request) => sum + requestCost(request), 0);
    sections.push(
      `### ${scenario.label}\n\n${table(['at iteration', 'tier', 'est. tokens before → after', 'KB before → after', 'summary call', 'cache miss on the next request'], rows)}\n\nWhole session: ${log.length} compactions, model cost $${total.toFixed(2)} at Sonnet 5.5 prices.`,
    );
  }
  const markdown = `## Compaction

\`npm run bench -- compaction\`, ${stamp()}. Scripted sessions whose tool calls mostly read ~5 KB files (every fourth
is a small edit). Compaction triggers at 85% of the context window or at 384 KB of conversation (to keep payloads
under Temporal's 512 KB warning), whichever comes first. Tier 1 masks old tool outputs, tier 2 drops superseded reads
and passing test output, tier 3 summarises older turns with a model call. A compaction's other cost is the prompt
cache: the next request rewrites its prefix (cache write price) instead of reading it.

${sections.join('\n\n')}
`;
  writeSection('40-compaction', markdown);
  console.log(markdown);
}

/** The first agent request after each compaction: the one whose prefix no longer matches the request before it. */
function cacheMisses(requests: RecordedRequest[]): RecordedRequest[] {
  const texts = requests.map((request) => cacheableText(request.body));
  return requests.filter((_, index) => index > 0 && identicalPrefixShare(texts[index - 1], texts[index]) < 0.5);
}
