import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { planGc } from '../../src/client/gc-plan.js';
import { runCli } from '../support/cli.js';
import { startFakeGitHubApi, type FakeGitHubApi } from '../support/fake-github-api.js';
import { makeGitRemote } from '../support/git-remote.js';

const DAY = 86_400_000;
let github: FakeGitHubApi;
beforeAll(async () => {
  github = await startFakeGitHubApi();
});
afterAll(async () => {
  await github?.close();
});

test('the plan: open pull requests and young unmerged work stay, merged and abandoned branches go', () => {
  const now = 100 * DAY;
  const branch = (name: string, ageDays: number, merged: boolean, openPullRequest = false) => ({
    branch: name,
    committedAt: now - ageDays * DAY,
    merged,
    openPullRequest,
  });
  expect(
    planGc([branch('merged', 1, true), branch('old', 20, false), branch('young', 3, false), branch('open', 40, true, true)], 14 * DAY, now),
  ).toEqual({
    remove: [
      { branch: 'merged', why: 'merged' },
      { branch: 'old', why: 'unmerged, untouched for 20 days' },
    ],
    keep: [
      { branch: 'young', why: 'unmerged work from 3 days ago' },
      { branch: 'open', why: 'has an open pull request' },
    ],
  });
});

test('gc --dry-run lists exactly the branches gc then removes, with their worktrees, and nothing else', async () => {
  const remote = makeGitRemote();
  github.bareRepo = remote.bare;
  const repo = remote.checkout;
  const git = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: repo, env: { ...process.env, ...env } })
      .toString()
      .trim();
  const commitOn = (branch: string, daysAgo: number) => {
    git(['checkout', '-q', '-b', branch, 'main']);
    writeFileSync(path.join(repo, `${branch.replaceAll('/', '-')}.txt`), branch);
    git(['add', '-A']);
    const date = new Date(Date.now() - daysAgo * DAY).toISOString();
    git(['commit', '-q', '-m', branch], { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date });
    git(['checkout', '-q', 'main']);
  };
  commitOn('codeloop/b1/merged', 1);
  git(['merge', '-q', '--no-ff', '-m', 'merge', 'codeloop/b1/merged']);
  commitOn('codeloop/b1/abandoned', 30);
  commitOn('codeloop/b2/young', 2);
  commitOn('codeloop/b0/published', 40);
  commitOn('codeloop/task/old-with-tree', 20);
  commitOn('feature/not-ours', 60);
  const tree = path.join(os.tmpdir(), `gc-tree-${process.pid}-${Date.now()}`);
  git(['worktree', 'add', '-q', tree, 'codeloop/task/old-with-tree']);
  git(['push', '-q', 'origin', 'codeloop/b0/published']);
  const opened = await fetch(`${github.url}/repos/acme/app/pulls`, {
    method: 'POST',
    headers: { authorization: `token ${github.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'night', head: 'codeloop/b0/published', base: 'main' }),
  });
  expect(opened.status).toBe(201);
  const env = { GITHUB_TOKEN: github.token, GITHUB_API_URL: github.url };
  const args = ['gc', '--workspace', repo, '--repository', 'acme/app', '--json'];

  const dry = await runCli([...args, '--dry-run'], env);
  expect(dry.stderr).toBe('');
  expect(dry.code).toBe(0);
  const plan = JSON.parse(dry.stdout) as { remove: { branch: string; worktree?: string }[]; keep: { branch: string; why: string }[] };
  const expected = ['codeloop/b1/abandoned', 'codeloop/b1/merged', 'codeloop/task/old-with-tree'];
  expect(plan.remove.map(({ branch }) => branch).sort()).toEqual(expected);
  expect(plan.remove.find(({ branch }) => branch === 'codeloop/task/old-with-tree')?.worktree).toBe(tree);
  expect(plan.keep).toEqual(
    expect.arrayContaining([
      { branch: 'codeloop/b0/published', why: 'has an open pull request' },
      { branch: 'codeloop/b2/young', why: 'unmerged work from 2 days ago' },
    ]),
  );
  const before = git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).split('\n').sort();
  expect(git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).split('\n').sort()).toEqual(before);
  expect(existsSync(tree)).toBe(true);

  const real = await runCli(args, env);
  expect(real.code).toBe(0);
  const after = git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).split('\n').sort();
  expect(after).toEqual(before.filter((branch) => !expected.includes(branch)));
  expect(after).toEqual(['codeloop/b0/published', 'codeloop/b2/young', 'feature/not-ours', 'main']);
  expect(existsSync(tree)).toBe(false);
  expect(github.problems).toEqual([]);
}, 120_000);
