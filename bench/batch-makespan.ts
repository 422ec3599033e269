import { randomUUID } from 'node:crypto';
import type { BatchResult } from '../src/shared/batch-state.js';
import { criticalPath } from '../src/shared/dag.js';
import type { batchConductorWorkflow } from '../src/workflows/index.js';
import { getBatchStateQuery } from '../src/workflows/messages.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { makeGitRepo } from '../tests/support/workspace.js';
import { stamp, table, withWorkers, writeSection, type BenchEnv } from './harness.js';

const TASKS = 200;
const PARALLEL = 16;

/** A reproducible random DAG: each task depends on up to 3 of the 20 tasks before it. */
export function randomDag(count: number, seed = 42) {
  let state = seed;
  const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, (_, index) => {
    const dependsOn = new Set<string>();
    const wanted = index === 0 ? 0 : Math.floor(random() * 4);
    for (let n = 0; n < wanted; n++) dependsOn.add(`t${Math.max(0, index - 1 - Math.floor(random() * Math.min(index, 20)))}`);
    return { id: `t${index}`, title: `Task ${index}`, description: 'nothing to change', dependsOn: [...dependsOn] };
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/**
 * Batch scheduling: a 200-task random DAG with an instant scripted model and 16 in parallel. Makespan against the
 * lower bound max(critical path, total work / parallelism), and the hand-off latency to a dependent's child starting,
 * measured twice: from its last dependency's child reporting it finished (so the commit, the merge and the cutting
 * of the dependent's worktree are inside), and from that dependency's `endedAt`, which is recorded only after the
 * merge step returned with the dependent's worktree already cut (so they are not).
 */
export async function benchBatchMakespan(env: BenchEnv): Promise<void> {
  const fake = await startFakeMessagesApi();
  fake.setResponder(() => ({ text: 'done' }));
  const taskQueue = `bench-batch-${randomUUID().slice(0, 8)}`;
  const tasks = randomDag(TASKS);
  let result!: BatchResult;
  let states!: Awaited<ReturnType<typeof queryStates>>;
  const queryStates = (handle: {
    query: (q: typeof getBatchStateQuery) => Promise<{ tasks: { id: string; startedAt?: number; finishedAt?: number; endedAt?: number; dependsOn: string[] }[] }>;
  }) =>
    handle.query(getBatchStateQuery).then((state) => state.tasks);
  try {
    await withWorkers(env, fake, taskQueue, async () => {
      const handle = await env.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
        taskQueue,
        workflowId: `${taskQueue}-batch`,
        args: [{ workspace: makeGitRepo(), tasks, maxParallel: PARALLEL }],
      });
      result = await handle.result();
      states = await queryStates(handle);
    });
  } finally {
    await fake.close();
  }
  const byId = new Map(states.map((state) => [state.id, state]));
  const duration = (id: string) => byId.get(id)!.endedAt! - byId.get(id)!.startedAt!;
  const total = states.reduce((sum, state) => sum + duration(state.id), 0);
  const path = criticalPath(states, duration);
  const lowerBound = Math.max(path.durationMs, total / PARALLEL);
  const running = (at: number) => states.filter((state) => state.startedAt! <= at && at < state.endedAt!).length;
  const latencies: { fromFinished: number; fromMerged: number; slotFree: boolean }[] = [];
  for (const state of states.filter((candidate) => candidate.dependsOn.length > 0)) {
    // The dependency merged last is the one whose merge made this task ready (and cut its worktree).
    const last = state.dependsOn.map((id) => byId.get(id)!).reduce((a, b) => (b.endedAt! > a.endedAt! ? b : a));
    latencies.push({ fromFinished: state.startedAt! - last.finishedAt!, fromMerged: state.startedAt! - last.endedAt!, slotFree: running(last.endedAt!) < PARALLEL });
  }
  const free = latencies.filter((latency) => latency.slotFree);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const spread = (values: number[]) => (values.length ? `p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms` : '-');
  const markdown = `## Batch makespan and scheduling latency

\`npm run bench -- batch\`, ${stamp()}. A ${TASKS}-task random DAG (each task depends on up to 3 of the 20 before it; seed 42),
an instant scripted model, \`maxParallel\` ${PARALLEL}, one git repository: every task gets its own worktree, and is
committed and merged into the integration branch before its dependents start. Status: ${result.status}, ${result.totals.tasks.completed}/${TASKS} completed, ${result.runs} run(s) (continue-as-new).

${table(
  ['figure', 'value'],
  [
    ['makespan', seconds(result.makespanMs)],
    ['critical path (measured task durations)', `${seconds(path.durationMs)} over ${path.ids.length} tasks`],
    [`total work / ${PARALLEL}`, seconds(total / PARALLEL)],
    ['lower bound = max of the two', seconds(lowerBound)],
    ['makespan / lower bound', `${(result.makespanMs / lowerBound).toFixed(2)}× (goal ≤ 1.3×)`],
    ['mean task duration (child started → merged)', seconds(total / TASKS)],
    [`last dependency finished → dependent started, slot free (n=${free.length})`, spread(free.map((latency) => latency.fromFinished))],
    [`last dependency finished → dependent started, all (n=${latencies.length})`, spread(latencies.map((latency) => latency.fromFinished))],
    [`last dependency's endedAt → dependent started, slot free (n=${free.length})`, spread(free.map((latency) => latency.fromMerged))],
  ],
)}

A task's duration runs from its child starting to its branch being merged, so the lower bound already counts the
per-task git and Temporal overhead; the ratio measures how well the conductor keeps ${PARALLEL} slots busy.
"Finished" is when the dependency's child reported its end: the hand-off from there includes committing and merging
its work and cutting the dependent's worktree. A dependency's \`endedAt\` is recorded only after that merge step has
returned, with the dependent's worktree already cut, so the last row leaves the git step out. "All" includes tasks that
became ready while every slot was taken.
`;
  writeSection('50-batch-makespan', markdown);
  console.log(markdown);
}
