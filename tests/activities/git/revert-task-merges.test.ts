import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { branchFor, cutTaskWorktrees, prepareBatchRepo } from '../../../src/activities/git/batch-repo.js';
import { integrateTasks } from '../../../src/activities/git/integrate-tasks.js';
import { revertTaskMerges } from '../../../src/activities/git/revert-task-merges.js';
import { fileOnBranch, makeGitRepo } from '../../support/workspace.js';
import { execFileSync } from 'node:child_process';

/** A batch repository where each `write` is one task's attempt: its worktree cut from the integration tip, then merged. */
async function batchRepo() {
  const repo = makeGitRepo();
  const { integrationPath, baseRef } = await prepareBatchRepo({ repo, batchId: 'b' });
  const attempt = async (taskId: string, files: Record<string, string>) => {
    const [worktree] = await cutTaskWorktrees(repo, 'b', [taskId]);
    for (const [file, content] of Object.entries(files)) writeFileSync(path.join(worktree.path, file), content);
    const branch = branchFor('b', taskId);
    const title = `Task ${taskId}`;
    const task = { taskId, worktree: worktree.path, branch, commitMessage: title, mergeMessage: `Merge ${taskId}: ${title}` };
    const result = await integrateTasks({ repo, batchId: 'b', integrationPath, tasks: [task], prepare: [] });
    expect(result.merged).toEqual([taskId]);
  };
  const revert = (taskId: string, base = baseRef) =>
    revertTaskMerges({
      integrationPath,
      branch: branchFor('b', taskId),
      mergeSubject: `Merge ${taskId}: `,
      message: `Revert ${taskId}`,
      base,
    });
  const onIntegration = (file: string) => fileOnBranch(repo, branchFor('b', 'integration'), file);
  const head = () => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: integrationPath, encoding: 'utf8' }).trim();
  return { attempt, revert, onIntegration, head };
}

test("a failed task's merges, its correction round's too, come out of the integration branch; the others' stay", async () => {
  const { attempt, revert, onIntegration } = await batchRepo();
  await attempt('a', { 'a.txt': 'a\n' });
  await attempt('w', { 'w.txt': 'w one\n' });
  await attempt('z', { 'z.txt': 'z\n' });
  // The correction round: w's branch cut again from the integration tip, which holds a's, w's and z's merges.
  await attempt('w', { 'w.txt': 'w two\n', 'w2.txt': 'more\n' });
  const result = await revert('w');
  expect(result.failed).toBeUndefined();
  expect(result.reverted).toHaveLength(2);
  expect([onIntegration('a.txt'), onIntegration('z.txt')]).toEqual(['a\n', 'z\n']);
  expect([onIntegration('w.txt'), onIntegration('w2.txt')]).toEqual([undefined, undefined]);
  // Asked again (a retried activity), it finds nothing left to take back, whether it reads from the base or, the base
  // gone, the whole history.
  expect(await revert('w')).toEqual({ reverted: [] });
  expect(await revert('w', 'no-such-branch')).toEqual({ reverted: [] });
});

test('with its base gone, the whole history is read: the merges are still found', async () => {
  const { attempt, revert, onIntegration } = await batchRepo();
  await attempt('w', { 'w.txt': 'w\n' });
  expect((await revert('w', 'no-such-branch')).reverted).toHaveLength(1);
  expect(onIntegration('w.txt')).toBeUndefined();
});

test('a revert that conflicts with a later merge leaves the integration branch as it was, and says so', async () => {
  const { attempt, revert, onIntegration, head } = await batchRepo();
  await attempt('w', { 'shared.txt': 'from w\n' });
  await attempt('later', { 'shared.txt': 'from w\nand later\n' });
  const before = head();
  const result = await revert('w');
  expect(result.reverted).toEqual([]);
  expect(result.failed).toMatch(/^reverting [0-9a-f]{12} conflicts with what merged after it$/);
  expect(head()).toBe(before);
  expect(onIntegration('shared.txt')).toBe('from w\nand later\n');
});
