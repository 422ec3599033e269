import { expect, test } from 'vitest';
import type { Report } from '../../src/client/report.js';
import { addUsage, emptyUsage, totalTokens, type Usage } from '../../src/shared/conversation.js';
import { costOf } from '../../src/workflows/common/pricing.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { runCli } from '../support/cli.js';
import { waitForBatch } from '../support/batch.js';
import { byTask, byTurn, isForTask, reportedUsage } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('report-batch');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });
const report = async () => JSON.parse((await runCli(['report', '--since', '1h', '--json'], env())).stdout) as Report;
const text = async () => (await runCli(['report', '--since', '1h'], env())).stdout;

/** The usage the fake reported to the tasks with these titles, as a batch adds it up. */
function usageOf(...titles: string[]): Usage {
  return harness.fake.requests
    .filter((request) => request.usage && titles.some((title) => isForTask(request, title)))
    .map(reportedUsage)
    .reduce(addUsage, emptyUsage());
}
const tokensOf = totalTokens;

test('report: a batch row while it runs and once it ends, with its counts, tokens and cost', async () => {
  harness.fake.setResponder(
    byTask({
      'Report done': () => ({ text: 'done' }),
      'Report asks': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which region?' } }] }, { text: 'done' }]),
      'Report broken': () => ({ error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } }),
    }),
  );
  const workflowId = uniqueName('report-batch');
  const task = (id: string, title: string, dependsOn: string[] = []) => ({ id, title, description: title, dependsOn });
  const handle = await harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    taskQueue: harness.taskQueue,
    workflowId,
    args: [
      {
        workspace: makeGitRepo(),
        maxParallel: 3,
        tasks: [
          task('done', 'Report done'),
          task('asks', 'Report asks'),
          task('broken', 'Report broken'),
          task('after', 'Report after', ['broken']),
        ],
      },
    ],
  });
  await waitForBatch(
    harness.temporal.client.workflow.getHandle(workflowId),
    (state) => state.counts.completed === 1 && state.counts.skipped === 1 && state.tasks.some((t) => t.id === 'asks' && t.blockedOn),
  );

  // Running: the tasks that have ended so far count; the blocked task's question is on its own row.
  const usedSoFar = usageOf('Report done');
  let rows = (await report()).rows;
  expect(rows.find((row) => row.workflowId === workflowId)).toMatchObject({
    kind: 'batch',
    status: 'running',
    summary: '1/4 tasks done',
    questions: [],
    tokens: tokensOf(usedSoFar),
  });
  expect(rows.find((row) => row.workflowId === workflowId)!.costUsd).toBeCloseTo(costOf(usedSoFar, 'claude-test'), 12);
  expect(rows.find((row) => row.workflowId === `${workflowId}/asks`)).toMatchObject({
    kind: 'task',
    batchId: workflowId,
    status: 'blocked',
    questions: [{ question: 'Which region?' }],
  });
  expect(tokensOf(usedSoFar)).toBeGreaterThan(0);

  await harness.temporal.client.workflow.getHandle(`${workflowId}/asks`).signal(answerBlockerSignal, { answer: 'eu' });
  await handle.result();
  const used = usageOf('Report done', 'Report asks');
  rows = (await report()).rows;
  const ended = rows.find((row) => row.workflowId === workflowId)!;
  expect(ended).toMatchObject({
    kind: 'batch',
    status: 'failed',
    // Their workspace has no gates: nothing verified the two that completed, and the row says so.
    summary: '2/4 tasks completed (2 unverified), 1 failed, 1 skipped',
    tokens: tokensOf(used),
  });
  expect(ended.costUsd).toBeCloseTo(costOf(used, 'claude-test'), 12);
  expect(tokensOf(used)).toBeGreaterThan(tokensOf(usedSoFar));
  // Other files' batches share the server, so only this batch's line, under the batches heading, is checked.
  const printed = await text();
  expect(printed.slice(printed.indexOf('batches:'))).toContain(
    `\n  ${workflowId}  failed  2/4 tasks completed (2 unverified), 1 failed, 1 skipped  $${costOf(used, 'claude-test').toFixed(2)}\n`,
  );
}, 120_000);
