import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MergeRequest {
  iid: number;
  project: string;
  title: string;
  description: string;
  source_branch: string;
  target_branch: string;
  state: 'opened' | 'closed' | 'merged';
  web_url: string;
}

export interface FakeGitLabApi {
  /** The API's base, as `GITLAB_API_URL` takes it: `http://127.0.0.1:<port>/api/v4`. */
  url: string;
  token: string;
  mergeRequests: MergeRequest[];
  /** Requests GitLab would refuse, in the words of its answer. */
  problems: string[];
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  /** The next `count` requests are answered 502, as a proxy in front of GitLab does while it restarts. */
  failNext(count: number): void;
  close(): Promise<void>;
}

/** The body fields GitLab's merge request endpoints document (create and update); anything else is a mistake here. */
const CREATE_FIELDS = new Set([
  'source_branch',
  'target_branch',
  'title',
  'description',
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'labels',
  'milestone_id',
  'remove_source_branch',
  'squash',
  'allow_collaboration',
  'target_project_id',
]);
const UPDATE_FIELDS = new Set([...CREATE_FIELDS, 'state_event', 'discussion_locked']);
const STATES = ['opened', 'closed', 'locked', 'merged', 'all'];

/**
 * A loopback GitLab REST API (v4), its merge requests only, as GitLab documents them: a `PRIVATE-TOKEN`, a project
 * named by its URL-encoded path, `state` and `source_branch` filters on the list, `source_branch`, `target_branch` and
 * `title` required on create, a source branch that must exist in the project's repository (`bareRepo`), and 409 for a
 * second open merge request of the same branches. Merge requests are kept in memory.
 */
export async function startFakeGitLabApi(options: { project: string; bareRepo: string }): Promise<FakeGitLabApi> {
  const token = 'glpat-loopback';
  const mergeRequests: MergeRequest[] = [];
  const problems: string[] = [];
  const requests: string[] = [];
  let failing = 0;
  const base = `/api/v4/projects/${encodeURIComponent(options.project)}/merge_requests`;

  const server = createServer((request, response) => {
    void answer(request, response).catch((error: Error) => send(response, 500, { message: error.message }));
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url!, 'http://loopback');
    requests.push(`${request.method} ${request.url}`);
    const body = await readBody(request);
    if (failing > 0) {
      failing -= 1;
      return send(response, 502, { message: '502 Bad Gateway' });
    }
    if (request.headers['private-token'] !== token) return refuse(response, 401, '401 Unauthorized');
    // The raw path keeps the project's encoded slash, as GitLab requires (`group%2Fapp`, never `group/app`).
    const path = request.url!.split('?')[0]!;
    if (!path.startsWith(base)) return refuse(response, 404, '404 Project Not Found');
    const iid = path.slice(base.length).replace(/^\//, '');
    if (request.method === 'GET' && iid === '') return list(url, response);
    if (request.method === 'POST' && iid === '') return create(body, response);
    if (request.method === 'PUT' && /^\d+$/.test(iid)) return update(Number(iid), body, response);
    return refuse(response, 404, '404 Not Found');
  }

  function list(url: URL, response: ServerResponse): void {
    const state = url.searchParams.get('state') ?? 'all';
    if (!STATES.includes(state)) return refuse(response, 400, 'state does not have a valid value');
    const perPage = Number(url.searchParams.get('per_page') ?? 20);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) return refuse(response, 400, 'per_page is invalid');
    const source = url.searchParams.get('source_branch');
    const found = mergeRequests.filter(
      (candidate) => (state === 'all' || candidate.state === state) && (source === null || candidate.source_branch === source),
    );
    send(response, 200, found.slice(0, perPage).map(view));
  }

  function create(body: Record<string, unknown>, response: ServerResponse): void {
    const unknown = Object.keys(body).filter((key) => !CREATE_FIELDS.has(key));
    if (unknown.length) problems.push(`create: unknown field ${unknown.join(', ')}`);
    for (const field of ['source_branch', 'target_branch', 'title'])
      if (typeof body[field] !== 'string' || !body[field]) return refuse(response, 400, `${field} is missing`);
    const source = body.source_branch as string;
    const target = body.target_branch as string;
    if (!branchExists(source)) return refuse(response, 422, `Source branch "${source}" does not exist`);
    const open = mergeRequests.find(
      (candidate) => candidate.state === 'opened' && candidate.source_branch === source && candidate.target_branch === target,
    );
    if (open) return refuse(response, 409, `Another open merge request already exists for this source branch: !${open.iid}`);
    const iid = mergeRequests.length + 1;
    const created: MergeRequest = {
      iid,
      project: options.project,
      title: body.title as string,
      description: typeof body.description === 'string' ? body.description : '',
      source_branch: source,
      target_branch: target,
      state: 'opened',
      web_url: `https://gitlab.example/${options.project}/-/merge_requests/${iid}`,
    };
    mergeRequests.push(created);
    send(response, 201, view(created));
  }

  function update(iid: number, body: Record<string, unknown>, response: ServerResponse): void {
    const unknown = Object.keys(body).filter((key) => !UPDATE_FIELDS.has(key));
    if (unknown.length) problems.push(`update: unknown field ${unknown.join(', ')}`);
    const found = mergeRequests.find((candidate) => candidate.iid === iid);
    if (!found) return refuse(response, 404, '404 Not found');
    if (typeof body.title === 'string') found.title = body.title;
    if (typeof body.description === 'string') found.description = body.description;
    if (typeof body.target_branch === 'string') found.target_branch = body.target_branch;
    send(response, 200, view(found));
  }

  function branchExists(branch: string): boolean {
    try {
      execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: options.bareRepo, stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  }

  function refuse(response: ServerResponse, status: number, message: string): void {
    problems.push(`${status} ${message}`);
    // GitLab answers a parameter problem with `error`, everything else with `message`.
    send(response, status, status === 400 ? { error: message } : { message });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v4`,
    token,
    mergeRequests,
    problems,
    requests,
    failNext: (count) => (failing = count),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A merge request as GitLab shows it: `draft` follows the title's `Draft:` prefix. */
const view = (request: MergeRequest) => ({
  id: 1000 + request.iid,
  iid: request.iid,
  title: request.title,
  description: request.description,
  state: request.state,
  source_branch: request.source_branch,
  target_branch: request.target_branch,
  draft: /^(draft:|\[draft\]|\(draft\))/i.test(request.title),
  web_url: request.web_url,
});

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  if (!text) return {};
  return JSON.parse(text) as Record<string, unknown>;
}
