import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { waitForBlockers } from '../support/blockers.js';
import { eventually } from '../support/polling.js';
import { fillIn, readmeBlocks, readmeCommand, readmeShellBlock, runShell } from '../support/readme.js';
import { myRepo, readmeTasks, useReadmeHarness } from '../support/readme-harness.js';
import { scheduledRuns as scheduledRunsOf } from '../support/schedules.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeWorkspace } from '../support/workspace.js';

/**
 * The README's commands, taken from README.md and run with bash as written. Only placeholders change: paths, ids,
 * and the task queue (`codeloop` becomes this file's own queue on the shared test server). The planning and git trail
 * commands are in readme-plan-git.test.ts, so the two files run side by side.
 */
const { harness, env, onOurQueue: ourQueue, result } = useReadmeHarness('readme');
const onOurQueue = ourQueue();

/** The batches a schedule started, once the first shows in visibility. */
const scheduledRuns = (scheduleId: string) =>
  eventually(
    () => scheduledRunsOf(harness.temporal.client, scheduleId),
    (ids) => ids.length > 0,
    `schedule ${scheduleId} started no run`,
  );

test("a task started with the README's `temporal workflow start` line and answered with its signal line", async () => {
  harness.fake.enqueue({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which database?' } }] }, { text: 'used the answer' });
  const workflowId = uniqueName('readme-task');
  const workspace = makeWorkspace();
  await runShell(
    fillIn(readmeCommand('temporal workflow start --type agentTaskWorkflow'), [
      onOurQueue,
      ['/path/to/checkout', workspace],
      ['my-task', workflowId],
    ]),
  );
  const handle = harness.temporal.client.workflow.getHandle(workflowId);
  await waitForBlockers(handle);
  await runShell(
    fillIn(readmeCommand('temporal workflow signal --workflow-id <workflow-id> --name answerBlocker'), [['<workflow-id>', workflowId]]),
  );
  expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'used the answer' });
  const lastTurn = harness.fake.requests.at(-1)!.body.messages.at(-1)!.content as Record<string, any>[];
  expect(lastTurn).toContainEqual(expect.objectContaining({ type: 'tool_result', content: expect.stringContaining('Use PostgreSQL 16') }));
}, 90_000);

test("the README's batch.yaml runs with `codeloop batch start`, and its JSON form with `temporal workflow start`", async () => {
  harness.fake.setResponder(readmeTasks());
  const repo = myRepo();
  const batchFile = path.join(path.dirname(repo), 'batch.yaml');
  const [batchYaml] = readmeBlocks('yaml').filter((block) => block.includes('# batch.yaml'));
  writeFileSync(batchFile, batchYaml!);

  const start = readmeCommand('npx codeloop batch start').replace(/ \[[^\]]*\]/g, '');
  const started = await runShell(`${fillIn(start, [['batch.yaml', batchFile]])} --json`, env(), { realNpx: true });
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  const followed = await runShell(fillIn(readmeCommand('npx codeloop batch follow'), [['<batch-id>', workflowId]]), env());
  expect(followed.stdout).toContain('critical path: model → cli');
  const fromFile = await result(workflowId);
  expect(fromFile.status).toBe('completed');
  expect(fileOnBranch(repo, fromFile.integrationBranch!, 'cli.py')).toBe('CLI = 1\n');

  const batchId = uniqueName('my-batch');
  const rawStart = readmeCommand('temporal workflow start --type batchConductorWorkflow');
  await runShell(fillIn(rawStart, [onOurQueue, ['/abs/path/my-repo', myRepo()], ['my-batch', batchId]]));
  expect((await result(batchId)).tasks.map((task) => [task.id, task.status])).toEqual([['model', 'completed']]);
}, 180_000);

test("the operator walkthrough, from tonight's tasks to the morning report, runs as written", async () => {
  harness.fake.setResponder(readmeTasks());
  const repo = myRepo();
  const home = mkdtempSync(path.join(os.tmpdir(), 'codeloop-home-'));
  mkdirSync(home, { recursive: true });
  const name = uniqueName('nightly');
  const [evening, morning] = readmeShellBlock('schedule create nightly').split('# 3. in the morning');
  const names: [string | RegExp, string][] = [
    ['/path/to/my-repo', repo],
    [/\bnightly\b(?!\.yaml)/g, name],
  ];
  await runShell(fillIn(evening!, names), { ...env(), HOME: home });

  const runs = await scheduledRuns(name);
  expect(runs.length).toBeGreaterThanOrEqual(1);
  const batch = await result(runs[0]!);
  expect(batch.deadline).toBe('8h');
  expect(batch.tasks.map((task) => [task.id, task.status])).toEqual([
    ['model', 'completed'],
    ['cli', 'completed'],
  ]);
  expect(fileOnBranch(repo, batch.integrationBranch!, 'task.py')).toBe('TASK = 1\n');

  const report = await runShell(fillIn(morning!, [['<batch-workflow-id>', runs[0]!]]), env());
  expect(report.stdout).toContain(runs[0]!);
  expect(report.stdout).toMatch(/✓ +model[\s\S]*✓ +cli/);

  const rawName = uniqueName('raw-nightly');
  await runShell(
    fillIn(readmeCommand('temporal schedule create --schedule-id nightly'), [
      onOurQueue,
      ['/path/to/my-repo', repo],
      [/\bnightly\b/g, rawName],
    ]),
  );
  await runShell(`npx codeloop schedule trigger ${rawName}`, env());
  const [rawRun] = await scheduledRuns(rawName);
  // Scheduled without a deadline of its own: the night's default, from the workflow's TemporalScheduledById.
  expect(await result(rawRun!)).toMatchObject({ status: 'completed', deadline: '8h' });
  for (const schedule of [name, rawName]) await runShell(`npx codeloop schedule delete ${schedule}`, env());
}, 240_000);
