import { Octokit } from '@octokit/rest';
import { forgeFailure, type Forge, type PullRequestRef, type PullRequestSpec } from './forge-types.js';

/**
 * GitHub's pull requests through `@octokit/rest`. The open pull request of a head branch is looked up first, so a
 * second run updates it (title, body, base) instead of opening another; a create that races one already open (422)
 * looks again.
 */
export function createGitHubForge(baseUrl: string, token: string): Forge {
  const octokit = new Octokit({ auth: token, baseUrl, userAgent: 'codeloop', request: { retries: 0 } });

  async function findOpen(owner: string, repo: string, head: string): Promise<{ number: number; html_url: string } | undefined> {
    const { data } = await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, state: 'open', per_page: 10 });
    return data.find((pull) => pull.head.ref === head);
  }

  async function upsert(spec: PullRequestSpec): Promise<PullRequestRef> {
    const [owner, repo] = spec.repository.split('/');
    const open = await findOpen(owner, repo, spec.head);
    if (open) {
      await octokit.rest.pulls.update({ owner, repo, pull_number: open.number, title: spec.title, body: spec.body, base: spec.base });
      return { number: open.number, url: open.html_url, created: false };
    }
    try {
      const { data } = await octokit.rest.pulls.create({
        owner,
        repo,
        head: spec.head,
        base: spec.base,
        title: spec.title,
        body: spec.body,
        draft: spec.draft,
      });
      return { number: data.number, url: data.html_url, created: true };
    } catch (error) {
      const again = (error as { status?: number }).status === 422 ? await findOpen(owner, repo, spec.head) : undefined;
      if (again) return upsert(spec);
      throw error;
    }
  }

  return {
    async openPullRequestHeads(repository) {
      const [owner, repo] = repository.split('/');
      const pulls = await octokit.paginate(octokit.rest.pulls.list, { owner, repo, state: 'open', per_page: 100 });
      return pulls.map((pull) => pull.head.ref);
    },
    async upsertPullRequest(spec) {
      try {
        return await upsert(spec);
      } catch (error) {
        const { status, message } = error as { status?: number; message: string };
        throw forgeFailure(`GitHub pull request for ${spec.head} in ${spec.repository}`, status, message);
      }
    },
  };
}
