import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { measureBatch, randomDag } from './batch-makespan.js';
import type { floorConductorWorkflow, FloorTaskTimes } from './floor/floor-workflows.js';
import { procCpuSeconds } from '../tests/support/proc-cpu.js';
import { benchDir, percentile, silent, stamp, table, writeSection, type BenchEnv } from './harness.js';

const TASKS = 200;
const SETTINGS = [4, 16];

interface Run {
  makespanMs: number;
  handOffMs: number[];
}

/**
 * CPU time of this process (the workers and the SDK's threads), of the children it has waited for (git, the sandbox)
 * and of the dev server and its children, in seconds: what a run costs the machine, whatever the wall clock says.
 */
function cpuSeconds(serverPid: number | undefined): number {
  const whole = (pid: number | 'self') => procCpuSeconds(pid, 'own') + procCpuSeconds(pid, 'children');
  return whole('self') + (serverPid ? whole(serverPid) : 0);
}

/** Runs `run`, adding the CPU seconds it cost the machine (see `cpuSeconds`) to what it returns. */
async function withCpu(env: BenchEnv, run: () => Promise<Run>): Promise<Run & { cpuSeconds: number }> {
  const before = cpuSeconds(env.server.process.pid);
  const figures = await run();
  return { ...figures, cpuSeconds: cpuSeconds(env.server.process.pid) - before };
}

/**
 * codeloop's batch against the floor: the same 200-task DAG at the same `maxParallel`, once through
 * `batchConductorWorkflow` (an instant scripted model, a worktree, a commit and a merge per task) and once through a
 * bare conductor whose children run one trivial activity (bench/floor/), on the same dev server with the SDK's
 * default worker settings, side by side at 4 and 16. The ratios say what codeloop adds over what Temporal itself
 * costs on this machine. Goals: makespan within 1.10x of the floor's, hand-off p95 within 1.5x.
 */
export async function benchBatchFloor(env: BenchEnv): Promise<void> {
  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(benchDir, 'floor', 'floor-workflows.ts'), logger: silent });
  const rows: (string | number)[][] = [];
  const load = [os.loadavg()[0]];
  for (const parallel of SETTINGS) {
    const floor = await withCpu(env, () => runFloor(env, bundle.code, parallel));
    const codeloop = await withCpu(env, () => measureBatch(env, env.bundlePath, parallel));
    console.error(`batch floor: maxParallel ${parallel}: floor ${floor.makespanMs} ms, codeloop ${codeloop.makespanMs} ms`);
    const p = (run: Run, at: number) => percentile(run.handOffMs, at);
    rows.push(
      [
        parallel,
        'makespan',
        seconds(floor.makespanMs),
        seconds(codeloop.makespanMs),
        ratio(codeloop.makespanMs, floor.makespanMs),
        '≤ 1.10×',
      ],
      [parallel, 'hand-off p50', `${p(floor, 50)} ms`, `${p(codeloop, 50)} ms`, ratio(p(codeloop, 50), p(floor, 50)), ''],
      [parallel, 'hand-off p95', `${p(floor, 95)} ms`, `${p(codeloop, 95)} ms`, ratio(p(codeloop, 95), p(floor, 95)), '≤ 1.5×'],
      [parallel, 'CPU time', cpu(floor), cpu(codeloop), ratio(codeloop.cpuSeconds, floor.cpuSeconds), ''],
      [
        parallel,
        `CPU time / ${os.cpus().length} cores`,
        seconds((floor.cpuSeconds * 1000) / os.cpus().length),
        seconds((codeloop.cpuSeconds * 1000) / os.cpus().length),
        '',
        '',
      ],
    );
  }
  load.push(os.loadavg()[0]);
  const markdown = `## A batch against the floor

\`npm run bench -- batch-floor\`, ${stamp()}. The same ${TASKS}-task random DAG as the batch section (seed 42), at
\`maxParallel\` ${SETTINGS.join(' and ')}, on one dev server, the floor first at each setting. *Floor*: a bare Temporal
conductor (bench/floor/) that starts each task's child once its dependencies completed, whose child runs one
trivial activity: no model, no git, the SDK's default worker settings, as codeloop's workers use. *codeloop*:
\`batchConductorWorkflow\` with an instant scripted model; each task gets a worktree, a commit and a merge into the
integration branch before its dependents start. Hand-off: a dependency's child finished → its dependent's child
started, over dependents that became ready with a slot free. CPU time: user and system time of the bench process
(its workers), of the processes it ran and waited for (git, the sandbox), and of the dev server, over the run; divided
by the cores, it is the shortest makespan the machine allows for that much work. Load average (1 min) at the start
and the end: ${load.map((value) => value.toFixed(1)).join(' and ')} on ${os.cpus().length} cores.

${table(['maxParallel', 'figure', 'floor', 'codeloop', 'codeloop / floor', 'goal'], rows)}
`;
  writeSection('51-batch-floor', markdown);
  console.log(markdown);
}

async function runFloor(env: BenchEnv, code: string, parallel: number): Promise<Run> {
  const taskQueue = `bench-floor-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { code },
    activities: { trivialWork: async () => Date.now() },
  });
  const tasks = randomDag(TASKS).map(({ id, dependsOn }) => ({ id, dependsOn }));
  const result = await worker.runUntil(
    env.client.workflow.execute<typeof floorConductorWorkflow>('floorConductorWorkflow', {
      taskQueue,
      workflowId: `${taskQueue}-batch`,
      args: [{ tasks, maxParallel: parallel }],
    }),
  );
  const byId = new Map(result.tasks.map((times) => [times.id, times]));
  const running = (at: number) => result.tasks.filter((times) => times.startedAt <= at && at < times.finishedAt).length;
  const handOffMs = tasks
    .filter((task) => task.dependsOn.length > 0)
    .flatMap((task) => {
      const last = task.dependsOn.map((id) => byId.get(id)!).reduce((a: FloorTaskTimes, b) => (b.finishedAt > a.finishedAt ? b : a));
      return running(last.finishedAt) < parallel ? [byId.get(task.id)!.startedAt - last.finishedAt] : [];
    });
  return { makespanMs: result.makespanMs, handOffMs };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpu = (run: { cpuSeconds: number }) => `${run.cpuSeconds.toFixed(1)} CPU-s`;
const ratio = (value: number, floor: number) => (floor > 0 ? `${(value / floor).toFixed(2)}×` : '-');
