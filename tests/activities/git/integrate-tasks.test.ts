import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { branchFor, cutTaskWorktrees, prepareBatchRepo } from '../../../src/activities/git/batch-repo.js';
import { integrateTasks, type IntegrateTasksRequest } from '../../../src/activities/git/integrate-tasks.js';
import { makeGitRepo } from '../../support/workspace.js';

/** A batch repository with tasks `ids` cut, each having written a file of its own. */
async function batchWith(ids: string[]) {
  const repo = makeGitRepo();
  const { integrationPath } = await prepareBatchRepo({ repo, batchId: 'b' });
  const worktrees = await cutTaskWorktrees(repo, 'b', ids);
  for (const worktree of worktrees) writeFileSync(path.join(worktree.path, `${worktree.taskId}.txt`), `${worktree.taskId}\n`);
  const request = (taskIds: string[], prepare: IntegrateTasksRequest['prepare']): IntegrateTasksRequest => ({
    repo,
    batchId: 'b',
    integrationPath,
    tasks: taskIds.map((taskId) => ({
      taskId,
      worktree: worktrees.find((worktree) => worktree.taskId === taskId)!.path,
      branch: branchFor('b', taskId),
      commitMessage: taskId,
      mergeMessage: `Merge ${taskId}`,
    })),
    prepare,
  });
  return { repo, integrationPath, request };
}

test('two merges asked for at once take turns, and the second cuts a dependent of both once both are in', async () => {
  const { integrationPath, request } = await batchWith(['a', 'b']);
  const [first, second] = await Promise.all([
    integrateTasks(request(['a'], [])),
    integrateTasks(request(['b'], [{ taskId: 'd', after: ['a', 'b'] }])),
  ]);
  expect(first).toMatchObject({ merged: ['a'], conflicts: [] });
  expect(second).toMatchObject({ merged: ['b'], conflicts: [] });
  expect(second.prepared.map(({ taskId }) => taskId)).toEqual(['d']);
  // d's worktree holds the work of both.
  const d = second.prepared[0].path;
  expect(execFileSync('ls', [d], { encoding: 'utf8' })).toMatch(/a\.txt[\s\S]*b\.txt/);
  expect(execFileSync('git', ['log', '--format=%s', 'HEAD'], { cwd: integrationPath, encoding: 'utf8' })).toMatch(
    /Merge [ab]\n[\s\S]*Merge [ab]\n/,
  );
});

test('a dependent waiting on a task no merge has brought in yet is not cut', async () => {
  const { request } = await batchWith(['a', 'b']);
  const result = await integrateTasks(request(['b'], [{ taskId: 'd', after: ['a', 'b'] }]));
  expect(result).toMatchObject({ merged: ['b'], prepared: [] });
});
