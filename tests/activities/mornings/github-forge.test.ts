import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, test } from 'vitest';
import { createGitHubForge } from '../../../src/activities/mornings/github-forge.js';
import { repositoryFromUrl } from '../../../src/activities/mornings/forge.js';
import { startFakeGitHubApi, type FakeGitHubApi } from '../../support/fake-github-api.js';
import { makeGitRemote } from '../../support/git-remote.js';

let api: FakeGitHubApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const spec = (body: string) => ({ repository: 'acme/app', head: 'feature', base: 'main', title: 'Feature', body, draft: true });

describe('GitHub pull requests', () => {
  test('the first call opens a pull request, the next updates the same one; every request fits GitHub’s description', async () => {
    const remote = makeGitRemote();
    remote.push('f.txt', 'f\n', 'feature');
    api = await startFakeGitHubApi({ bareRepo: remote.bare });
    const forge = createGitHubForge(api.url, api.token);
    expect(await forge.upsertPullRequest(spec('first'))).toEqual({
      number: 1,
      url: 'https://github.example/acme/app/pull/1',
      created: true,
    });
    expect(await forge.upsertPullRequest(spec('second'))).toEqual({
      number: 1,
      url: 'https://github.example/acme/app/pull/1',
      created: false,
    });
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]).toMatchObject({ body: 'second', draft: true, head: 'feature', base: 'main' });
    expect(api.problems).toEqual([]);
    expect(api.requests.map((request) => request.split('?')[0])).toEqual([
      'GET /repos/acme/app/pulls',
      'POST /repos/acme/app/pulls',
      'GET /repos/acme/app/pulls',
      'PATCH /repos/acme/app/pulls/1',
    ]);
  });

  test('the loopback API refuses what GitHub would: an unknown body field, a bad parameter, a missing token, a head that was never pushed', async () => {
    const remote = makeGitRemote();
    api = await startFakeGitHubApi({ bareRepo: remote.bare });
    const octokit = new Octokit({ auth: api.token, baseUrl: api.url, request: { retries: 0 } });
    await expect(
      octokit.request('POST /repos/{owner}/{repo}/pulls', { owner: 'acme', repo: 'app', head: 'x', base: 'main', titel: 'typo' }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/pulls', { owner: 'acme', repo: 'app', state: 'merged' as never }),
    ).rejects.toMatchObject({
      status: 422,
    });
    await expect(new Octokit({ baseUrl: api.url }).rest.pulls.list({ owner: 'acme', repo: 'app' })).rejects.toMatchObject({ status: 422 });
    expect(api.problems).toEqual([
      'pulls/create: unknown body property titel',
      expect.stringMatching(/^pulls\/list: state: .*allowed values/),
      'pulls/list: not authorised (no token)',
    ]);
    await expect(createGitHubForge(api.url, api.token).upsertPullRequest(spec('x'))).rejects.toMatchObject({
      type: 'ForgeFailed',
      nonRetryable: true,
    });
  });

  test('the repository is read from the usual remote URLs', () => {
    expect(repositoryFromUrl('git@github.com:acme/app.git')).toBe('acme/app');
    expect(repositoryFromUrl('https://github.com/acme/app')).toBe('acme/app');
    expect(repositoryFromUrl('ssh://git@gitlab.example/group/sub/app.git')).toBe('group/sub/app');
    expect(repositoryFromUrl('/srv/git/app.git')).toBeUndefined();
  });
});
