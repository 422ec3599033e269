import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sendError, sendMessage, type ApiErrorSpec, type ApiMessage } from '../../src/eval/messages-wire.js';
import type { Usage } from '../../src/shared/conversation.js';

/**
 * A loopback server that speaks the Anthropic Messages API (JSON and SSE streaming), so the real
 * `@anthropic-ai/sdk` can be driven through `ANTHROPIC_BASE_URL`. It serves scripted turns in order, checks that
 * every `tool_use` is answered by a `tool_result`, simulates prompt caching from the request's bytes, and fails
 * loudly when the script runs out.
 */

export interface ScriptedToolCall {
  name: string;
  input: unknown;
  id?: string;
}

export interface ScriptedTurn {
  /** Adaptive thinking before the rest; its signature must come back with the tool results, as the API requires. */
  thinking?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Send `message_start`, then only pings for this long, then the rest: a model call that is "in flight". */
  stallMs?: number;
}

export interface ScriptedError {
  error: ApiErrorSpec;
}

export type ScriptedStep =
  ScriptedTurn | ScriptedError | ((request: RecordedRequest) => ScriptedTurn | ScriptedError | Promise<ScriptedTurn | ScriptedError>);

export type Responder = (request: RecordedRequest) => ScriptedTurn | ScriptedError | Promise<ScriptedTurn | ScriptedError>;

/** A responder that plays `turns[n]` when the request holds n assistant turns; past the end it fails loudly. */
export function byTurn(turns: (ScriptedTurn | Responder)[]): Responder {
  return (request) => {
    const index = request.body.messages.filter((message) => message.role === 'assistant').length;
    const turn = turns[index];
    if (!turn) return { error: { status: 400, type: 'invalid_request_error', message: NO_MORE_RESPONSES } };
    return typeof turn === 'function' ? turn(request) : turn;
  };
}

/** Serves summarisation requests (they carry no tools) with a canned summary, and everything else with `responder`. */
export function withSummaries(
  responder: Responder,
  summary = 'Summary: earlier steps read and changed files; nothing is unresolved.',
): Responder {
  return (request) => (request.body.tools?.length ? responder(request) : { text: summary });
}

/** Whether a request belongs to the task with this title (the task layer of its system prompt names it). */
export const isForTask = (request: { body: MessagesBody }, title: string): boolean =>
  JSON.stringify(request.body.system ?? '').includes(`## ${title}\\n`);

/** The usage the fake reported for a request, as codeloop's own `Usage` adds it up. */
export function reportedUsage(request: RecordedRequest): Usage {
  const usage = request.usage!;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens,
    cacheWriteTokens: usage.cache_creation_input_tokens,
  };
}

/** Routes each request to the responder of its task, found by the task title in the system prompt. */
export function byTask(responders: Record<string, Responder>): Responder {
  return (request) => {
    const title = Object.keys(responders).find((candidate) => isForTask(request, candidate));
    if (!title) return { error: { status: 400, type: 'invalid_request_error', message: `FakeModel: no script for this task` } };
    return responders[title](request);
  };
}

export interface RecordedRequest {
  body: MessagesBody;
  apiKey: string | undefined;
  stream: boolean;
  at: number;
  /** The usage the response reported, with the simulated prompt cache. */
  usage?: CacheUsage & { output_tokens: number };
}

export interface MessagesBody {
  model: string;
  max_tokens: number;
  system?: string | { type: 'text'; text: string; cache_control?: unknown }[];
  messages: { role: 'user' | 'assistant'; content: string | Record<string, any>[] }[];
  tools?: Record<string, any>[];
  stream?: boolean;
}

