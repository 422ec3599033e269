import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { cutTaskWorktrees, prepareBatchRepo, removeWorktrees } from '../../../src/activities/git/batch-repo.js';
import { tryGit } from '../../../src/activities/git/run-git.js';
import { makeGitRepo } from '../../support/workspace.js';

test('with CODELOOP_WORKTREES_DIR, two repositories of one batch get integration worktrees of their own', async () => {
  const worktreesDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-worktrees-'));
  const [first, second] = [makeGitRepo(), makeGitRepo()];
  const a = await prepareBatchRepo({ repo: first, batchId: 'nightly' }, worktreesDir);
  const b = await prepareBatchRepo({ repo: second, batchId: 'nightly' }, worktreesDir);
  expect(a.integrationPath).not.toBe(b.integrationPath);
  for (const prepared of [a, b]) expect(prepared.integrationPath.startsWith(`${worktreesDir}/`)).toBe(true);
  // Each worktree is its own repository's: the same directory name, a different hash of the path.
  expect(path.basename(path.dirname(path.dirname(a.integrationPath)))).toMatch(new RegExp(`^${path.basename(first)}-[0-9a-f]{8}$`));
});

test('worktrees cut and removed on one repository at the same time all succeed', async () => {
  const repo = makeGitRepo();
  await prepareBatchRepo({ repo, batchId: 'race' });
  const ids = (round: number) => Array.from({ length: 16 }, (_, index) => `r${round}-${index}`);
  let previous = await cutTaskWorktrees(repo, 'race', ids(0));
  // Each round cuts 16 worktrees one by one while the last round's 16 are removed and pruned: git's own commands,
  // run side by side, meet each other's entries under .git/worktrees half-written or half-deleted.
  for (let round = 1; round <= 6; round++) {
    const cuts = ids(round).map((id) => cutTaskWorktrees(repo, 'race', [id]));
    const removals = previous.map((worktree) => removeWorktrees(repo, [worktree.path]));
    const steps = await Promise.allSettled([...cuts, ...removals]);
    expect(steps.filter((step) => step.status === 'rejected')).toEqual([]);
    previous = (await Promise.all(cuts)).flat();
  }
  const listed = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
  // The checkout, the integration worktree and the last round's 16.
  expect(listed.match(/^worktree /gm)).toHaveLength(18);
});

test("git's worktree commands on one repository never overlap: adds next to removes and prunes all succeed at the first try", async () => {
  const repo = makeGitRepo();
  const where = (name: string) => path.join(`${repo}-trees`, name);
  const add = (name: string) => tryGit(repo, ['worktree', 'add', '-q', '-B', name, where(name), 'HEAD']);
  const removeAndPrune = async (name: string) => {
    const removed = await tryGit(repo, ['worktree', 'remove', '--force', where(name)]);
    return removed.ok ? tryGit(repo, ['worktree', 'prune']) : removed;
  };
  const names = (round: number) => Array.from({ length: 16 }, (_, index) => `r${round}-${index}`);
  for (const name of names(0)) expect((await add(name)).ok).toBe(true);
  for (let round = 1; round <= 4; round++) {
    const runs = await Promise.all([...names(round).map(add), ...names(round - 1).map(removeAndPrune)]);
    expect(runs.filter((run) => !run.ok).map((run) => run.stderr)).toEqual([]);
  }
});
