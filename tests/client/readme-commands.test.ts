import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { fillIn, readmeBlocks, readmeCommand, readmeShellBlock, runShell } from '../support/readme.js';
import { scheduledRuns as scheduledRunsOf } from '../support/schedules.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, gitUser, makeGitRepo, makeWorkspace } from '../support/workspace.js';

/**
 * The README's commands, taken from README.md and run with bash as written. Only placeholders change: paths, ids,
 * and the task queue (`codeloop` becomes this file's own queue on the shared test server).
 */
const harness = useTaskHarness('readme');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue, ...gitUser('operator') });
const onOurQueue: [string, string] = ['--task-queue codeloop', `--task-queue ${harness.taskQueue}`];

/** The batches a schedule started, once the first shows in visibility. */
const scheduledRuns = (scheduleId: string) =>
  eventually(
    () => scheduledRunsOf(harness.temporal.client, scheduleId),
    (ids) => ids.length > 0,
    `schedule ${scheduleId} started no run`,
  );

/** The tasks both README batches name, each creating one file. */
const readmeTasks = () =>
  byTask({
    'Task model': byTurn([
      { toolCalls: [{ name: 'create_file', input: { path: 'task.py', content: 'TASK = 1\n' } }] },
      { text: 'model done' },
    ]),
    'CLI commands': byTurn([
      { toolCalls: [{ name: 'create_file', input: { path: 'cli.py', content: 'CLI = 1\n' } }] },
      { text: 'cli done' },
    ]),
  });

/** A git repository at `<tmp>/my-repo`, the name the README uses. */
function myRepo(): string {
  const repo = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-readme-')), 'my-repo');
  renameSync(makeGitRepo(), repo);
  return repo;
}

const result = (workflowId: string) => harness.temporal.client.workflow.getHandle(workflowId).result() as Promise<BatchResult>;

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
  const started = await runShell(`${fillIn(start, [['batch.yaml', batchFile]])} --json`, env());
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

