import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { stopEnvironment } from '../../../src/activities/environment/task-environments.js';
import { findPostgresBinaries } from '../../../src/cluster/postgres.js';
import type { CommandAccess } from '../../../src/activities/process/sandbox.js';
import { sandboxedShell } from '../../support/sandbox.js';
import { makeWorkspace } from '../../support/workspace.js';

/**
 * A task's environment on its worker, through the real sandbox: a network list enforced by the worker's proxy, and
 * services started in the task's own network namespace, reached by its commands on their loopback and by nothing
 * else, and gone with the task.
 */

const shell = sandboxedShell();
let allowed: Server;
let allowedPort = 0;

beforeAll(async () => {
  // A host on the list: a server on another loopback address of the worker (127.0.0.2), as a registry would be.
  allowed = createServer((request, response) => response.end(`hello from ${request.url}\n`));
  await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.2', resolve));
  allowedPort = (allowed.address() as { port: number }).port;
});
afterAll(() => allowed.close());

const fetchWith = (url: string) =>
  `python3 -c "import urllib.request, sys
try: print(urllib.request.urlopen('${url}', timeout=5).read().decode().strip())
except Exception as e: print('failed:', e)"`;

test('a network list: a listed host answers through the proxy; another host, and the worker’s Temporal port, do not; refusals are named', async () => {
  const workspace = makeWorkspace({ 'a.txt': 'a\n' });
  const access: CommandAccess = {
    network: [`127.0.0.2:${allowedPort}`],
    env: [],
    environment: { key: `net-${process.pid}-${Date.now()}` },
  };
  try {
    const ok = await shell(fetchWith(`http://127.0.0.2:${allowedPort}/simple/`), { workspace, timeoutMs: 20_000, access });
    expect(ok.output).toContain('hello from /simple/');
    const other = await shell(fetchWith(`http://127.0.0.3:${allowedPort}/`), { workspace, timeoutMs: 20_000, access });
    expect(other.output).toMatch(/failed: HTTP Error 403/);
    expect(other.networkDenied).toEqual([`127.0.0.3:${allowedPort}`]);
    // The worker's Temporal frontend: not on the task's loopback, and refused by the proxy when asked for by name.
    const [host, port] = inject('temporalAddress').split(':');
    const direct = await shell(
      `python3 -c "import socket; socket.create_connection(('${host}', ${port}), timeout=3); print('reached')" 2>&1 | tail -1`,
      {
        workspace,
        timeoutMs: 20_000,
        access,
      },
    );
    expect(direct.output).not.toContain('reached');
    const tunnel = await shell(`curl -s -o /dev/null -w '%{http_code}' --noproxy '' -p -x "$HTTPS_PROXY" http://${host}:${port}/ || true`, {
      workspace,
      timeoutMs: 20_000,
      access,
    });
    expect(tunnel.networkDenied).toEqual([`${host}:${port}`]);
  } finally {
    await stopEnvironment(access.environment!.key);
  }
}, 60_000);

test('a PostgreSQL service: started in the task’s network namespace before its commands, reached on loopback, gone with the task', async () => {
  const binaries = findPostgresBinaries();
  if (!binaries) {
    if (process.env.CODELOOP_REQUIRE_POSTGRES) throw new Error('PostgreSQL is required here');
    return;
  }
  const bin = path.dirname(realpathSync(binaries.initdb));
  const marker = `codeloop-service-${process.pid}-${Date.now()}`;
  const workspace = makeWorkspace({ 'a.txt': 'a\n' });
  const access: CommandAccess = {
    network: 'off',
    env: [],
    environment: {
      key: marker,
      services: [
        {
          name: 'postgres',
          command: `${bin}/initdb -D /tmp/pg -A trust -U app >/dev/null && exec ${bin}/postgres -D /tmp/pg -k /tmp -h 127.0.0.1 -p 5432 -c application_name=${marker}`,
          ready: `${bin}/pg_isready -h 127.0.0.1 -p 5432`,
          readyTimeoutSeconds: 60,
        },
      ],
    },
  };
  try {
    const query = await shell(`${bin}/psql -h 127.0.0.1 -p 5432 -U app -d postgres -tAc 'select 40 + 2'`, {
      workspace,
      timeoutMs: 30_000,
      access,
    });
    expect(query.output.trim()).toBe('42');
    // Another task's commands (no environment of their own) reach nothing on that port.
    const outsider = await shell(`${bin}/pg_isready -h 127.0.0.1 -p 5432`, { workspace, timeoutMs: 10_000 });
    expect(outsider.exitCode).not.toBe(0);
  } finally {
    await stopEnvironment(marker);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(survivors(marker)).toEqual([]);
}, 120_000);

function survivors(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => line && !line.includes('pgrep'));
  } catch {
    return [];
  }
}
