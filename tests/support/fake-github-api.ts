import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Operation {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
}

/** GitHub's published REST description (OpenAPI 3.0), as `@octokit/openapi` ships it. */
function loadDescription(): { paths: Record<string, Record<string, Operation>>; components: Json } {
  const file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** `$ref`s of an operation point into the description's components, which ajv knows as the schema `github`. */
function rebased<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"$ref":"#/components/', '"$ref":"github#/components/'));
}

export interface PullRequest {
  number: number;
  owner: string;
  repo: string;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  html_url: string;
}

export interface FakeGitHubApi {
  url: string;
  token: string;
  /** The bare repository pushes go to: a head branch must exist there. */
  bareRepo?: string;
  /** Every pull request opened, in memory. */
  pulls: PullRequest[];
  /** Requests that did not match GitHub's description (unknown route, bad parameter or body, missing token). */
  problems: string[];
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  /** Called once a pull request is stored and before the answer goes out; may hold the answer back. */
  onCreate?: (pull: PullRequest) => Promise<void> | void;
  close(): Promise<void>;
}

/**
 * A loopback GitHub REST API: every request is checked against GitHub's published OpenAPI description (route and
 * method, path and query parameters, the JSON body: its schema, and no property the description does not know), and
 * pull requests live in memory. A pull request's head branch must exist in `bareRepo`, as on GitHub.
 */
export async function startFakeGitHubApi(options: { bareRepo?: string; token?: string } = {}): Promise<FakeGitHubApi> {
  const description = loadDescription();
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: true, logger: false });
  addFormats.default(ajv);
  ajv.addSchema({ components: description.components }, 'github');
  const compiled = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: Json) => {
    if (!compiled.has(key)) compiled.set(key, ajv.compile(rebased(schema)));
    return compiled.get(key)!;
  };
  const routes = Object.entries(description.paths).map(([template, operations]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
    names: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]),
    operations,
  }));
  const resolveParameter = (parameter: Parameter | { $ref: string }): Parameter =>
    '$ref' in parameter ? ((description.components.parameters as Json)[parameter.$ref.split('/').pop()!] as Parameter) : parameter;

  const api: FakeGitHubApi = {
    url: '',
    token: options.token ?? 'ghp_loopback_token',
    bareRepo: options.bareRepo,
    pulls: [],
    problems: [],
    requests: [],
    close: async () => undefined,
  };

  const check = (request: IncomingMessage, path: string, query: URLSearchParams, body: unknown) => {
    const method = request.method!.toLowerCase();
    const route = routes.find((candidate) => candidate.pattern.test(path) && candidate.operations[method]);
    if (!route) return { problem: `${request.method} ${path} is not in GitHub's REST description` };
    const operation = route.operations[method];
    const values = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(route.pattern.exec(path)![index + 1])]));
    const problems: string[] = [];
    const parameters = (operation.parameters ?? []).map(resolveParameter);
    for (const parameter of parameters) {
      const value = parameter.in === 'path' ? values[parameter.name] : parameter.in === 'query' ? query.get(parameter.name) : undefined;
      if (parameter.in !== 'path' && parameter.in !== 'query') continue;
      if (value === null || value === undefined) {
        if (parameter.required) problems.push(`${operation.operationId}: missing ${parameter.in} parameter ${parameter.name}`);
        continue;
      }
      const holder = { value };
      const validate = validator(`${operation.operationId}/${parameter.name}`, {
        type: 'object',
        properties: { value: parameter.schema ?? {} },
      });
      if (!validate(holder)) problems.push(`${operation.operationId}: ${parameter.name}: ${ajv.errorsText(validate.errors)}`);
    }
    for (const name of query.keys())
      if (!parameters.some((parameter) => parameter.in === 'query' && parameter.name === name))
        problems.push(`${operation.operationId}: unknown query parameter ${name}`);
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (schema) {
      if (body === undefined && operation.requestBody?.required) problems.push(`${operation.operationId}: a JSON body is required`);
      if (body !== undefined) {
        const validate = validator(`${operation.operationId}/body`, schema);
        if (!validate(body)) problems.push(`${operation.operationId}: body ${ajv.errorsText(validate.errors)}`);
        const known = Object.keys((schema.properties as Json | undefined) ?? {});
        for (const key of Object.keys(body as Json))
          if (known.length && !known.includes(key)) problems.push(`${operation.operationId}: unknown body property ${key}`);
      }
    } else if (body !== undefined) problems.push(`${operation.operationId} takes no body`);
    if (request.headers.authorization !== `token ${api.token}` && request.headers.authorization !== `Bearer ${api.token}`)
      problems.push(`${operation.operationId}: not authorised (${request.headers.authorization ?? 'no token'})`);
    return { operation: operation.operationId, values, problem: problems.join('; ') || undefined };
  };

  const branchExists = (branch: string) => {
    try {
      execFileSync('git', ['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: api.bareRepo, stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  };

  const view = (pull: PullRequest) => ({
    number: pull.number,
    html_url: pull.html_url,
    state: pull.state,
    title: pull.title,
    body: pull.body,
    draft: pull.draft,
    head: { ref: pull.head, label: `${pull.owner}:${pull.head}` },
    base: { ref: pull.base },
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url!, 'http://loopback');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body = text ? (JSON.parse(text) as Json) : undefined;
    api.requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    const checked = check(request, url.pathname, url.searchParams, body);
    if (checked.problem) {
      api.problems.push(checked.problem);
      return send(checked.operation ? 422 : 404, { message: checked.problem });
    }
    const { owner, repo } = checked.values!;
    const ofRepo = api.pulls.filter((pull) => pull.owner === owner && pull.repo === repo);
    if (checked.operation === 'pulls/list') {
      const head = url.searchParams.get('head');
      const state = url.searchParams.get('state') ?? 'open';
      const found = ofRepo.filter((pull) => (!head || `${owner}:${pull.head}` === head) && (state === 'all' || pull.state === state));
      return send(200, found.map(view));
    }
    if (checked.operation === 'pulls/create') {
      const { title, head, base, draft } = body as { title: string; head: string; base: string; draft?: boolean };
      if (!branchExists(head)) return send(422, { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] });
      if (!branchExists(base)) return send(422, { message: 'Validation Failed', errors: [{ field: 'base', code: 'invalid' }] });
      if (ofRepo.some((pull) => pull.head === head && pull.state === 'open'))
        return send(422, { message: `A pull request already exists for ${owner}:${head}.` });
      const number = api.pulls.length + 1;
      const pull: PullRequest = {
        number,
        owner,
        repo,
        title,
        head,
        base,
        body: String((body as Json).body ?? ''),
        draft: draft ?? false,
        state: 'open',
        html_url: `https://github.example/${owner}/${repo}/pull/${number}`,
      };
      api.pulls.push(pull);
      await api.onCreate?.(pull);
      return send(201, view(pull));
    }
    if (checked.operation === 'pulls/update') {
      const pull = ofRepo.find((candidate) => candidate.number === Number(checked.values!.pull_number));
      if (!pull) return send(404, { message: 'Not Found' });
      Object.assign(pull, body);
      return send(200, view(pull));
    }
    send(501, { message: `${checked.operation} is valid but this fake does not serve it` });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      api.problems.push(`fake failed: ${error.message}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}
