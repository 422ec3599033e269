import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BatchStateSnapshot } from '../../src/shared/batch-state.js';
import { answerBlockerSignal, getBatchStateQuery, getStateQuery } from '../../src/shared/messages.js';
import { waitForBatch } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { eventually } from '../support/polling.js';
import { hostQueuesOfTasks, midway, settle, startFaultBatch, startRig, type FaultBatch, type Rig, type Work } from './fault-rig.js';

/**
 * A 20-task batch over two worker hosts on the PostgreSQL cluster, with one fault injected while tasks run. After
 * each, the batch completes, each task's branch holds the same change as in a run without faults, every command ran
 * exactly once, and every history replays.
 */
let rig: Rig;
let reference: Work;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const completed = (state: BatchStateSnapshot, ids: string[]) =>
  state.tasks.filter((task) => ids.includes(task.id) && task.status === 'completed').length;
const HOST_A_TASKS = ['t01', 't02', 't03', 't04', 't05', 't06', 't07'];

beforeAll(async () => {
  rig = await startRig();
}, 300_000);

afterAll(async () => {
  await rig?.close();
}, 120_000);

async function expectSameWork(batch: FaultBatch): Promise<void> {
  const work = await settle(rig, batch);
  expect(work.integrationTrees).toEqual(reference.integrationTrees);
  expect(work.taskChanges).toEqual(reference.taskChanges);
}

describe('without faults', () => {
  test('a batch spread over two hosts completes: pinned tasks on their host, the rest on whichever binds them', async () => {
    const batch = await startFaultBatch(rig);
    reference = await settle(rig, batch);
    const queues = await hostQueuesOfTasks(rig, batch);
    for (const id of HOST_A_TASKS) expect(queues[id]).toBe(rig.hostQueue('host-a'));
    for (const id of ['t08', 't09', 't10', 't11', 't12', 't13', 't14']) expect(queues[id]).toBe(rig.hostQueue('host-b'));
    const shared = new Set(['t15', 't16', 't17', 't18', 't19', 't20'].map((id) => queues[id]));
    expect(shared.size).toBe(1);
    expect([rig.hostQueue('host-a'), rig.hostQueue('host-b')]).toContain([...shared][0]);
    // Every task wrote its own file, and nothing else.
    for (const [id, change] of Object.entries(reference.taskChanges)) expect(change).toContain(`+++ b/work/${id}.txt`);
  }, 300_000);
});

describe('a fault mid-batch', () => {
  test.each(['history', 'matching'] as const)(
    'the %s service is SIGKILLed and restarted',
    async (service) => {
      const batch = await startFaultBatch(rig);
      await midway(batch);
      await rig.cluster.kill(service);
      await sleep(3_000);
      await rig.cluster.start(service);
      await rig.cluster.waitUntilServing();
      await expectSameWork(batch);
    },
    300_000,
  );

  test('PostgreSQL restarts (fast shutdown, start)', async () => {
    const batch = await startFaultBatch(rig);
    await midway(batch);
    await rig.cluster.postgres.restart({ mode: 'fast' });
    await rig.cluster.waitUntilServing();
    await expectSameWork(batch);
  }, 300_000);

  test('a worker host is SIGKILLed and back after a minute: its tasks resume on it, the other host never stops', async () => {
    const batch = await startFaultBatch(rig);
    await midway(batch);
    await rig.killHost('host-b');
    const before = completed(await waitForBatch(batch.handle, () => true), HOST_A_TASKS);
    await sleep(60_000);
    const during = await waitForBatch(batch.handle, () => true);
    // host-a's tasks went on while host-b was away.
    expect(completed(during, HOST_A_TASKS)).toBeGreaterThan(before);
    await rig.startHost('host-b');
    await expectSameWork(batch);
  }, 300_000);

  test('a host that does not come back: its pinned tasks ask a human, naming it; once it is back, retry finishes', async () => {
    const batch = await startFaultBatch(rig, { hostTimeout: '5s' });
    await waitForBatch(batch.handle, (state) =>
      state.tasks.some((task) => task.id >= 't08' && task.id <= 't14' && task.status === 'running'),
    );
    await rig.killHost('host-b');
    const stuck = await waitForBatch(batch.handle, (state) => state.tasks.some((task) => task.blockedOn?.length));
    const blocked = stuck.tasks.filter((task) => task.blockedOn?.length);
    for (const task of blocked) expect(task.blockedOn![0].question).toMatch(/^Host host-b has not started .+ within 5s/);
    await rig.startHost('host-b');
    // Answer every host blocker until none is left (another may open before the host is seen again). A task whose
    // worktree was not cut yet has no child: the batch asked for it.
    await eventually(
      async () => {
        const state = (await batch.handle.query(getBatchStateQuery).catch(() => undefined)) as BatchStateSnapshot | undefined;
        for (const blocker of state?.openBlockers ?? []) {
          if (blocker.origin === 'host-unavailable')
            await batch.handle.signal(answerBlockerSignal, { blockerId: blocker.id, answer: 'retry' });
        }
        const key = (blocker: { id: string; question: string }) => `${blocker.id} ${blocker.question}`;
        const asked = new Set(state?.openBlockers.map(key));
        for (const task of state?.tasks ?? []) {
          if (!task.blockedOn?.length || task.blockedOn.every((blocker) => asked.has(key(blocker)))) continue;
          const child = rig.temporal.client.workflow.getHandle(task.childWorkflowId);
          const open = (await child.query(getStateQuery)).openBlockers;
          for (const blocker of open) await child.signal(answerBlockerSignal, { blockerId: blocker.id, answer: 'retry' });
        }
        return state;
      },
      (state) => state?.status === 'completed',
      'the batch did not complete after the host came back',
      { timeoutMs: 180_000, intervalMs: 1_000 },
    );
    await expectSameWork(batch);
  }, 300_000);

  test('the frontend is unreachable for 30 s while the CLI is used: clear errors, no crash, no lost command', async () => {
    const batch = await startFaultBatch(rig);
    await midway(batch);
    const cli = (args: string[]) => runCli(args, { TEMPORAL_ADDRESS: rig.cluster.address, CODELOOP_TASK_QUEUE: rig.taskQueue });
    await rig.cluster.kill('frontend');
    const down = Date.now();
    const status = await cli(['batch', 'status', batch.handle.workflowId]);
    expect(status.code).not.toBe(0);
    expect(status.stderr.trim().split('\n')).toHaveLength(1);
    expect(status.stderr).toContain(rig.cluster.address);
    // A command that changes something either happens or says it did not: this start did not, and says so.
    const start = await cli([
      'task',
      'start',
      'Write the status note',
      '--workspace',
      batch.repos.c,
      '--id',
      `${batch.handle.workflowId}-note`,
    ]);
    expect(start.code).not.toBe(0);
    expect(start.stderr.trim().split('\n')).toHaveLength(1);
    await sleep(Math.max(0, 30_000 - (Date.now() - down)));
    for (const host of ['host-a', 'host-b'] as const) expect(rig.host(host)!.child.exitCode).toBeNull();
    await rig.cluster.start('frontend');
    await rig.cluster.waitUntilServing();
    const again = await cli(['batch', 'status', batch.handle.workflowId]);
    expect(again.code).toBe(0);
    // The start that failed left nothing behind.
    await expect(rig.temporal.client.workflow.getHandle(`${batch.handle.workflowId}-note`).describe()).rejects.toThrow();
    await expectSameWork(batch);
  }, 300_000);
});
