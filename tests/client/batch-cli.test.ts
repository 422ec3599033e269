import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject, test } from 'vitest';
import type { BatchView } from '../../src/client/batch-view.js';
import type { OpenBlockerRow } from '../../src/client/blockers-list.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn, type Responder } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';
import { eventually, eventuallyStatus } from '../support/polling.js';

const harness = useTaskHarness('batch-cli');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });

const batchYaml = `# two tasks, the second after the first
workspace: ./repo
maxParallel: 1
tasks:
  - id: greet
    title: Greeting
    description: Create hello.txt
  - id: farewell
    title: Farewell
    description: Create bye.txt
    dependsOn: [greet]
`;

const scripts = () =>
  byTask({
    Greeting: byTurn([{ toolCalls: [{ name: 'create_file', input: { path: 'hello.txt', content: 'hello\n' } }] }, { text: 'done' }]),
    Farewell: byTurn([{ toolCalls: [{ name: 'create_file', input: { path: 'bye.txt', content: 'bye\n' } }] }, { text: 'done' }]),
    Stuck: byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Anyone?' } }] }]),
  });

test('batch start, follow and status from a YAML file with a relative workspace', async () => {
  harness.fake.setResponder(scripts());
  const repo = makeGitRepo();
  const dir = path.dirname(repo);
  const file = path.join(dir, `${path.basename(repo)}.yaml`);
  writeFileSync(file, batchYaml.replace('./repo', `./${path.basename(repo)}`));

  const started = await runCli(['batch', 'start', file, '--max-parallel', '2', '--json'], env());
  expect(started.stderr).toBe('');
  const { workflowId, tasks } = JSON.parse(started.stdout) as { workflowId: string; tasks: number };
  expect(tasks).toBe(2);

  const followed = await runCli(['batch', 'follow', workflowId], env());
  expect(followed.code).toBe(0);
  expect(followed.stderr).toContain('greet completed');
  expect(followed.stderr).toContain('farewell completed');
  expect(followed.stdout).toContain('✓ greet');
  expect(followed.stdout).toContain('(after greet)');
  expect(followed.stdout).toContain('critical path: greet → farewell');

  const status = JSON.parse((await runCli(['batch', 'status', workflowId, '--json'], env())).stdout) as BatchView;
  expect(status.execution).toBe('COMPLETED');
  expect(status.state?.maxParallel).toBe(2);
  expect(status.result?.status).toBe('completed');
  expect(fileOnBranch(repo, status.result!.integrationBranch!, 'bye.txt')).toBe('bye\n');
}, 120_000);

test('the same batch input runs with `temporal workflow start`', async () => {
  harness.fake.setResponder(scripts());
  const repo = makeGitRepo();
  const input = { workspace: repo, tasks: [{ id: 'greet', title: 'Greeting', description: 'Create hello.txt' }] };
  const workflowId = uniqueName('temporal-batch');
  await promisify(execFile)(findTemporalBinary()!, [
    'workflow',
    'start',
    '--type',
    'batchConductorWorkflow',
    '--task-queue',
    harness.taskQueue,
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify(input),
    '--address',
    inject('temporalAddress'),
  ]);
  const result = (await harness.temporal.client.workflow.getHandle(workflowId).result()) as BatchResult;
  expect(result.status).toBe('completed');
  expect(fileOnBranch(repo, result.integrationBranch!, 'hello.txt')).toBe('hello\n');
}, 120_000);

test('batch cancel cancels the running task; an invalid DAG never starts', async () => {
  harness.fake.setResponder(scripts());
  const repo = makeGitRepo();
  const file = path.join(path.dirname(repo), `${path.basename(repo)}-stuck.json`);
  writeFileSync(file, JSON.stringify({ workspace: repo, tasks: [{ id: 'stuck', title: 'Stuck', description: 'wait' }] }));
  const { workflowId } = JSON.parse((await runCli(['batch', 'start', file, '--json'], env())).stdout) as { workflowId: string };
  const child = harness.temporal.client.workflow.getHandle(`${workflowId}/stuck`);
  await eventuallyStatus(child, 'blocked', 'the batch child never showed CodeloopStatus blocked', { timeoutMs: 30_000, intervalMs: 200 });
  const cancelled = await runCli(['batch', 'cancel', workflowId, '--wait', '--json'], env());
  expect(JSON.parse(cancelled.stdout)).toMatchObject({ execution: 'CANCELLED' });
  expect((await child.describe()).status.name).toBe('CANCELLED');

  writeFileSync(
    file,
    JSON.stringify({
      workspace: repo,
      tasks: [
        { id: 'a', title: 'A', description: 'x', dependsOn: ['b'] },
        { id: 'b', title: 'B', description: 'y', dependsOn: ['a'] },
      ],
    }),
  );
  const invalid = await runCli(['batch', 'start', file], env());
  expect(invalid.code).toBe(2);
  expect(invalid.stderr).toContain('invalid batch: cycle: ');
}, 120_000);

const editValue = (to: string): Responder =>
  byTurn([
    { toolCalls: [{ name: 'edit_file', input: { path: 'value.txt', edits: [{ search: 'value = 1', replace: `value = ${to}` }] } }] },
    { text: 'done' },
  ]);

