import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject, test } from 'vitest';
import type { BatchView } from '../../src/client/batch-view.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

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
    'workflow', 'start', '--type', 'batchConductorWorkflow', '--task-queue', harness.taskQueue,
    '--workflow-id', workflowId, '--input', JSON.stringify(input), '--address', inject('temporalAddress'),
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
  for (let attempt = 0; attempt < 100; attempt++) {
    const running = await child.describe().then((d) => d.searchAttributes.CodeloopStatus?.[0]).catch(() => undefined);
    if (running === 'blocked') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const cancelled = await runCli(['batch', 'cancel', workflowId, '--wait', '--json'], env());
  expect(JSON.parse(cancelled.stdout)).toMatchObject({ execution: 'CANCELLED' });
  expect((await child.describe()).status.name).toBe('CANCELLED');

  writeFileSync(file, JSON.stringify({ workspace: repo, tasks: [{ id: 'a', title: 'A', description: 'x', dependsOn: ['b'] }, { id: 'b', title: 'B', description: 'y', dependsOn: ['a'] }] }));
  const invalid = await runCli(['batch', 'start', file], env());
  expect(invalid.code).toBe(2);
  expect(invalid.stderr).toContain('invalid batch: cycle: ');
}, 120_000);
