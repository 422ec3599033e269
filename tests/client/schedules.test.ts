import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { eventually, eventuallyStatus } from '../support/polling.js';
import { scheduledRuns as scheduledRunsOf } from '../support/schedules.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('schedules');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });
const NEVER_SOON = '0 0 1 1 *';

const scripts = () =>
  byTask({
    'Task one': () => ({ text: 'one done' }),
    'Task two': () => ({ text: 'two done' }),
    'Task slow': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Go on?' } }] }, { text: 'slow done' }]),
  });

const tasksYaml = (id: string) => `- id: ${id}\n  title: Task ${id}\n  description: run ${id}\n`;

/** Writes a batch file that reads its tasks from `tasks.yaml` in the repository when each run starts. */
function scheduledBatch(firstTask: string): { repo: string; batchFile: string } {
  const repo = makeGitRepo();
  writeFileSync(path.join(repo, 'tasks.yaml'), tasksYaml(firstTask));
  const batchFile = path.join(path.dirname(repo), `${path.basename(repo)}-nightly.yaml`);
  writeFileSync(batchFile, `workspace: ${repo}\ntasksFile: tasks.yaml\nmaxParallel: 2\n`);
  return { repo, batchFile };
}

/** The batches a schedule started, newest last. */
const scheduledRuns = (name: string) => scheduledRunsOf(harness.temporal.client, name);

test('create, trigger, pause and unpause; the tasks file is read when the run starts', async () => {
  harness.fake.setResponder(scripts());
  const name = uniqueName('nightly');
  const { repo, batchFile } = scheduledBatch('one');
  const created = await runCli(
    ['schedule', 'create', name, '--cron', NEVER_SOON, '--batch', batchFile, '--timezone', 'Europe/Paris', '--json'],
    env(),
  );
  expect(created.stderr).toBe('');
  expect(JSON.parse(created.stdout)).toMatchObject({ scheduleId: name, overlap: 'skip', catchupWindow: '1h', timezone: 'Europe/Paris' });

  // Tonight's file differs from the one the schedule was created with.
  writeFileSync(path.join(repo, 'tasks.yaml'), tasksYaml('two'));
  expect((await runCli(['schedule', 'trigger', name], env())).code).toBe(0);
  const [runId] = await eventually(
    () => scheduledRuns(name),
    (runs) => runs.length === 1,
    'no scheduled run',
  );
  expect(runId.startsWith(`${name}-`)).toBe(true);
  const result = (await harness.temporal.client.workflow.getHandle(runId).result()) as BatchResult;
  expect(result.status).toBe('completed');
  expect(result.tasks.map((task) => task.id)).toEqual(['two']);
  expect(result.batchId).toBe(runId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64));

  await runCli(['schedule', 'pause', name], env());
  const paused = JSON.parse((await runCli(['schedule', 'describe', name, '--json'], env())).stdout);
  expect(paused).toMatchObject({ paused: true, cron: NEVER_SOON, overlap: 'SKIP', catchupWindowMs: 3_600_000, actionsTaken: 1 });
  await runCli(['schedule', 'unpause', name], env());
  expect(JSON.parse((await runCli(['schedule', 'describe', name, '--json'], env())).stdout).paused).toBe(false);
  const listed = JSON.parse((await runCli(['schedule', 'list', '--json'], env())).stdout) as { scheduleId: string; cron?: string }[];
  expect(listed.find((row) => row.scheduleId === name)).toMatchObject({ cron: NEVER_SOON });
  expect((await runCli(['schedule', 'delete', name], env())).code).toBe(0);
  expect((await runCli(['schedule', 'describe', name], env())).stderr).toContain(`no schedule ${name}`);
}, 120_000);

test('backfill takes exactly the runs due in the window, each named and batched by its scheduled time', async () => {
  harness.fake.setResponder(scripts());
  const name = uniqueName('backfill');
  const { batchFile } = scheduledBatch('one');
  await runCli(['schedule', 'create', name, '--cron', NEVER_SOON, '--batch', batchFile], env());
  const invalid = await runCli(['schedule', 'backfill', name, '--start', 'last week', '--end', '2026-01-01T12:00:00Z'], env());
  expect(invalid.code).toBe(2);
  expect(invalid.stderr).toContain('--start and --end must be dates');

  // The window holds the firings of 2025-01-01 and 2026-01-01, not those of 2024 or 2027; buffer-all runs both.
  const backfilled = await runCli(
    ['schedule', 'backfill', name, '--start', '2024-12-31T12:00:00Z', '--end', '2026-01-01T12:00:00Z', '--overlap', 'buffer-all'],
    env(),
  );
  expect(backfilled).toMatchObject({ code: 0, stdout: `backfilled: ${name}\n` });
  const expected = ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'].map((time) => `${name}-${time}`);
  const runs = await eventually(
    () => scheduledRuns(name),
    (ids) => ids.length >= 2,
    'backfill started no runs',
  );
  expect(runs).toEqual(expected);
  for (const runId of runs) {
    const result = (await harness.temporal.client.workflow.getHandle(runId).result()) as BatchResult;
    expect(result).toMatchObject({ status: 'completed', batchId: runId.replace(/:/g, '-') });
  }
  expect(await scheduledRuns(name)).toEqual(expected);
  await runCli(['schedule', 'delete', name], env());
}, 120_000);

test('under the skip policy, a second trigger while a batch is running is skipped', async () => {
  harness.fake.setResponder(scripts());
  const name = uniqueName('overlap');
  const { batchFile } = scheduledBatch('slow');
  await runCli(['schedule', 'create', name, '--cron', NEVER_SOON, '--batch', batchFile], env());
  await runCli(['schedule', 'trigger', name], env());
  const [runId] = await eventually(
    () => scheduledRuns(name),
    (runs) => runs.length === 1,
    'no scheduled run',
  );
  const child = harness.temporal.client.workflow.getHandle(`${runId}/slow`);
  await eventuallyStatus(child, 'blocked', 'child never blocked');

  await runCli(['schedule', 'trigger', name], env());
  const described = await eventually(
    async () => JSON.parse((await runCli(['schedule', 'describe', name, '--json'], env())).stdout),
    (value) => value.skippedOverlap === 1,
    'the second trigger was not skipped',
  );
  expect(described.running).toEqual([runId]);
  expect(await scheduledRuns(name)).toHaveLength(1);

  await child.signal(answerBlockerSignal, { answer: 'yes' });
  expect(((await harness.temporal.client.workflow.getHandle(runId).result()) as BatchResult).status).toBe('completed');
  await runCli(['schedule', 'delete', name], env());
}, 120_000);
