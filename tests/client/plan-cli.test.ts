import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { Report } from '../../src/client/report.js';
import type { PlanStateSnapshot } from '../../src/shared/plan-state.js';
import { runCli } from '../support/cli.js';
import { byTurn } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('plan-cli');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue });

const task = (id: string, dependsOn: string[]) => ({
  id,
  title: `Build ${id}`,
  description: `Implement ${id}.`,
  dependsOn,
  complexity: 1,
  acceptance: [`${id} passes its tests`],
  files: [`${id}.py`],
});

test('codeloop plan prints the plan for review; blockers answer approves it; plan show names the plan file', async () => {
  harness.fake.setResponder(
    byTurn([{ toolCalls: [{ name: 'submit_plan', input: { tasks: [task('core', []), task('cli', ['core'])] } }] }]),
  );
  const repo = makeGitRepo();
  const prd = path.join(path.dirname(repo), `${path.basename(repo)}-prd.md`);
  writeFileSync(prd, '# Tool\nA core library and a CLI over it.\n');

  const planned = await runCli(['plan', prd, '--workspace', repo, '--id', `${harness.taskQueue}-p1`], env());
  expect(planned.code).toBe(0);
  expect(planned.stdout).toContain('- core: Build core (complexity 1)\n  - cli: Build cli (complexity 1)');
  expect(planned.stdout).toContain(`approve: npx codeloop blockers answer ${harness.taskQueue}-p1 approve`);

  const approved = await runCli(['blockers', 'answer', `${harness.taskQueue}-p1`, 'approve'], env());
  expect(approved.code).toBe(0);

  const shown = (await eventually(
    async () => JSON.parse((await runCli(['plan', 'show', `${harness.taskQueue}-p1`, '--json'], env())).stdout) as PlanStateSnapshot,
    (state) => state.status === 'completed',
    'the approved plan never completed',
  ))!;
  expect(shown.planFile).toBe(`codeloop/plans/${shown.planId}.yaml`);
  expect(existsSync(path.join(repo, shown.planFile!))).toBe(true);
  const human = await runCli(['plan', 'show', `${harness.taskQueue}-p1`], env());
  expect(human.stdout).toContain(`plan file: ${shown.planFile}`);

  const report = JSON.parse((await runCli(['report', '--since', '1h', '--json'], env())).stdout) as Report;
  const row = report.rows.find((candidate) => candidate.workflowId === `${harness.taskQueue}-p1`);
  expect(row).toMatchObject({ kind: 'plan', status: 'completed', summary: `2 tasks in ${shown.planFile}` });
  expect(row!.spendByPurpose?.planning?.calls).toBe(1);
  expect((await runCli(['report', '--since', '1h'], env())).stdout).toContain(`plans:\n`);
});

test('codeloop plan names what is wrong before starting anything', async () => {
  const missing = await runCli(['plan', '/nonexistent/prd.md', '--workspace', makeGitRepo()], env());
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('cannot read the PRD /nonexistent/prd.md: no such file');
  const noWorkspace = await runCli(['plan', 'prd.md'], env());
  expect(noWorkspace.code).toBe(2);
  expect(noWorkspace.stderr).toContain("required option '--workspace <dir>' not specified");
  const notAPlan = await runCli(['plan', 'show', 'no-such-plan-workflow'], env());
  expect(notAPlan.code).toBe(1);
  expect(notAPlan.stderr).toContain('no-such-plan-workflow is not a plan');
});