export interface FakeMessagesApi {
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Protocol violations and script exhaustion; a test's afterEach should expect it to be empty. */
  problems: string[];
  enqueue(...steps: ScriptedStep[]): void;
  /**
   * Answers every request from the conversation itself instead of the queue, so a retried call (after a worker
   * crash) gets the same turn again.
   */
  setResponder(responder: Responder | undefined): void;
  remaining(): number;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const NO_MORE_RESPONSES = 'FakeModel: no more canned responses';

export async function startFakeMessagesApi(options: { apiKey?: string; script?: ScriptedStep[] } = {}): Promise<FakeMessagesApi> {
  const apiKey = options.apiKey ?? 'sk-fake-loopback-key';
  const script: ScriptedStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const cache = new Set<string>();
  /** Signatures of thinking blocks sent alongside tool calls, by tool_use id. */
  const thinkingByToolUse = new Map<string, string>();
  const waiters: (() => void)[] = [];
  let responder: Responder | undefined;

  const server = http.createServer(async (req, res) => {
    try {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        return sendError(res, { status: 404, type: 'not_found_error', message: `no route ${req.method} ${req.url}` });
      }
      const body = JSON.parse(await readBody(req)) as MessagesBody;
      const presented = header(req, 'x-api-key') ?? header(req, 'authorization')?.replace(/^Bearer /, '');
      const recorded: RecordedRequest = { body, apiKey: presented, stream: body.stream === true, at: Date.now() };
      requests.push(recorded);
      waiters.splice(0).forEach((wake) => wake());
      if (recorded.apiKey !== apiKey) {
        return sendError(res, { status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
      }
      const violation = checkConversation(body) ?? checkThinkingReturned(body, thinkingByToolUse);
      if (violation) {
        problems.push(violation);
        return sendError(res, { status: 400, type: 'invalid_request_error', message: violation });
      }
      const step = responder ?? script.shift();
      if (!step) {
        problems.push(NO_MORE_RESPONSES);
        return sendError(res, { status: 400, type: 'invalid_request_error', message: NO_MORE_RESPONSES });
      }
      const outcome = typeof step === 'function' ? await step(recorded) : step;
      if ('error' in outcome) return sendError(res, outcome.error);
      const message = buildMessage(body, outcome, cacheUsage(body, cache));
      const signature = message.content.find((block) => block.type === 'thinking')?.signature as string | undefined;
      if (signature)
        for (const block of message.content) if (block.type === 'tool_use') thinkingByToolUse.set(block.id as string, signature);
      recorded.usage = message.usage;
      await sendMessage(res, message, recorded.stream, outcome.stallMs ?? 0);
    } catch (error) {
      problems.push(`fake server error: ${String(error)}`);
      if (!res.headersSent) sendError(res, { status: 500, type: 'api_error', message: String(error) });
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    problems,
    enqueue: (...steps) => script.push(...steps),
    setResponder: (next) => (responder = next),
    remaining: () => script.length,
    async waitForRequests(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`fake model saw ${requests.length} requests, expected ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Every assistant `tool_use` must be answered, id for id, by `tool_result`s in the next user message. */
export function checkConversation(body: MessagesBody): string | undefined {
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number') return 'model and max_tokens are required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages[0].role !== 'user') {
    return 'messages must start with a user message';
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (i > 0 && messages[i - 1].role === message.role) return `messages.${i}: roles must alternate`;
    const blocks = typeof message.content === 'string' ? [] : message.content;
    if (typeof message.content !== 'string' && blocks.length === 0) return `messages.${i}: content is empty`;
    const toolUses = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id as string);
    if (message.role !== 'assistant' || toolUses.length === 0) continue;
    const next = messages[i + 1];
    if (!next) return `messages.${i}: tool_use ids ${toolUses.join(', ')} have no tool_result`;
    const answered = (typeof next.content === 'string' ? [] : next.content)
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.tool_use_id as string);
    const missing = toolUses.filter((id) => !answered.includes(id));
    const extra = answered.filter((id) => !toolUses.includes(id));
    if (missing.length || extra.length) {
      return `messages.${i + 1}: tool_result ids do not match tool_use ids (missing: ${missing.join(', ') || 'none'}; unexpected: ${extra.join(', ') || 'none'})`;
    }
  }
  return undefined;
}

/** With thinking on, the latest assistant turn's thinking block must come back, unchanged, with its tool results. */
function checkThinkingReturned(body: MessagesBody, thinkingByToolUse: Map<string, string>): string | undefined {
  const last = [...body.messages].reverse().find((message) => message.role === 'assistant');
  if (!last || typeof last.content === 'string') return undefined;
  const expected = last.content
    .filter((block) => block.type === 'tool_use')
    .map((block) => thinkingByToolUse.get(block.id))
    .find(Boolean);
  if (!expected) return undefined;
  const returned = last.content.some((block) => block.type === 'thinking' && block.signature === expected);
  return returned ? undefined : 'the thinking block of the latest assistant turn must be passed back unchanged with its tool results';
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/**
 * Prompt caching as the API does it: a prefix cached at a `cache_control` breakpoint is read back by a later
 * request whose bytes match up to one of its block boundaries.
 */
function cacheUsage(body: MessagesBody, cache: Set<string>): CacheUsage {
  const segments: { text: string; breakpoint: boolean }[] = [];
  for (const tool of body.tools ?? []) segments.push(segment(tool));
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const block of system) segments.push(segment(block));
  for (const message of body.messages) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) segments.push(segment({ role: message.role, ...block }));
  }
  const hash = createHash('sha256');
  let tokens = 0;
  let read = 0;
  let lastBreakpointTokens = 0;
  const written: string[] = [];
  for (const { text, breakpoint } of segments) {
    hash.update(text);
    tokens += estimateTokens(text);
    const key = hash.copy().digest('hex');
    if (cache.has(key)) read = tokens;
    if (breakpoint) {
      lastBreakpointTokens = tokens;
      written.push(key);
    }
  }
  written.forEach((key) => cache.add(key));
  const creation = Math.max(0, lastBreakpointTokens - read);
  return { input_tokens: tokens - read - creation, cache_read_input_tokens: read, cache_creation_input_tokens: creation };
}

function segment(block: Record<string, any>): { text: string; breakpoint: boolean } {
  const { cache_control: cacheControl, ...rest } = block;
  return { text: JSON.stringify(rest), breakpoint: cacheControl !== undefined };
}

/** The turn as the API would send it, with the simulated cache's usage. */
function buildMessage(
  body: MessagesBody,
  turn: ScriptedTurn,
  usage: CacheUsage,
): ApiMessage & { usage: RecordedRequest['usage'] & object } {
  const content: Record<string, unknown>[] = [];
  if (turn.thinking)
    content.push({
      type: 'thinking',
      thinking: turn.thinking,
      signature: `sig_${createHash('sha256')
        .update(turn.thinking + randomUUID())
        .digest('hex')
        .slice(0, 24)}`,
    });
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls ?? []) {
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${randomUUID().replace(/-/g, '')}`, name: call.name, input: call.input });
  }
  const output = estimateTokens(JSON.stringify(content));
  return {
    id: `msg_${randomUUID().replace(/-/g, '')}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: turn.stopReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { ...usage, output_tokens: output },
  };
}
