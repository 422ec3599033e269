import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** A payload as Temporal's remote codec protocol sends it: metadata values and data in base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export interface CodecServerOptions {
  codecs: PayloadCodec[];
  port: number;
  host?: string;
  /** The Web UI's origin, allowed by CORS, e.g. `http://localhost:8233`. */
  origins: string[];
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  token?: string;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Temporal's codec server protocol (`POST /encode`, `POST /decode`, JSON payloads in base64), so the Web UI and
 * `temporal workflow show --codec-endpoint` show payloads as the workers wrote them. CORS answers only the given
 * origins; with a token, a request without it is refused.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const server = http.createServer((request, response) => {
    handle(options, request, response).catch((error: Error) => reply(response, 500, { error: error.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(options: CodecServerOptions, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const origin = request.headers.origin;
  if (origin && options.origins.includes(origin)) {
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Vary', 'Origin');
  }
  if (request.method === 'OPTIONS') {
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
    return reply(response, 204);
  }
  const route = request.url?.replace(/\?.*$/, '').replace(/\/+$/, '');
  if (request.method !== 'POST' || (route !== '/encode' && route !== '/decode'))
    return reply(response, 404, { error: 'POST /encode or POST /decode' });
  if (options.token && request.headers.authorization !== `Bearer ${options.token}`)
    return reply(response, 401, { error: 'a bearer token is required' });
  const body = JSON.parse(await readBody(request)) as { payloads?: JsonPayload[] };
  let payloads = (body.payloads ?? []).map(fromJson);
  const codecs = route === '/encode' ? options.codecs : [...options.codecs].reverse();
  for (const codec of codecs) payloads = route === '/encode' ? await codec.encode(payloads) : await codec.decode(payloads);
  return reply(response, 200, { payloads: payloads.map(toJson) });
}

function fromJson(payload: JsonPayload): Payload {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]));
  return { metadata, data: Buffer.from(payload.data ?? '', 'base64') };
}

function toJson(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? []).toString('base64') };
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: http.ServerResponse, status: number, body?: unknown): void {
  response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}
