import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWorkerProcess } from '../tests/support/worker-spawn.js';
import { finishBatch, startFaultBatch, startRig, TASK_IDS, type Rig } from '../tests/cluster/fault-rig.js';
import { faultById, FAULTS, type Fault } from '../tests/cluster/faults.js';
import { batchDurationMs, recoveryFrom } from '../tests/cluster/recovery.js';
import { benchDir, bundleAt, machine, percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';

/** Runs of each fault, and of the batch without one; `CODELOOP_FAULTS_RUNS=2` for a quick look. */
const RUNS = Number(process.env.CODELOOP_FAULTS_RUNS ?? 5);
/** `CODELOOP_FAULTS=postgres-merging,history-kill` measures only those. */
const ONLY = process.env.CODELOOP_FAULTS?.split(',').filter(Boolean);
/** A batch that has not ended this long after its fault is recorded as stuck, and the bench goes on. */
const GIVE_UP_MS = Number(process.env.CODELOOP_FAULTS_GIVE_UP_MS ?? 12 * 60_000);

/** One measured run, kept in bench/results/fault-recovery-<label>.json so before and after are rendered together. */
export interface FaultRun {
  fault: string;
  /** When it ran, for the record. */
  at: string;
  /** The machine's 1-minute load average as the run ended: the cores are shared, and a busy machine slows batches. */
  load?: number;
  batchMs: number;
  /** How long the fault kept its part away on purpose; the batch's lateness does not count it. */
  awayMs?: number;
  resumedMs?: number;
  drainedMs?: number;
  /** The piece of work that took longest to go through, and why its first attempt failed if it did. */
  slowest?: string;
  /** Set when the batch went wrong: not completed, a command run twice or never, or no end within the give-up time. */
  problem?: string;
}

const rawFile = (label: string) => path.join(benchDir, 'results', `fault-recovery-${label}.json`);

/**
 * `npm run bench -- faults`: each fault of tests/cluster/faults.ts injected into the cluster tests' 20-task batch over
 * two worker hosts, RUNS times, and the batch without a fault as often. Time to recover is read from the batch's own
 * histories (see tests/cluster/recovery.ts). Measures the checkout ("after"); with `--baseline <ref>`, the workflows
 * and the cluster's configuration as they were at that commit ("before"). Each set is kept, and the section shows both.
 */
export async function benchFaults(env: BenchEnv, options: { baseline?: string } = {}): Promise<void> {
  const label = options.baseline ? 'before' : 'after';
  const at = options.baseline ? await bundleAt(options.baseline) : undefined;
  const bundlePath = at?.bundlePath ?? env.bundlePath;
  const serverConfig = at && path.join(benchDir, '.out', `at-${at.commit}`, 'deploy', 'temporal');
  const faults = ONLY ? ONLY.map(faultById) : FAULTS;
  // Measuring some faults again keeps the set's other runs (of the same commit), so a set can be completed in parts.
  const earlier = readSet(label);
  const kept = ONLY && earlier && earlier.ref === at?.commit ? earlier.runs.filter((run) => !ONLY.includes(run.fault)) : [];
  const runs: FaultRun[] = [...kept];
  const record = (run: FaultRun) => {
    run.load = Number(os.loadavg()[0].toFixed(1));
    runs.push(run);
    console.error(`bench: ${run.fault}: ${describeRun(run)}`);
    writeFileSync(rawFile(label), `${JSON.stringify({ label, ref: at?.commit, machine: machineLine(), runs }, null, 2)}\n`);
    writeSection('85-fault-recovery', render());
  };
  const rig = await startRig({
    spawnWorker: (workerEnv) =>
      startWorkerProcess({ CODELOOP_WORKFLOW_BUNDLE: bundlePath, CODELOOP_LOG_LEVEL: 'ERROR', ...workerEnv }, { startTimeoutMs: 120_000 }),
    serverConfig,
    // As `codeloop cluster up` runs it: PostgreSQL with fsync, so a restart loses what a user's would.
    durable: true,
  });
  try {
    if (!runs.some((run) => run.fault === 'none')) for (let run = 0; run < RUNS; run += 1) record(await measure(rig));
    for (const fault of faults) for (let run = 0; run < RUNS; run += 1) record(await measure(rig, fault));
  } finally {
    await rig.close();
  }
  console.log(render());
}

async function measure(rig: Rig, fault?: Fault): Promise<FaultRun> {
  const batch = await startFaultBatch(rig, fault?.taskDefaults);
  const started = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const window = fault && (await fault.strike(rig, batch));
  let finished;
  try {
    finished = await finishBatch(rig, batch, GIVE_UP_MS);
  } catch (error) {
    // A stuck batch is a finding: recorded, ended, and the next run starts on a clean slate.
    await batch.handle.terminate('the fault bench gave up on it').catch(() => undefined);
    return { fault: fault?.id ?? 'none', at: started, batchMs: GIVE_UP_MS, problem: `no end: ${(error as Error).message.slice(0, 300)}` };
  }
  const batchMs = batchDurationMs(finished.batchRuns);
  const ledgerOk = JSON.stringify([...finished.ledger].sort()) === JSON.stringify(TASK_IDS);
  const problem =
    finished.result.status !== 'completed'
      ? `batch ${finished.result.status}`
      : ledgerOk
        ? undefined
        : `ledger ${finished.ledger.join(',')}`;
  if (!window) return { fault: 'none', at: started, batchMs, problem };
  const recovery = recoveryFrom(finished.runs, window);
  const slowest = recovery.slowest;
  return {
    fault: fault!.id,
    at: started,
    batchMs,
    awayMs: window.awayMs,
    resumedMs: recovery.resumedMs,
    drainedMs: recovery.drainedMs,
    slowest:
      slowest &&
      `${slowest.what} of ${slowest.workflowId.split('/').at(-1)} (attempt ${slowest.attempt}` +
        `${slowest.lastFailure ? `, before it: ${slowest.lastFailure.slice(0, 120)}` : ''})`,
    problem,
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

function describeRun(run: FaultRun): string {
  const figures =
    run.resumedMs === undefined
      ? `batch ${seconds(run.batchMs)} s`
      : `resumed ${seconds(run.resumedMs)} s, drained ${seconds(run.drainedMs!)} s, batch ${seconds(run.batchMs)} s`;
  const load = run.load === undefined ? '' : `, load ${run.load}`;
  return `${figures}${load}${run.problem ? ` PROBLEM ${run.problem}` : ''}${run.slowest ? `; slowest ${run.slowest}` : ''}`;
}

const machineLine = () => `${machine()}, ${os.cpus().length} cores (shared with other work)`;

interface RawSet {
  label: string;
  ref?: string;
  machine: string;
  runs: FaultRun[];
}

function readSet(label: string): RawSet | undefined {
  return existsSync(rawFile(label)) ? (JSON.parse(readFileSync(rawFile(label), 'utf8')) as RawSet) : undefined;
}

/** The p50 / p95 / max of some figures, in seconds. */
function spread(values: number[]): string {
  if (!values.length) return '-';
  return `${seconds(percentile(values, 50))} / ${seconds(percentile(values, 95))} / ${seconds(Math.max(...values))}`;
}

function renderSet(set: RawSet): string {
  const reference = set.runs.filter((run) => run.fault === 'none' && !run.problem).map((run) => run.batchMs);
  const median = reference.length ? percentile(reference, 50) : NaN;
  const rows = FAULTS.filter((fault) => set.runs.some((run) => run.fault === fault.id)).map((fault) => {
    const runs = set.runs.filter((run) => run.fault === fault.id);
    const measured = runs.filter((run) => run.resumedMs !== undefined);
    const problems = runs.filter((run) => run.problem).length;
    return [
      fault.name,
      `${runs.length}${problems ? ` (${problems} with problems)` : ''}`,
      spread(measured.map((run) => run.resumedMs!)),
      spread(measured.map((run) => run.drainedMs!)),
      spread(runs.map((run) => run.batchMs - median - (run.awayMs ?? 0))),
    ];
  });
  return (
    `**${set.label}**${set.ref ? ` (workflows and cluster configuration at ${set.ref})` : ' (this checkout)'}, ${set.machine}. ` +
    `Without a fault the batch took ${spread(reference)} s (p50 / p95 / max of ${reference.length}).\n\n` +
    table(['fault', 'runs', 'work resumed after (s)', 'all work in flight through after (s)', 'batch end vs fault-free p50 (s)'], rows) +
    `\n\nSlowest piece of work per run:\n\n` +
    set.runs
      .filter((run) => run.fault !== 'none')
      .map((run) => `- ${run.fault} (${run.at}): ${describeRun(run)}`)
      .join('\n')
  );
}

function render(): string {
  const sets = ['before', 'after'].map(readSet).filter((set): set is RawSet => set !== undefined);
  return `## Time to recover from faults (cluster)

\`npm run bench -- faults\` (and \`-- faults --baseline <ref>\` for *before*), ${stamp()}. The cluster tests' batch (20
tasks over three repositories and two worker hosts, three scripted model calls of 0.6 s each per task) on
\`codeloop cluster\` (PostgreSQL with fsync, four services), with one fault per run. Figures are p50 / p95 / max over the runs, in
seconds, read from the batch's own histories: *work resumed* is from the fault to the first activity or workflow task
completed once the failed part was back; *all work in flight through* is from the fault until every activity and
workflow task that was in flight at it had completed (the longest any piece of work was held up); *batch end* is the
batch's duration against the median fault-free run's, less the time a fault kept its part away on purpose (the
host gone for 60 s). Goals: resumed within 30 s at p95, batch end at most 60 s later.

${sets.map(renderSet).join('\n\n')}
`;
}
