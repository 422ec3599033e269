import { forgeFailure, type Forge, type PullRequestSpec } from './forge-types.js';

interface MergeRequest {
  iid: number;
  web_url: string;
}

/**
 * GitLab's merge requests over its REST API (v4). As with GitHub, the open merge request of the source branch is
 * updated when there is one. A draft is GitLab's `Draft:` title prefix.
 */
export function createGitLabForge(baseUrl: string, token: string): Forge {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl.replace(/\/$/, '')}${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json', 'user-agent': 'codeloop' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw Object.assign(new Error(refusal(text)), { status: response.status });
    return JSON.parse(text) as T;
  }

  return {
    async openPullRequestHeads(repository) {
      const open = await call<{ source_branch: string }[]>(
        'GET',
        `/projects/${encodeURIComponent(repository)}/merge_requests?state=opened&per_page=100`,
      );
      return open.map((request) => request.source_branch);
    },
    async upsertPullRequest(spec: PullRequestSpec) {
      const project = `/projects/${encodeURIComponent(spec.repository)}/merge_requests`;
      const title = spec.draft ? `Draft: ${spec.title}` : spec.title;
      try {
        const query = `?state=opened&source_branch=${encodeURIComponent(spec.head)}`;
        const [open] = await call<MergeRequest[]>('GET', `${project}${query}`);
        if (open) {
          await call('PUT', `${project}/${open.iid}`, { title, description: spec.body, target_branch: spec.base });
          return { number: open.iid, url: open.web_url, created: false };
        }
        const created = await call<MergeRequest>('POST', project, {
          source_branch: spec.head,
          target_branch: spec.base,
          title,
          description: spec.body,
        });
        return { number: created.iid, url: created.web_url, created: true };
      } catch (error) {
        const { status, message } = error as { status?: number; message: string };
        throw forgeFailure(`GitLab merge request for ${spec.head} in ${spec.repository}`, status, message);
      }
    },
  };
}

/** GitLab's own words for a refusal: its JSON's `message` (or `error`, for a parameter), else the answer's text. */
function refusal(text: string): string {
  try {
    const { message, error } = JSON.parse(text) as { message?: unknown; error?: unknown };
    const said = message ?? error;
    if (said !== undefined) return (typeof said === 'string' ? said : JSON.stringify(said)).slice(0, 500);
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return text.slice(0, 500);
}
