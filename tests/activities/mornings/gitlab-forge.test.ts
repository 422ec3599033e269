import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { forgeFor } from '../../../src/activities/mornings/forge.js';
import { createGitLabForge } from '../../../src/activities/mornings/gitlab-forge.js';
import { startFakeGitLabApi, type FakeGitLabApi } from '../../support/fake-gitlab-api.js';
import { makeGitRemote } from '../../support/git-remote.js';

let api: FakeGitLabApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const PROJECT = 'acme/platform/app';
const spec = (body: string, draft = true) => ({ repository: PROJECT, head: 'feature', base: 'main', title: 'Feature', body, draft });

async function gitLab() {
  const remote = makeGitRemote();
  remote.push('f.txt', 'f\n', 'feature');
  api = await startFakeGitLabApi({ project: PROJECT, bareRepo: remote.bare });
  return api;
}

describe('GitLab merge requests', () => {
  test('the first call opens a merge request, the next updates the same one; a draft is a Draft: title', async () => {
    const gitlab = await gitLab();
    const forge = createGitLabForge(gitlab.url, gitlab.token);
    const url = 'https://gitlab.example/acme/platform/app/-/merge_requests/1';
    expect(await forge.upsertPullRequest(spec('first'))).toEqual({ number: 1, url, created: true });
    expect(await forge.upsertPullRequest(spec('second', false))).toEqual({ number: 1, url, created: false });
    expect(gitlab.mergeRequests).toHaveLength(1);
    expect(gitlab.mergeRequests[0]).toMatchObject({
      title: 'Feature',
      description: 'second',
      source_branch: 'feature',
      target_branch: 'main',
    });
    expect(gitlab.problems).toEqual([]);
    const project = encodeURIComponent(PROJECT);
    expect(gitlab.requests.map((request) => request.split('?')[0])).toEqual([
      `GET /api/v4/projects/${project}/merge_requests`,
      `POST /api/v4/projects/${project}/merge_requests`,
      `GET /api/v4/projects/${project}/merge_requests`,
      `PUT /api/v4/projects/${project}/merge_requests/1`,
    ]);
    expect(gitlab.requests[0]).toContain('state=opened&source_branch=feature');
    expect(await forge.openPullRequestHeads(PROJECT)).toEqual(['feature']);
  });

  test('a draft stays a draft in GitLab’s own view of it', async () => {
    const gitlab = await gitLab();
    await createGitLabForge(gitlab.url, gitlab.token).upsertPullRequest(spec('body'));
    const response = await fetch(`${gitlab.url}/projects/${encodeURIComponent(PROJECT)}/merge_requests?state=opened`, {
      headers: { 'PRIVATE-TOKEN': gitlab.token },
    });
    expect(await response.json()).toEqual([expect.objectContaining({ title: 'Draft: Feature', draft: true })]);
  });

  test('a refused token and a branch never pushed fail for good; a gateway error is retried', async () => {
    const gitlab = await gitLab();
    await expect(createGitLabForge(gitlab.url, 'wrong').upsertPullRequest(spec('x'))).rejects.toMatchObject({
      type: 'ForgeFailed',
      nonRetryable: true,
      message: expect.stringContaining('(401)'),
    });
    const forge = createGitLabForge(gitlab.url, gitlab.token);
    await expect(forge.upsertPullRequest({ ...spec('x'), head: 'never-pushed' })).rejects.toMatchObject({
      nonRetryable: true,
      message: expect.stringContaining('Source branch "never-pushed" does not exist'),
    });
    gitlab.failNext(1);
    await expect(forge.upsertPullRequest(spec('x'))).rejects.toMatchObject({ type: 'ForgeFailed', nonRetryable: false });
    expect(gitlab.mergeRequests).toEqual([]);
  });

  test('the worker’s GITLAB_API_URL and the token file GITLAB_TOKEN_FILE names reach the API', async () => {
    const gitlab = await gitLab();
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-token-')), 'gitlab-token');
    writeFileSync(file, `${gitlab.token}\n`);
    const forge = forgeFor('gitlab', { GITLAB_API_URL: gitlab.url, GITLAB_TOKEN_FILE: file });
    expect(await forge.upsertPullRequest(spec('from the worker'))).toMatchObject({ number: 1, created: true });
  });
});
