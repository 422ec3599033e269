/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (default: all) in one process against one dev server, so
 * figures that are compared were measured side by side. Each writes its section of bench/RESULTS.md. `--baseline <ref>`
 * makes `batch` also run on the workflows as they were at that commit, in the same run; `--server-defaults` makes it
 * also run on a second dev server with Temporal's default task-queue read limits.
 */
import { installQuietRuntime, startBenchEnv } from './harness.js';
import { benchHistorySize } from './history-size.js';
import { benchIterationOverhead } from './iteration-overhead.js';
import { benchPromptCache } from './prompt-cache.js';
import { benchCompaction } from './compaction.js';
import { benchBatchMakespan } from './batch-makespan.js';
import { benchBatchFloor } from './batch-floor.js';
import { benchTypeCheckLoad } from './type-check-load.js';
import { benchSandboxCost } from './sandbox-cost.js';
import { benchSurveyCost } from './survey-cost.js';
import { benchLintPerEdit } from './lint-per-edit.js';
import { benchScale } from './scale.js';
import { benchFaults } from './faults.js';
import { benchSearch } from './search.js';
import { benchTaskQueueReads } from './task-queue-reads.js';
import { benchTaskEnvironment } from './task-environment.js';
import { benchFirstFeedback } from './first-feedback.js';
import { benchTaskContext } from './task-context.js';

const benches = {
  overhead: benchIterationOverhead,
  reads: benchTaskQueueReads,
  history: benchHistorySize,
  cache: benchPromptCache,
  compaction: benchCompaction,
  batch: benchBatchMakespan,
  'batch-floor': benchBatchFloor,
  sandbox: benchSandboxCost,
  survey: benchSurveyCost,
  lint: benchLintPerEdit,
  'first-feedback': benchFirstFeedback,
  'type-check-load': benchTypeCheckLoad,
  search: benchSearch,
  scale: benchScale,
  environment: benchTaskEnvironment,
  context: benchTaskContext,
  faults: benchFaults,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const baselineAt = args.indexOf('--baseline');
  const baseline = baselineAt >= 0 ? args.splice(baselineAt, 2)[1] : undefined;
  if (baselineAt >= 0 && !baseline) throw new Error('--baseline needs a git ref, e.g. --baseline HEAD~3');
  const defaultsAt = args.indexOf('--server-defaults');
  if (defaultsAt >= 0) args.splice(defaultsAt, 1);
  const requested = args;
  const unknown = requested.filter((name) => !(name in benches));
  if (unknown.length) throw new Error(`unknown bench ${unknown.join(', ')}; choose from ${Object.keys(benches).join(', ')}`);
  // `scale` and `faults` start a cluster and run for many minutes, `search` copies four Python standard libraries:
  // only when named.
  const names = (
    requested.length ? requested : Object.keys(benches).filter((name) => !['scale', 'faults', 'search'].includes(name))
  ) as (keyof typeof benches)[];
  installQuietRuntime();
  const env = await startBenchEnv();
  try {
    for (const name of names) {
      console.error(`bench: ${name}…`);
      await benches[name](env, { baseline, serverDefaults: defaultsAt >= 0 });
    }
  } finally {
    await env.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
