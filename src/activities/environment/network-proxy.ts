import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { hostAllowed } from '../../shared/network-access.js';

/** A connection the proxy refused: the host and port asked for, and when. */
export interface DeniedConnection {
  host: string;
  port: number;
  at: number;
}

export interface NetworkProxy {
  /** Connections refused since the last call, oldest first; for the trail of the command that asked. */
  takeDenied(): DeniedConnection[];
  close(): Promise<void>;
}

/**
 * The worker's proxy for one task whose network is a list of hosts: HTTP CONNECT (for HTTPS and anything else over
 * TCP) and plain HTTP requests in absolute form, to the listed hosts only, on a Unix socket that only the task's
 * network namespace reaches (see `TaskNetwork`). Everything else, the worker's own loopback services included, is
 * answered 403 and counted.
 */
export async function startNetworkProxy(socketPath: string, allow: readonly string[]): Promise<NetworkProxy> {
  let denied: DeniedConnection[] = [];
  const refuse = (host: string, port: number) => {
    denied.push({ host, port, at: Date.now() });
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const target = absoluteTarget(request);
    if (!target || !hostAllowed(allow, target.hostname, target.port)) {
      if (target) refuse(target.hostname, target.port);
      response.writeHead(403, { 'content-type': 'text/plain' }).end(deniedText(target?.hostname ?? '?', target?.port ?? 0));
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: target.path, method: request.method, headers: withoutHopHeaders(request) },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => response.writeHead(502).end(`proxy: ${error.message}\n`));
    request.pipe(upstream);
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const [host, portText] = splitAuthority(request.url ?? '');
    const port = Number(portText);
    if (!host || !Number.isInteger(port) || !hostAllowed(allow, host, port)) {
      refuse(host ?? '?', port);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${deniedText(host ?? '?', port)}`);
      return;
    }
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    takeDenied() {
      const taken = denied;
      denied = [];
      return taken;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const deniedText = (host: string, port: number) =>
  `codeloop: ${host}:${port} is not on this task's network list; ask for it in the task's network input\n`;

function absoluteTarget(request: IncomingMessage): { hostname: string; port: number; path: string } | undefined {
  try {
    const url = new URL(request.url ?? '');
    if (url.protocol !== 'http:') return undefined;
    return { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), path: `${url.pathname}${url.search}` };
  } catch {
    return undefined;
  }
}

function splitAuthority(authority: string): [string | undefined, string | undefined] {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return match ? [match[1], match[2]] : [undefined, undefined];
}

const HOP_HEADERS = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

function withoutHopHeaders(request: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  return headers;
}
