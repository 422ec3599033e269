import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { gitUser, makeGitRepo } from '../support/workspace.js';

const harness = useTaskHarness('task-git-cli');
const env = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue, ...gitUser('you') });
const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** A repository with a bare `origin` beside it. */
function repoWithOrigin(): { repo: string; origin: string } {
  const repo = makeGitRepo({ 'README.md': '# app\n' });
  const origin = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-origin-')), 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', origin]);
  git(repo, 'remote', 'add', 'origin', origin);
  return { repo, origin };
}

test('task diff, rollback, apply (refused while the checkout is dirty) and push act on the task branch', async () => {
  harness.fake.setResponder(
    byTask({
      'Two steps': byTurn([
        { toolCalls: [{ name: 'create_file', input: { path: 'notes.txt', content: 'first\n' } }] },
        { toolCalls: [{ name: 'edit_file', input: { path: 'notes.txt', edits: [{ search: 'first', replace: 'first\nsecond' }] } }] },
        { text: 'Wrote the notes.' },
      ]),
    }),
  );
  const { repo, origin } = repoWithOrigin();
  const started = await runCli(['task', 'start', 'Write notes', '--title', 'Two steps', '--workspace', repo, '--json'], env());
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  const result = (await harness.temporal.client.workflow.getHandle(workflowId).result()) as TaskResult;
  const branch = result.git!.branch;

  const status = await runCli(['task', 'status', workflowId], env());
  expect(status.stdout).toContain(`branch: ${branch} from ${result.git!.base.slice(0, 12)} · 3 commits · 1 file changed, 2 insertions(+)`);
  const diff = await runCli(['task', 'diff', workflowId], env());
  expect(diff.stdout).toContain('+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+first\n+second');
  expect((await runCli(['task', 'diff', workflowId, '--stat'], env())).stdout).toContain('notes.txt | 2 ++');

  const unknown = await runCli(['task', 'rollback', workflowId, '--to', '9'], env());
  expect(unknown.stderr).toContain('has no checkpoint for iteration 9; its checkpoints: 1, 2');
  expect((await runCli(['task', 'rollback', workflowId, '--to', '1'], env())).stdout).toContain(`${branch} now at iteration 1`);
  expect(git(repo, 'show', `${branch}:notes.txt`)).toBe('first');

  writeFileSync(path.join(repo, 'README.md'), '# app, edited\n');
  const dirty = await runCli(['task', 'apply', workflowId], env());
  expect(dirty.code).toBe(1);
  expect(dirty.stderr).toContain('has uncommitted changes (1 files); commit or stash them first');
  git(repo, 'checkout', 'README.md');
  const applied = await runCli(['task', 'apply', workflowId], env());
  expect(applied.stdout).toContain(`merged ${branch} into main`);
  expect(readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toBe('first\n');
  expect(git(repo, 'log', '-1', '--format=%s')).toBe(`Merge codeloop task ${workflowId}: Two steps`);

  expect((await runCli(['task', 'push', workflowId, '--remote', 'origin'], env())).stdout).toContain(`pushed ${branch} to origin`);
  expect(git(origin, 'rev-parse', branch)).toBe(git(repo, 'rev-parse', branch));
});

test('batch push pushes the integration branch', async () => {
  harness.fake.setResponder(
    byTask({
      'Only task': byTurn([{ toolCalls: [{ name: 'create_file', input: { path: 'only.txt', content: 'x\n' } }] }, { text: 'done' }]),
    }),
  );
  const { repo, origin } = repoWithOrigin();
  const batchId = uniqueName('push');
  const handle = await harness.temporal.client.workflow.start('batchConductorWorkflow', {
    args: [{ workspace: repo, tasks: [{ id: 'only', title: 'Only task', description: 'x' }] }],
    taskQueue: harness.taskQueue,
    workflowId: batchId,
  });
  const batch = (await handle.result()) as BatchResult;
  const pushed = await runCli(['batch', 'push', batchId, '--remote', 'origin'], env());
  expect(pushed.stdout).toContain(`pushed ${batch.integrationBranch} to origin from ${repo}`);
  expect(git(origin, 'show', `${batch.integrationBranch}:only.txt`)).toBe('x');
});
