import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { expect, test } from 'vitest';
import type { TaskRow } from '../../src/client/task-control.js';
import { TASK_FLAGS } from '../../src/client/task-flags.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { TaskInputFieldsSchema } from '../../src/shared/task-input.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { waitForBlockers } from '../support/blockers.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('task-control');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });
const handleOf = (workflowId: string) => harness.temporal.client.workflow.getHandle(workflowId);

/** The input a workflow was started with, as the server holds it. */
async function startedWith(workflowId: string): Promise<Record<string, unknown>> {
  const history = await handleOf(workflowId).fetchHistory();
  const payloads = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads;
  return decodeFromPayloadsAtIndex(harness.temporal.client.options.loadedDataConverter, 0, payloads);
}

test('every task input field has a task start flag, but the ones a batch sets for its tasks', () => {
  const setByBatch = ['description', 'batchContext', 'reportSpend', 'reportOutage'];
  const fields = Object.keys(TaskInputFieldsSchema.shape).filter((field) => !setByBatch.includes(field));
  expect(Object.keys(TASK_FLAGS).sort()).toEqual(fields.sort());
});

test('task start passes every flag through the workflow schema; a bad one is named before anything starts', async () => {
  harness.fake.setResponder(byTask({ 'Flagged task': () => ({ text: 'done' }) }));
  const workspace = makeWorkspace({ 'a.txt': 'a' });
  const answers = path.join(path.dirname(workspace), `${path.basename(workspace)}-answers.yaml`);
  writeFileSync(answers, '- question: Which database?\n  answer: PostgreSQL\n');
  const flags = [
    ['--title', 'Flagged task'],
    ['--max-iterations', '7'],
    ['--complexity', '3'],
    ['--model', 'claude-test'],
    ['--summary-model', 'claude-small'],
    ['--blocker-timeout', '7d'],
    ['--on-blocker-timeout', 'continue'],
    ['--approval', 'risky'],
    ['--max-total-tokens', '500000'],
    ['--max-cost-usd', '2.5'],
    ['--context-window', '100000'],
    ['--on-loop', 'fail'],
    ['--stall-timeout', '10m'],
    ['--on-stall', 'blocker'],
    ['--network', 'on'],
    ['--env', 'NPM_TOKEN, PIP_INDEX_URL'],
    ['--gates', 'strict'],
    ['--answers', answers],
  ].flat();
  const started = await runCli(['task', 'start', 'Do the flagged thing', '--workspace', workspace, ...flags, '--json'], env());
  expect(started.stderr).toBe('');
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  expect(await startedWith(workflowId)).toMatchObject({
    title: 'Flagged task',
    description: 'Do the flagged thing',
    workspace,
    maxIterations: 7,
    complexity: 3,
    model: 'claude-test',
    models: { summary: 'claude-small' },
    blockerTimeout: '7d',
    onBlockerTimeout: 'continue',
    approval: 'risky',
    maxTotalTokens: 500_000,
    maxCostUsd: 2.5,
    contextWindow: 100_000,
    onLoop: 'fail',
    stallTimeout: '10m',
    onStall: 'blocker',
    network: 'on',
    env: ['NPM_TOKEN', 'PIP_INDEX_URL'],
    gates: 'strict',
    answers: [{ question: 'Which database?', answer: 'PostgreSQL' }],
  });
  expect(((await handleOf(workflowId).result()) as TaskResult).status).toBe('completed');

  const bad = await runCli(['task', 'start', 'x', '--workspace', workspace, '--gates', 'lenient', '--max-cost-usd', '1'], env());
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('gates: Invalid option: expected one of "no-regressions"|"strict"');
  const notANumber = await runCli(['task', 'start', 'x', '--workspace', workspace, '--max-cost-usd', 'lots'], env());
  expect(notANumber.stderr).toContain('--max-cost-usd lots is not a number');
});

test('task list filters by status; task cancel stops a blocked task; task retry starts again with the earlier answers', async () => {
  harness.fake.setResponder(
    byTask({
      'Asks first': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which region?' } }] }, { text: 'deployed to eu' }]),
      'Waits for ever': () => ({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Anyone there?' } }] }),
    }),
  );
  const workspace = makeWorkspace({ 'a.txt': 'a' });
  const start = async (title: string) =>
    (JSON.parse((await runCli(['task', 'start', title, '--workspace', workspace, '--json'], env())).stdout) as { workflowId: string })
      .workflowId;

  const asks = await start('Asks first');
  await waitForBlockers(handleOf(asks));
  await handleOf(asks).signal(answerBlockerSignal, { answer: 'eu-west-1' });
  await handleOf(asks).result();

  const waits = await start('Waits for ever');
  await waitForBlockers(handleOf(waits));
  const blocked = JSON.parse((await runCli(['task', 'list', '--status', 'blocked', '--json'], env())).stdout) as TaskRow[];
  expect(blocked.map((row) => row.workflowId)).toContain(waits);
  expect(blocked.map((row) => row.workflowId)).not.toContain(asks);
  expect(blocked.find((row) => row.workflowId === waits)).toMatchObject({ status: 'blocked', phase: 'blocked', title: 'Waits for ever' });
  const human = (await runCli(['task', 'list', '--limit', '50'], env())).stdout;
  expect(human).toMatch(new RegExp(`${asks}  completed/done  \\d+s ago  Asks first`));
  expect((await runCli(['task', 'list', '--status', 'sleeping'], env())).stderr).toContain('--status sleeping is not a task status');

  const cancelled = await runCli(['task', 'cancel', waits, '--wait'], env());
  expect(cancelled.stdout).toBe(`${waits} is cancelled\n`);

  const before = harness.fake.requests.length;
  const retried = JSON.parse((await runCli(['task', 'retry', asks, '--json'], env())).stdout) as { workflowId: string; answers: number };
  expect(retried).toMatchObject({ workflowId: expect.stringMatching(new RegExp(`^${asks}-retry-[0-9a-f]{8}$`)), answers: 1 });
  expect(await startedWith(retried.workflowId)).toMatchObject({ answers: [{ question: 'Which region?', answer: 'eu-west-1' }] });
  await harness.fake.waitForRequests(before + 1);
  const system = JSON.stringify(harness.fake.requests[before].body.system);
  expect(system).toContain('Q: Which region?\\nA: eu-west-1');
  await handleOf(retried.workflowId)
    .terminate('the script has no more turns for it')
    .catch(() => undefined);
});