test("the README's planning commands: codeloop plan, the approval, plan show, and planWorkflow from temporal with start", async () => {
  const planned = (id: string, title: string, dependsOn: string[]) => ({
    id,
    title,
    description: `${title}, as the PRD says`,
    dependsOn,
    complexity: 2,
    acceptance: [`${title} works`],
    files: [],
  });
  const plan = [planned('model', 'Task model', []), planned('cli', 'CLI commands', ['model'])];
  const planner = (request: Parameters<ReturnType<typeof byTurn>>[0]) =>
    byTurn([{ toolCalls: [{ name: 'submit_plan', input: { tasks: plan } }] }])(request);
  const tasks = readmeTasks();
  harness.fake.setResponder((request) =>
    (request.body.tools ?? []).some((tool) => tool.name === 'submit_plan') ? planner(request) : tasks(request),
  );
  const repo = myRepo();
  const dir = path.dirname(repo);
  writeFileSync(path.join(dir, 'prd.md'), '# Tracker\nA task model and a CLI.\n');

  const planLine = readmeCommand('npx codeloop plan prd.md')
    .replace(/\s+#.*$/, '')
    .replace(/ \[[^\]]*\]/g, '');
  const id = uniqueName('readme-plan');
  const printed = await runShell(
    `${fillIn(planLine, [
      ['prd.md', path.join(dir, 'prd.md')],
      ['./my-repo', repo],
    ])} --id ${id}`,
    env(),
  );
  expect(printed.stdout).toContain('- model: Task model (complexity 2)\n  - cli: CLI commands (complexity 2)');
  await runShell(
    fillIn(readmeCommand('npx codeloop blockers answer <plan-workflow-id> approve').replace(/\s+#.*$/, ''), [['<plan-workflow-id>', id]]),
    env(),
  );
  const approved = (await harness.temporal.client.workflow.getHandle(id).result()) as { planFile: string };
  const shown = await runShell(fillIn(readmeCommand('npx codeloop plan show').replace(/\s+#.*$/, ''), [['<plan-workflow-id>', id]]), env());
  expect(shown.stdout).toContain(`plan file: ${approved.planFile}`);
  const fromFile = await runShell(`npx codeloop batch start ${path.join(repo, approved.planFile)} --json`, env());
  const { workflowId } = JSON.parse(fromFile.stdout) as { workflowId: string };
  expect((await result(workflowId)).status).toBe('completed');

  const raw = myRepo();
  mkdirSync(path.join(raw, 'docs'));
  writeFileSync(path.join(raw, 'docs', 'prd.md'), '# Tracker\nA task model and a CLI.\n');
  const rawId = uniqueName('my-plan');
  await runShell(
    fillIn(readmeCommand('temporal workflow start --type planWorkflow'), [onOurQueue, ['/abs/path/my-repo', raw], ['my-plan', rawId]]),
  );
  const rawPlan = harness.temporal.client.workflow.getHandle(rawId);
  await waitForBlockers(rawPlan);
  await runShell(`npx codeloop blockers answer ${rawId} approve`, env());
  const { batchWorkflowId } = (await rawPlan.result()) as { batchWorkflowId: string };
  const batch = await result(batchWorkflowId);
  expect(batch.status).toBe('completed');
  expect(fileOnBranch(raw, batch.integrationBranch!, 'cli.py')).toBe('CLI = 1\n');
}, 180_000);

test("the README's git trail commands: task diff, rollback, apply, push and batch push, as written", async () => {
  harness.fake.setResponder(
    byTask({
      'Task model': byTurn([
        { toolCalls: [{ name: 'create_file', input: { path: 'task.py', content: 'TASK = 1\n' } }] },
        { toolCalls: [{ name: 'edit_file', input: { path: 'task.py', edits: [{ search: 'TASK = 1', replace: 'TASK = 2' }] } }] },
        { toolCalls: [{ name: 'edit_file', input: { path: 'task.py', edits: [{ search: 'TASK = 2', replace: 'TASK = 3' }] } }] },
        { text: 'model done' },
      ]),
    }),
  );
  const repo = myRepo();
  const origin = path.join(path.dirname(repo), 'origin.git');
  await runShell(`git init -q --bare ${origin} && git -C ${repo} remote add origin ${origin}`);
  const id = uniqueName('readme-trail');
  await runShell(`npx codeloop task start --workspace ${repo} --title "Task model" "Add the task model" --id ${id}`, env());
  await harness.temporal.client.workflow.getHandle(id).result();
  const line = (prefix: string, names: [string, string][] = [['<workflow-id>', id]]) =>
    fillIn(readmeCommand(prefix).replace(/\s+#.*$/, ''), names);

  expect((await runShell(line('npx codeloop task diff').replace(' [--stat]', ''), env())).stdout).toContain('+TASK = 3');
  expect((await runShell(line('npx codeloop task rollback'), env())).stdout).toContain('now at iteration 3');
  expect((await runShell(`cd ${repo} && git show codeloop/task/${id}:task.py`)).stdout).toBe('TASK = 3\n');
  await runShell(line('npx codeloop task apply'), env());
  expect(readFileSync(path.join(repo, 'task.py'), 'utf8')).toBe('TASK = 3\n');
  await runShell(fillIn(line('npx codeloop task push'), [['origin', origin]]), env());
  expect((await runShell(`git -C ${origin} rev-parse --verify codeloop/task/${id}`)).stdout.trim()).toMatch(/^[0-9a-f]{40}$/);

  harness.fake.setResponder(readmeTasks());
  const batchId = uniqueName('readme-push');
  await runShell(
    fillIn(readmeCommand('temporal workflow start --type batchConductorWorkflow'), [
      onOurQueue,
      ['/abs/path/my-repo', repo],
      ['my-batch', batchId],
    ]),
  );
  const batch = await result(batchId);
  await runShell(
    line('npx codeloop batch push', [
      ['<batch-id>', batchId],
      ['origin', origin],
    ]),
    env(),
  );
  expect((await runShell(`git -C ${origin} rev-parse --verify ${batch.integrationBranch}`)).stdout.trim()).toMatch(/^[0-9a-f]{40}$/);
}, 180_000);
