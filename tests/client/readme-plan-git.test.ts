import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { fillIn, readmeCommand, runShell } from '../support/readme.js';
import { myRepo, readmeTasks, useReadmeHarness } from '../support/readme-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch } from '../support/workspace.js';

/** The README's planning and git trail commands, run with bash as written (see readme-commands.test.ts). */
const { harness, env, onOurQueue: ourQueue, result } = useReadmeHarness('readme-plan-git');
const onOurQueue = ourQueue();

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
