import { randomUUID } from 'node:crypto';
import type http from 'node:http';

/**
 * The Messages API as a loopback server writes it: JSON, SSE streams and error bodies in the shapes the real
 * `@anthropic-ai/sdk` parses. The replay server and the tests' scripted fake both answer through these, so a turn
 * reaches the SDK exactly as the API would send it.
 */

/** An assistant message as the API returns it (`POST /v1/messages`). */
export interface ApiMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Record<string, any>[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: { input_tokens: number; output_tokens: number; [field: string]: unknown };
}

/** An error response: its HTTP status, the API's error type and message, and the headers the SDK reads. */
export interface ApiErrorSpec {
  status: number;
  type: string;
  message: string;
  retryAfterSeconds?: number;
  errorCode?: string;
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}`, ...headers });
  res.end(JSON.stringify(body));
}

/** `x-should-retry: false`: the SDK's own retries are off in codeloop anyway; Temporal decides from the status. */
export function sendError(res: http.ServerResponse, error: ApiErrorSpec): void {
  const headers: Record<string, string> = { 'x-should-retry': 'false' };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  const details = error.errorCode ? { error_code: error.errorCode } : undefined;
  sendJson(res, error.status, { type: 'error', error: { type: error.type, message: error.message, details } }, headers);
}

/** Answers `message` as the request asked: an SSE stream (`stream: true`, what codeloop's model activity sends) or JSON. */
export async function sendMessage(res: http.ServerResponse, message: ApiMessage, stream: boolean, stallMs = 0): Promise<void> {
  if (stream) await streamMessage(res, message, stallMs);
  else sendJson(res, 200, message);
}

/**
 * The message as server-sent events, block by block, as the API streams it. With `stallMs`, only pings follow
 * `message_start` for that long: a model call that is "in flight".
 */
export async function streamMessage(res: http.ServerResponse, message: ApiMessage, stallMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${randomUUID()}` });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  for (let waited = 0; waited < stallMs && !res.destroyed; waited += 500) {
    send('ping', { type: 'ping' });
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, stallMs - waited)));
  }
  message.content.forEach((block, index) => {
    if (block.type === 'thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: block });
    } else if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      for (let at = 0; at < json.length; at += 512) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(at, at + 512) },
        });
      }
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage: { output_tokens: message.usage.output_tokens },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