/** `blockers list --json`, polled until `wanted` rows are there (visibility lags the workflows a little). */
async function listBlockersUntil(wanted: (rows: OpenBlockerRow[]) => boolean): Promise<OpenBlockerRow[]> {
  const list = async () => {
    const listed = await runCli(['blockers', 'list', '--json'], env());
    expect(listed.code).toBe(0);
    return JSON.parse(listed.stdout) as OpenBlockerRow[];
  };
  return eventually(list, wanted, 'blockers list never showed them', { timeoutMs: 30_000, intervalMs: 300 });
}

test("blockers list shows a blocked batch child and the batch's own question (a model outage); blockers answer reaches each", async () => {
  // The model API is down for `two` (529, with a short retry-after) until the batch's question is answered.
  const api = { down: true };
  const setTwo = editValue('2');
  harness.fake.setResponder(
    byTask({
      'Pick a port': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: 'Which port?' } }] }, { text: 'done' }]),
      'Set two': (request) =>
        api.down ? { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds: 0.05 } } : setTwo(request),
    }),
  );
  const repo = makeGitRepo({ 'value.txt': 'value = 1\n' });
  const file = path.join(path.dirname(repo), `${path.basename(repo)}-blockers.json`);
  const tasks = [
    { id: 'port', title: 'Pick a port', description: 'choose the port' },
    { id: 'two', title: 'Set two', description: 'value = 2' },
  ];
  writeFileSync(file, JSON.stringify({ workspace: repo, tasks }));
  const { workflowId } = JSON.parse((await runCli(['batch', 'start', file, '--json'], env())).stdout) as { workflowId: string };
  const child = `${workflowId}/port`;

  const rows = await listBlockersUntil(
    (all) => all.some((row) => row.workflowId === child) && all.some((row) => row.workflowId === workflowId),
  );
  expect(rows.filter((row) => row.workflowId === child)).toMatchObject([
    { workflowType: 'agentTaskWorkflow', blockerId: 'b1', origin: 'agent', question: 'Which port?' },
  ]);
  // The task waiting out the outage asks nothing itself: the batch asks for it.
  expect(rows.filter((row) => row.workflowId === `${workflowId}/two`)).toEqual([]);
  const [outage] = rows.filter((row) => row.workflowId === workflowId);
  expect(outage).toMatchObject({ workflowType: 'batchConductorWorkflow', origin: 'model-outage', options: ['retry', 'stop'] });
  expect(outage.question).toMatch(/^The model API kept failing past the retries \(first reported by task two\)/);

  const toChild = await runCli(['blockers', 'answer', child, '8080', '--json'], env());
  expect(toChild.code).toBe(0);
  expect(JSON.parse(toChild.stdout)).toMatchObject({ via: 'update', blockerId: 'b1', question: 'Which port?', answer: '8080' });
  api.down = false;
  const toBatch = await runCli(['blockers', 'answer', workflowId, 'retry', '--json'], env());
  expect(toBatch.code).toBe(0);
  expect(JSON.parse(toBatch.stdout)).toMatchObject({ via: 'update', blockerId: outage.blockerId, answer: 'retry' });

  const result = (await harness.temporal.client.workflow.getHandle(workflowId).result()) as BatchResult;
  expect(Object.fromEntries(result.tasks.map((task) => [task.id, task.status]))).toEqual({ port: 'completed', two: 'completed' });
  expect(fileOnBranch(repo, result.integrationBranch!, 'value.txt')).toBe('value = 2\n');
}, 120_000);

test('batch start --on-failure overrides the file; batch follow --json prints the final view and exits 1 on failure', async () => {
  harness.fake.setResponder(
    byTask({
      Broken: () => ({ error: { status: 400, type: 'invalid_request_error', message: 'this task cannot be done' } }),
      Greeting: scripts(),
    }),
  );
  const repo = makeGitRepo();
  const file = path.join(path.dirname(repo), `${path.basename(repo)}-policy.json`);
  const tasks = [
    { id: 'broken', title: 'Broken', description: 'cannot be done' },
    { id: 'greet', title: 'Greeting', description: 'Create hello.txt', dependsOn: ['broken'] },
  ];
  writeFileSync(file, JSON.stringify({ workspace: repo, onFailure: 'skip-dependents', tasks }));
  const started = await runCli(['batch', 'start', file, '--on-failure', 'continue', '--json'], env());
  expect(started.code).toBe(0);
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };

  const followed = await runCli(['batch', 'follow', workflowId, '--json'], env());
  expect(followed.code).toBe(1);
  const view = JSON.parse(followed.stdout) as BatchView;
  expect(view).toMatchObject({ workflowId, execution: 'COMPLETED', state: { onFailure: 'continue' }, result: { status: 'failed' } });
  expect(view.result!.tasks.map((task) => [task.id, task.status])).toEqual([
    ['broken', 'failed'],
    ['greet', 'completed'],
  ]);
  expect(fileOnBranch(repo, view.result!.integrationBranch!, 'hello.txt')).toBe('hello\n');
}, 120_000);
