import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, inject, test } from 'vitest';
import { reportQuery, type Report } from '../../src/client/report.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { waitForBlockers } from '../support/blockers.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';
import { eventually } from '../support/polling.js';

const harness = useTaskHarness('report');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });
const start = (title: string, extra: Record<string, unknown> = {}) =>
  harness.start({ title, description: title, workspace: makeWorkspace({ 'a.txt': 'a' }), ...extra });

test('report: completed, failed with reason, blocked with its question, tokens and cost', async () => {
  harness.fake.setResponder(
    byTask({
      Finished: () => ({ text: 'All finished.' }),
      Looping: () => ({ toolCalls: [{ name: 'search_codebase', input: { pattern: String(Math.random()) } }] }),
      Waiting: () => ({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which region?' } }] }),
    }),
  );
  const finished = await start('Finished');
  await finished.result();
  const looping = await start('Looping', { maxIterations: 1 });
  await waitForBlockers(looping);
  await looping.signal(answerBlockerSignal, { answer: 'stop' });
  await looping.result().catch(() => undefined);
  const waiting = await start('Waiting');
  await waitForBlockers(waiting);

  const report = JSON.parse((await runCli(['report', '--since', '1h', '--json'], env())).stdout) as Report;
  const row = (id: string) => report.rows.find((candidate) => candidate.workflowId === id);
  expect(row(finished.workflowId)).toMatchObject({ kind: 'task', status: 'completed', summary: 'All finished.' });
  expect(row(finished.workflowId)!.tokens).toBeGreaterThan(0);
  expect(row(finished.workflowId)!.costUsd).toBeGreaterThan(0);
  expect(row(finished.workflowId)!.spendByPurpose?.default).toMatchObject({ calls: 1, costUsd: row(finished.workflowId)!.costUsd });
  expect(report.spendByPurpose.default!.calls).toBeGreaterThanOrEqual(3);
  expect(row(looping.workflowId)).toMatchObject({ status: 'failed', reason: 'budget_exhausted: iteration budget of 1 exhausted' });
  expect(row(waiting.workflowId)).toMatchObject({ status: 'blocked', questions: [{ blockerId: 'b1', question: 'Which region?' }] });
  expect(report.tasks.completed).toBeGreaterThanOrEqual(1);

  // Another deployment's task, on a queue of its own: its report has it, this queue's does not.
  const elsewhere = await harness.temporal.client.workflow.start('agentTaskWorkflow', {
    taskQueue: `${harness.taskQueue}-elsewhere`,
    workflowId: `${finished.workflowId}-elsewhere`,
    args: [{ title: 'Elsewhere', description: 'Elsewhere', workspace: makeWorkspace({}) }],
  });
  await elsewhere.terminate('not run here');
  const onQueue = async (taskQueue: string) =>
    (JSON.parse((await runCli(['report', '--since', '1h', '--json'], { CODELOOP_TASK_QUEUE: taskQueue })).stdout) as Report).rows;
  expect((await onQueue(`${harness.taskQueue}-elsewhere`)).map((r) => [r.workflowId, r.status])).toEqual([
    [elsewhere.workflowId, 'terminated'],
  ]);
  expect(report.taskQueue).toBe(harness.taskQueue);
  expect(report.rows.map((r) => r.workflowId)).not.toContain(elsewhere.workflowId);
  expect(reportQuery('2026-01-01T00:00:00.000Z', undefined)).not.toContain('TaskQueue');

  const human = (await runCli(['report', '--since', '1h'], env())).stdout;
  expect(human).toMatch(new RegExp(`^codeloop report since \\S+, task queue ${harness.taskQueue}\n`));
  expect(human).toMatch(/\nby purpose: default \$\d+\.\d{4} \(\d+ calls\)/);
  expect(human).toContain(`${looping.workflowId}  budget_exhausted: iteration budget of 1 exhausted`);
  expect(human).toMatch(new RegExp(`${waiting.workflowId}  b1 \\(\\d+s\\): Which region\\?`));
  expect((await runCli(['report', '--since', 'yesterday'], env())).stderr).toContain('--since yesterday is not a duration');
  await waiting.signal(answerBlockerSignal, { answer: 'eu' });
}, 120_000);

test('task follow shows steps and the open blocker with its answer command, until the end', async () => {
  harness.fake.setResponder(
    byTask({
      Followed: byTurn([
        { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'raise_blocker', input: { question: 'Ship it?' } }] },
        { text: 'shipped' },
      ]),
    }),
  );
  const handle = await start('Followed');
  const follower = spawn(process.execPath, [path.resolve('bin/codeloop.js'), 'task', 'follow', handle.workflowId], {
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), ...env() },
  });
  let stdout = '';
  let stderr = '';
  follower.stdout.on('data', (chunk) => (stdout += chunk));
  follower.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number>((resolve) => follower.on('exit', (code) => resolve(code ?? -1)));
  await waitForBlockers(handle);
  await eventually(
    async () => stderr,
    (text) => text.includes('Ship it?'),
    'follow never printed the blocker',
    { timeoutMs: 10_000, intervalMs: 200 },
  );
  await handle.signal(answerBlockerSignal, { answer: 'yes' });
  expect(await exited).toBe(0);
  expect(stderr).toContain('read a.txt');
  expect(stderr).toContain(`⏸ blocker b1: Ship it?\n   answer: npx codeloop blockers answer ${handle.workflowId} --blocker b1 "…"`);
  expect(stderr).toMatch(/blocked · blocked · iteration 2\/30 · [\d,]+ tokens · \$\d+\.\d{4} · WAITING FOR AN ANSWER \(b1\)/);
  expect(stdout).toContain(`${handle.workflowId}  [completed]`);
  expect(stdout).toContain('summary: shipped');
}, 120_000);
