import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { startNetworkProxy, type DeniedConnection, type NetworkProxy } from './network-proxy.js';

/** Where the proxy listens inside a task's network namespace: a loopback address of its own, clear of services' ports. */
export const PROXY_INSIDE = { host: '127.0.0.9', port: 3128 } as const;

/**
 * The forwarder, run by `node -e` in the task's network namespace: whatever connects to the proxy's address there is
 * carried to the worker's proxy on a Unix socket (the namespace has no other way out). It prints its pid once it
 * listens: the pid whose namespaces commands join.
 */
const FORWARDER = `
const net = require('node:net');
const [socketPath, host, port] = process.argv.slice(1);
net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(Number(port), host, () => console.log(process.pid));
`;

/** A network namespace that lives as long as the task: its services listen there, its commands join it. */
export interface TaskNetwork {
  /** What runs a program inside it (as the root of its user namespace; bubblewrap then makes the sandbox's own). */
  enter: string[];
  /** The proxy's address for commands, when the task's network is a list of hosts. */
  env: Record<string, string>;
  takeDenied(): DeniedConnection[];
  close(): Promise<void>;
}

/**
 * A task's own network namespace, held by a small process in a bubblewrap of its own (which brings its loopback up):
 * loopback only, so services started there are reached by the task's commands and nothing else, and the worker's
 * own loopback stays out of reach. With a list of hosts, that process forwards to the worker's proxy for the task.
 */
export async function startTaskNetwork(bwrap: string, stateDir: string, allow: readonly string[] | undefined): Promise<TaskNetwork> {
  const socketPath = path.join(stateDir, 'proxy.sock');
  rmSync(socketPath, { force: true });
  const proxy: NetworkProxy | undefined = allow ? await startNetworkProxy(socketPath, allow) : undefined;
  const program = allow
    ? ['-e', FORWARDER, socketPath, PROXY_INSIDE.host, String(PROXY_INSIDE.port)]
    : ['-e', 'console.log(process.pid); setInterval(() => {}, 1 << 30)'];
  const holder = spawn(
    bwrap,
    [
      '--unshare-user',
      '--unshare-net',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      process.execPath,
      ...program,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
  );
  let pid: number;
  try {
    pid = await firstLine(holder);
  } catch (error) {
    holder.kill('SIGKILL');
    await proxy?.close();
    throw error;
  }
  holder.unref();
  return {
    enter: ['nsenter', `--target=${pid}`, '--user', '--net', '--'],
    env: allow
      ? {
          HTTPS_PROXY: `http://${PROXY_INSIDE.host}:${PROXY_INSIDE.port}`,
          HTTP_PROXY: `http://${PROXY_INSIDE.host}:${PROXY_INSIDE.port}`,
          https_proxy: `http://${PROXY_INSIDE.host}:${PROXY_INSIDE.port}`,
          http_proxy: `http://${PROXY_INSIDE.host}:${PROXY_INSIDE.port}`,
          NO_PROXY: 'localhost,127.0.0.1,::1',
          no_proxy: 'localhost,127.0.0.1,::1',
        }
      : {},
    takeDenied: () => proxy?.takeDenied() ?? [],
    async close() {
      holder.kill('SIGKILL');
      await proxy?.close();
      rmSync(socketPath, { force: true });
    },
  };
}

/** The holder's pid, from the first line it prints; its error output when it ends first. */
function firstLine(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      // It prints nothing more; its pipes would otherwise hold the worker's event loop open.
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve(Number(line.trim()));
    });
    child.once('exit', (code) => reject(new Error(`the task's network namespace could not be made (exit ${code}): ${stderr.trim()}`)));
    child.once('error', reject);
  });
}
