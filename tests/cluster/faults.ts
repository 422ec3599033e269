import type { ClusterProcessName } from '../../src/cluster/services.js';
import type { BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { waitForBatch } from '../support/batch.js';
import { midway, type FaultBatch, type HostId, type Rig } from './fault-rig.js';
import type { FaultWindow } from './recovery.js';

/**
 * One fault the rig injects into a running batch: it waits for its moment, strikes, and brings the failed part back.
 * `npm run test:cluster` runs each once and `npm run bench -- faults` many times, so both measure the same thing.
 */
export interface Fault {
  id: string;
  /** What happens, for the test's name and the bench's table. */
  name: string;
  /** `taskDefaults` the batch is started with. */
  taskDefaults?: Record<string, unknown>;
  /** Returns when it struck and when the failed part was running again. `whileDown` runs during the outage. */
  strike(rig: Rig, batch: FaultBatch, whileDown?: () => Promise<void>): Promise<FaultWindow>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Some task of the batch is merging (its merge activity is on its repository's host queue); `ids` narrows which. */
const merging = (batch: FaultBatch, ids?: string[]) =>
  waitForBatch(batch.handle, (state) => state.tasks.some((task) => task.status === 'merging' && (!ids || ids.includes(task.id))), 50);

/** The batch has just started: a task runs, and the others' worktrees are being cut. */
const starting = (batch: FaultBatch) => waitForBatch(batch.handle, (state) => state.counts.running >= 1, 50);

type Moment = (batch: FaultBatch) => Promise<BatchStateSnapshot>;

/**
 * A Temporal service SIGKILLed at `moment` and started again `downMs` later. A short outage is part of the fault, and
 * the recovery counts from the kill; a long one (`fromReturn`) is the fault's own doing, and it counts from the return.
 */
function serviceKilled(service: ClusterProcessName, moment: Moment, downMs: number, { fromReturn = false } = {}): Fault['strike'] {
  return async (rig, batch, whileDown) => {
    await moment(batch);
    const killed = Date.now();
    await rig.cluster.kill(service);
    await Promise.all([sleep(downMs), whileDown?.()]);
    await rig.cluster.start(service);
    const back = Date.now();
    await rig.cluster.waitUntilServing();
    return fromReturn ? { at: back, back, awayMs: back - killed } : { at: killed, back };
  };
}

/** PostgreSQL restarted (fast shutdown, start) at `moment`, as `codeloop cluster restart postgres` does. */
function postgresRestarted(moment: Moment): Fault['strike'] {
  return async (rig, batch) => {
    await moment(batch);
    const at = Date.now();
    await rig.cluster.postgres.restart({ mode: 'fast' });
    const back = Date.now();
    await rig.cluster.waitUntilServing();
    return { at, back };
  };
}

/** A worker host SIGKILLed at `moment` and started again `downMs` later (`fromReturn`: see `serviceKilled`). */
function hostKilled(host: HostId, moment: Moment, downMs: number, { fromReturn = false } = {}): Fault['strike'] {
  return async (rig, batch, whileDown) => {
    await moment(batch);
    const killed = Date.now();
    await rig.killHost(host);
    await Promise.all([sleep(downMs), whileDown?.()]);
    await rig.startHost(host);
    const back = Date.now();
    return fromReturn ? { at: back, back, awayMs: back - killed } : { at: killed, back };
  };
}

const HOST_B_TASKS = ['t08', 't09', 't10', 't11', 't12', 't13', 't14'];

/** The faults of faults.test.ts and `npm run bench -- faults`. */
export const FAULTS: Fault[] = [
  {
    id: 'history-kill',
    name: 'history SIGKILLed mid-batch, started 3 s later',
    strike: serviceKilled('history', midway, 3_000),
  },
  {
    id: 'matching-kill',
    name: 'matching SIGKILLed mid-batch, started 3 s later',
    strike: serviceKilled('matching', midway, 3_000),
  },
  {
    id: 'matching-restart-merging',
    name: 'matching restarted (SIGTERM) while a merge is pending on a host queue',
    strike: async (rig, batch) => {
      await merging(batch);
      const at = Date.now();
      await rig.cluster.restart('matching', { signal: 'SIGTERM' });
      const back = Date.now();
      await rig.cluster.waitUntilServing();
      return { at, back };
    },
  },
  { id: 'postgres-starting', name: 'PostgreSQL restarted as the batch starts (worktrees being cut)', strike: postgresRestarted(starting) },
  { id: 'postgres-midway', name: 'PostgreSQL restarted mid-batch', strike: postgresRestarted(midway) },
  { id: 'postgres-merging', name: 'PostgreSQL restarted while a merge runs', strike: postgresRestarted((batch) => merging(batch)) },
  {
    id: 'worker-kill-merging',
    name: 'a worker host SIGKILLed while one of its merges runs, started 3 s later',
    strike: hostKilled('host-b', (batch) => merging(batch, HOST_B_TASKS), 3_000),
  },
  {
    id: 'host-away',
    name: 'a worker host SIGKILLed mid-batch and back after 60 s (counted from its return)',
    strike: hostKilled('host-b', midway, 60_000, { fromReturn: true }),
  },
  {
    id: 'frontend-down',
    name: 'the frontend SIGKILLed for 30 s while codeloop commands run (counted from its return)',
    strike: serviceKilled('frontend', midway, 30_000, { fromReturn: true }),
  },
];

export const faultById = (id: string): Fault => {
  const fault = FAULTS.find((candidate) => candidate.id === id);
  if (!fault) throw new Error(`no fault ${id}; choose from ${FAULTS.map((candidate) => candidate.id).join(', ')}`);
  return fault;
};
