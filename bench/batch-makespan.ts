import { randomUUID } from 'node:crypto';
import type { BatchResult } from '../src/shared/batch-state.js';
import { criticalPath } from '../src/shared/dag.js';
import type { batchConductorWorkflow } from '../src/workflows/index.js';
import { getBatchStateQuery } from '../src/shared/messages.js';
import { startFakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { makeGitRepo } from '../tests/support/workspace.js';
import { mergeTimings, type MergeTimings } from './batch-merge-timings.js';
import { bundleAt, percentile, stamp, startBenchEnv, table, withWorkers, writeSection, type BenchEnv } from './harness.js';
import { TEMPORAL_DEFAULTS } from './task-queue-reads.js';

const TASKS = 200;
const PARALLEL = 16;

/** A reproducible random DAG: each task depends on up to 3 of the 20 tasks before it. */
export function randomDag(count: number, seed = 42) {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, (_, index) => {
    const dependsOn = new Set<string>();
    const wanted = index === 0 ? 0 : Math.floor(random() * 4);
    for (let n = 0; n < wanted; n++) dependsOn.add(`t${Math.max(0, index - 1 - Math.floor(random() * Math.min(index, 20)))}`);
    return { id: `t${index}`, title: `Task ${index}`, description: 'nothing to change', dependsOn: [...dependsOn] };
  });
}

/** One batch run's figures, as table rows in a fixed order, and the two the floor comparison uses. */
export type Figures = {
  rows: [string, string][];
  status: string;
  makespanMs: number;
  /** Last dependency finished → dependent started, for dependents that became ready with a slot free (ms). */
  handOffMs: number[];
};

/**
 * Batch scheduling: a 200-task random DAG with an instant scripted model and 16 in parallel. Makespan against the
 * lower bound max(critical path, total work / parallelism), and the hand-off latency to a dependent's child starting,
 * measured twice: from its last dependency's child reporting it finished (so the commit, the merge and the cutting
 * of the dependent's worktree are inside), and from that dependency's `endedAt`, which is recorded only after the
 * merge step returned with the dependent's worktree already cut (so they are not). With `--baseline <ref>` the same
 * batch first runs on the workflows as they were at that commit, against the same server and activities, and both
 * columns are reported.
 */
export async function benchBatchMakespan(env: BenchEnv, options: { baseline?: string; serverDefaults?: boolean } = {}): Promise<void> {
  const baseline = options.baseline ? await bundleAt(options.baseline) : undefined;
  const columns: { name: string; figures: Figures }[] = [];
  if (baseline) columns.push({ name: `workflows at ${baseline.commit}`, figures: await measureBatch(env, baseline.bundlePath) });
  columns.push({ name: baseline || options.serverDefaults ? 'this tree' : 'value', figures: await measureBatch(env, env.bundlePath) });
  if (options.serverDefaults) {
    // The same batch on a dev server with Temporal's default task-queue read limits (see the reads section).
    const defaults = await startBenchEnv(TEMPORAL_DEFAULTS);
    try {
      columns.push({ name: "this tree, Temporal's default reads", figures: await measureBatch(defaults, defaults.bundlePath) });
    } finally {
      await defaults.close();
    }
  }
  const rows = columns[0].figures.rows.map(([figure], index) => [figure, ...columns.map((column) => column.figures.rows[index][1])]);
  const markdown = `## Batch makespan and scheduling latency

\`npm run bench -- batch${baseline ? ` --baseline ${options.baseline}` : ''}${options.serverDefaults ? ' --server-defaults' : ''}\`, ${stamp()}. A ${TASKS}-task random DAG (each task depends on up to 3 of the 20 before it; seed 42),
an instant scripted model, \`maxParallel\` ${PARALLEL}, one git repository: every task gets its own worktree, and is
committed and merged into the integration branch before its dependents start. ${columns.map((column) => `${column.name}: ${column.figures.status}`).join('; ')}.${
    baseline ? ` The columns ran one after the other in this run, on one dev server, with today's activities.` : ''
  }${
    options.serverDefaults
      ? ` The last column ran after the others in this run, on a second dev server with Temporal's default read limits.`
      : ''
  }

