import { expect, test } from 'vitest';
import type { Report } from '../../src/client/report.js';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { runCli } from '../support/cli.js';
import { eventually } from '../support/polling.js';
import { fillIn, readmeCommand, runShell } from '../support/readme.js';
import { byTask, byTurn, isForTask, reportedUsage, type RecordedRequest } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('batch-deadline');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });

const task = (id: string, title: string, dependsOn: string[] = []) => ({ id, title, description: `do ${id}`, dependsOn });
const creates = (file: string) =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: 'done' }]);
/** Asks until an answer is in its prompt, then creates its file. */
const asksRegion = (request: RecordedRequest) =>
  JSON.stringify(request.body.system).includes('Q: Which region?')
    ? creates('region.txt')(request)
    : { toolCalls: [{ name: 'raise_blocker', input: { question: 'Which region?' } }] };

test('at its deadline a batch cancels the blocked task, skips what waits on it, and ends with the question; resume finishes it', async () => {
  harness.fake.setResponder(
    byTask({ 'Quick one': creates('quick.txt'), 'Needs region': asksRegion, 'After region': creates('after.txt') }),
  );
  const repo = makeGitRepo();
  const batchId = uniqueName('night');
  const handle = await harness.temporal.client.workflow.start('batchConductorWorkflow', {
    args: [
      {
        workspace: repo,
        deadline: '10s',
        tasks: [task('quick', 'Quick one'), task('asks', 'Needs region'), task('after', 'After region', ['asks'])],
      },
    ],
    taskQueue: harness.taskQueue,
    workflowId: batchId,
  });
  const started = Date.now();
  const result = (await handle.result()) as BatchResult;
  expect(Date.now() - started).toBeLessThan(40_000);
  await recordHistory('batch-deadline-keeps-figures', handle);
  expect(result).toMatchObject({ status: 'deadline', deadline: '10s' });
  const byId = Object.fromEntries(result.tasks.map((entry) => [entry.id, entry]));
  expect(byId.quick.status).toBe('completed');
  expect(byId.asks).toMatchObject({
    status: 'cancelled',
    reason: "stopped at the batch's deadline (10s)",
    waitingFor: [{ id: 'b1', question: 'Which region?' }],
  });
  expect(byId.after).toMatchObject({ status: 'skipped', reason: "not started before the batch's deadline (10s)" });
  // What the stopped run used is kept, as its child reported it on stopping: the model call that asked the question.
  const stoppedRun = harness.fake.requests.filter((request) => isForTask(request, 'Needs region'));
  expect(stoppedRun).toHaveLength(1);
  expect(byId.asks).toMatchObject({ iterations: 1, usage: reportedUsage(stoppedRun[0]) });
  expect(result.totals.usage.outputTokens).toBe(byId.quick.usage!.outputTokens + byId.asks.usage!.outputTokens);
  // The child reports its cancellation just before its own run closes.
  const child = harness.temporal.client.workflow.getHandle(`${batchId}/asks`);
  await eventually(
    () => child.describe(),
    (description) => description.status.name === 'CANCELLED',
    'the stopped child never closed',
  );

  const report = JSON.parse((await runCli(['report', '--since', '1h', '--json'], env())).stdout) as Report;
  const row = report.rows.find((candidate) => candidate.workflowId === batchId)!;
  expect(row.summary).toContain('1 stopped at the 10s deadline');
  const resume = `npx codeloop batch resume ${batchId} --answer asks="…"`;
  expect(row.unanswered).toEqual([{ taskId: 'asks', question: 'Which region?', resume }]);
  const human = (await runCli(['report', '--since', '1h'], env())).stdout;
  expect(human).toContain(
    `stopped at their deadline, waiting for you (answer, then resume the rest):\n  ${batchId}  asks: Which region?\n    ${resume}`,
  );

  const before = harness.fake.requests.length;
  // The README's resume line, as written but for the names.
  const line = readmeCommand('npx codeloop batch resume').replace(/\s+#.*$/, '');
  const names: [string, string][] = [
    ['<batch-workflow-id>', batchId],
    ['cli="use argparse"', 'asks="eu-west-1"'],
  ];
  // The resumed batch would keep the 10 s deadline, too short for two tasks in a row on a loaded machine.
  const resumed = await runShell(`${fillIn(line, names)} --deadline 5m --json`, env());
  const { workflowId, tasks, answered } = JSON.parse(resumed.stdout) as { workflowId: string; tasks: string[]; answered: number };
  expect(tasks).toEqual(['asks', 'after']);
  expect(answered).toBe(1);
  const next = (await harness.temporal.client.workflow.getHandle(workflowId).result()) as BatchResult;
  expect(next).toMatchObject({ status: 'completed', deadline: '5m' });
  for (const file of ['quick.txt', 'region.txt', 'after.txt']) expect(fileOnBranch(repo, next.integrationBranch!, file)).toBe(`${file}\n`);
  const asked = harness.fake.requests.slice(before).find((request) => isForTask(request, 'Needs region'))!;
  expect(JSON.stringify(asked.body.system)).toContain('Q: Which region?\\nA: eu-west-1');

  const wrong = await runCli(['batch', 'resume', batchId, '--answer', 'quick=yes'], env());
  expect(wrong.stderr).toContain('--answer quick=yes: task quick was not waiting on a question');
  expect((await runCli(['batch', 'resume', workflowId], env())).stderr).toContain(
    `nothing to resume: every task of ${workflowId} completed`,
  );
  // A dozen CLI runs, each a Node start: on a loaded 2-core machine that alone can pass a minute.
}, 120_000);
