import { expect, test } from 'vitest';
import type { OpenBlockerRow } from '../../src/client/blockers-list.js';
import { waitForBlockers } from '../support/blockers.js';
import { runCli, runCliProcess } from '../support/cli.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';
import { eventually } from '../support/polling.js';

const harness = useTaskHarness('cli');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue, CODELOOP_UI_URL: 'https://temporal.example.com/' });

test('task start, blockers list, blockers answer, task status and result, all with --json', async () => {
  harness.fake.enqueue(
    { toolCalls: [{ name: 'raise_blocker', input: { question: 'Keep the old flag?' } }] },
    { text: 'Kept the old flag.' },
  );
  const workspace = makeWorkspace({ 'a.txt': 'a' });
  const started = await runCliProcess(
    ['task', 'start', '--workspace', workspace, '--title', 'Flag cleanup', 'Remove unused flags', '--json'],
    env(),
  );
  expect(started.code).toBe(0);
  const { workflowId, url } = JSON.parse(started.stdout) as { workflowId: string; url: string };
  expect(workflowId).toMatch(/^task-flag-cleanup-[0-9a-f]{8}$/);
  expect(url).toBe(`https://temporal.example.com/namespaces/default/workflows/${workflowId}`);

  await waitForBlockers(harness.temporal.client.workflow.getHandle(workflowId));
  const listMine = async () => {
    const listed = await runCli(['blockers', 'list', '--json'], env());
    expect(listed.code).toBe(0);
    return (JSON.parse(listed.stdout) as OpenBlockerRow[]).filter((row) => row.workflowId === workflowId);
  };
  const mine = await eventually(listMine, (rows) => rows.length > 0, 'blockers list never showed the task', {
    timeoutMs: 10_000,
    intervalMs: 200,
  });
  expect(mine).toMatchObject([{ blockerId: 'b1', question: 'Keep the old flag?', origin: 'agent', workflowType: 'agentTaskWorkflow' }]);
  expect(mine[0].ageMs).toBeGreaterThanOrEqual(0);

  const human = await runCli(['blockers', 'list'], env());
  expect(human.stdout).toContain(`${workflowId}  b1  `);
  // The list covers this task queue only, where this task's is the one open blocker.
  expect(human.stdout).toMatch(/^1 open blocker /);
  expect(human.stdout).toContain(`\nanswer with: npx codeloop blockers answer ${workflowId} --blocker b1 "your answer"\n`);
  const elsewhere = await runCli(['blockers', 'list', '--json'], { CODELOOP_TASK_QUEUE: `${harness.taskQueue}-elsewhere` });
  expect(JSON.parse(elsewhere.stdout)).toEqual([]);

  const rejected = await runCli(['blockers', 'answer', workflowId, '--blocker', 'b9', 'yes'], env());
  expect(rejected.code).toBe(1);
  expect(rejected.stderr).toContain('codeloop: answer rejected: no blocker b9; open: b1');

  const answered = await runCli(['blockers', 'answer', workflowId, 'yes, keep it', '--json'], env());
  expect(answered.code).toBe(0);
  expect(JSON.parse(answered.stdout)).toMatchObject({
    via: 'update',
    blockerId: 'b1',
    question: 'Keep the old flag?',
    answer: 'yes, keep it',
  });

  const result = await runCliProcess(['task', 'result', workflowId, '--wait', '--json'], env());
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({
    execution: 'COMPLETED',
    result: { status: 'completed', summary: 'Kept the old flag.' },
  });

  const status = await runCli(['task', 'status', workflowId], env());
  expect(status.stdout).toContain(`${workflowId}  [completed]`);
  expect(status.stdout).toContain('summary: Kept the old flag.');
}, 120_000);

test('bad input is a usage error naming the field; an unknown id is a clear error', async () => {
  const bad = await runCli(['task', 'start', '--workspace', '/tmp/project', '--max-iterations', '0', 'x'], env());
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('invalid task input: maxIterations:');
  const missing = await runCli(['task', 'status', 'no-such-task'], env());
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('codeloop: no task with workflow id no-such-task');
});