${table(['figure', ...columns.map((column) => column.name)], rows)}

A task's duration runs from its child starting to its branch being merged, so the lower bound already counts the
per-task git and Temporal overhead; the ratio measures how well the conductor keeps ${PARALLEL} slots busy.
"Finished" is when the dependency's child reported its end: the hand-off from there includes committing and merging
its work and cutting the dependent's worktree. A dependency's \`endedAt\` is recorded only after that merge step has
returned, with the dependent's worktree already cut, so the last row leaves the git step out. "All" includes tasks that
became ready while every slot was taken. Merge activity times come from the batch's history events.
`;
  writeSection('50-batch-makespan', markdown);
  console.log(markdown);
}

export async function measureBatch(env: BenchEnv, bundlePath: string, parallel = PARALLEL): Promise<Figures> {
  const fake = await startFakeMessagesApi();
  fake.setResponder(() => ({ text: 'done' }));
  const taskQueue = `bench-batch-${randomUUID().slice(0, 8)}`;
  const tasks = randomDag(TASKS);
  let result!: BatchResult;
  let states!: { id: string; startedAt?: number; finishedAt?: number; endedAt?: number; dependsOn: string[] }[];
  let merges!: MergeTimings;
  try {
    await withWorkers(
      env,
      fake,
      taskQueue,
      async () => {
        const handle = await env.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
          taskQueue,
          workflowId: `${taskQueue}-batch`,
          args: [{ workspace: makeGitRepo(), tasks, maxParallel: parallel }],
        });
        result = await handle.result();
        states = (await handle.query(getBatchStateQuery)).tasks;
        merges = await mergeTimings(env.client, handle.workflowId);
      },
      bundlePath,
    );
  } finally {
    await fake.close();
  }
  const byId = new Map(states.map((state) => [state.id, state]));
  const duration = (id: string) => byId.get(id)!.endedAt! - byId.get(id)!.startedAt!;
  const total = states.reduce((sum, state) => sum + duration(state.id), 0);
  const path = criticalPath(states, duration);
  const lowerBound = Math.max(path.durationMs, total / parallel);
  // A task holds one of the batch's slots from when the batch asks for its child (its worktree cut) until it is merged.
  const slotTakenAt = (state: (typeof states)[number]) => merges.moments.get(state.id)?.startAsked ?? state.startedAt!;
  const running = (at: number) => states.filter((state) => slotTakenAt(state) <= at && at < state.endedAt!).length;
  const latencies: { fromFinished: number; fromMerged: number; slotFree: boolean }[] = [];
  const handOff: Record<'toMerge' | 'merge' | 'toStart' | 'takenIn' | 'afterTakenIn' | 'acrossRuns' | 'childStart' | 'noticed', number[]> =
    {
      toMerge: [],
      merge: [],
      toStart: [],
      takenIn: [],
      afterTakenIn: [],
      acrossRuns: [],
      childStart: [],
      noticed: [],
    };
  for (const state of states.filter((candidate) => candidate.dependsOn.length > 0)) {
    // The dependency merged last is the one whose merge made this task ready (and cut its worktree).
    const last = state.dependsOn.map((id) => byId.get(id)!).reduce((a, b) => (b.endedAt! > a.endedAt! ? b : a));
    latencies.push({
      fromFinished: state.startedAt! - last.finishedAt!,
      fromMerged: state.startedAt! - last.endedAt!,
      slotFree: running(last.endedAt!) < parallel,
    });
    const dependency = merges.moments.get(last.id) ?? {};
    const own = merges.moments.get(state.id) ?? {};
    if (running(last.endedAt!) < parallel && dependency.reported && dependency.mergeCompleted && own.startAsked && own.childStarted) {
      handOff.toMerge.push(dependency.mergeScheduled! - dependency.reported);
      handOff.merge.push(dependency.mergeCompleted - dependency.mergeScheduled!);
      handOff.toStart.push(own.startAsked - dependency.mergeCompleted);
      if (dependency.mergedInRun !== own.startedInRun) handOff.acrossRuns.push(state.startedAt! - last.finishedAt!);
      if (dependency.mergeTakenIn !== undefined) {
        handOff.takenIn.push(dependency.mergeTakenIn - dependency.mergeCompleted);
        handOff.afterTakenIn.push(own.startAsked - dependency.mergeTakenIn);
      }
      handOff.childStart.push(own.childStarted - own.startAsked);
      handOff.noticed.push(state.startedAt! - own.childStarted);
    }
  }
  const childRun = states.map((state) => state.finishedAt! - state.startedAt!);
  const mergeWait = states.map((state) => state.endedAt! - state.finishedAt!);
  const free = latencies.filter((latency) => latency.slotFree);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const spread = (values: number[]) => (values.length ? `p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms` : '-');
  return {
    makespanMs: result.makespanMs,
    handOffMs: free.map((latency) => latency.fromFinished),
    status: `${result.status}, ${result.totals.tasks.completed}/${TASKS} completed, ${result.runs} run(s) (continue-as-new)`,
    rows: [
      ['makespan', seconds(result.makespanMs)],
      ['critical path (measured task durations)', `${seconds(path.durationMs)} over ${path.ids.length} tasks`],
      [`total work / ${parallel}`, seconds(total / parallel)],
      ['lower bound = max of the two', seconds(lowerBound)],
      ['makespan / lower bound (goal ≤ 1.15×)', `${(result.makespanMs / lowerBound).toFixed(2)}×`],
      ['mean task duration (child started → merged)', seconds(total / TASKS)],
      ['child run (child started → reported its end)', spread(childRun)],
      ['commit and merge (child reported its end → merged)', spread(mergeWait)],
      [
        'merge activities: count, tasks per activity (mean, max)',
        `${merges.runMs.length}, ${(TASKS / merges.runMs.length).toFixed(1)}, ${Math.max(...merges.tasksPerMerge)}`,
      ],
      ["child's end reached the batch → its merge activity scheduled (merge queue)", spread(merges.mergeWaitMs)],
      ['merge activity: scheduled → started', spread(merges.queuedMs)],
      ['merge activity: started → completed', spread(merges.runMs)],
      ['child start asked → child started (server)', spread(merges.childStartMs)],
      ['batch workflow tasks: scheduled → started', spread(merges.workflowTaskQueuedMs)],
      ['batch workflow tasks: started → completed', spread(merges.workflowTaskRunMs)],
      [
        'last dependency finished → dependent started, slot free (goal p95 ≤ 500 ms)',
        `${spread(free.map((latency) => latency.fromFinished))} (n=${free.length})`,
      ],
      [
        'last dependency finished → dependent started, all',
        `${spread(latencies.map((latency) => latency.fromFinished))} (n=${latencies.length})`,
      ],
      ["last dependency's endedAt → dependent started, slot free", spread(free.map((latency) => latency.fromMerged))],
      [
        'dependents whose worktree was cut when they started, not by the merge that made them ready',
        `${states.filter((state) => state.dependsOn.length > 0 && merges.cutAtStart.includes(state.id)).length}`,
      ],
      ['hand-off, slot free, in parts: 1. dependency reported → its merge scheduled', spread(handOff.toMerge)],
      ['2. merge scheduled → completed (queue, pick-up, git, cutting the worktree)', spread(handOff.merge)],
      ["3. merge completed → dependent's child asked for", spread(handOff.toStart)],
      ["3a. merge completed → the batch's workflow task that took in its result completed", spread(handOff.takenIn)],
      ["3b. that workflow task → dependent's child asked for (0: in that same task)", spread(handOff.afterTakenIn)],
      [
        'hand-offs whose merge and child start fell in different runs of the batch (continue-as-new between them)',
        `${handOff.acrossRuns.length}${handOff.acrossRuns.length ? `: ${spread(handOff.acrossRuns)}` : ''}`,
      ],
      ['4. child asked for → started (server)', spread(handOff.childStart)],
      ['5. child started → the batch records it', spread(handOff.noticed)],
    ],
  };
}
