import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

/** A real npm registry (verdaccio) on a loopback address of the worker's, with nothing in it until a test publishes. */
export interface NpmRegistry {
  /** `http://127.0.0.2:<port>`: a host a task's network list can name (127.0.0.1 stays the task's own loopback). */
  url: string;
  /** `127.0.0.2:<port>`, as a network list names it. */
  host: string;
  /** Publishes a package made of `files` (its package.json included). */
  publish(files: Record<string, string>): void;
  stop(): Promise<void>;
}

export async function startNpmRegistry(): Promise<NpmRegistry> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-npm-registry-'));
  const port = await freePort();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${path.join(dir, 'storage')}`,
      `auth: { htpasswd: { file: ${path.join(dir, 'htpasswd')}, max_users: -1 } }`,
      'uplinks: {}',
      "packages: { '**': { access: $all, publish: $all, unpublish: $all } }",
      'log: { type: stdout, format: pretty, level: error }',
    ].join('\n'),
  );
  const server: ChildProcess = spawn(path.resolve('node_modules/.bin/verdaccio'), ['--config', config, '--listen', `127.0.0.2:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.2:${port}`;
  await waitFor(async () => (await fetch(`${url}/-/ping`)).ok, 30_000, 'verdaccio did not start');
  let count = 0;
  return {
    url,
    host: `127.0.0.2:${port}`,
    publish(files) {
      const pkg = path.join(dir, `package-${(count += 1)}`);
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(pkg, name)), { recursive: true });
        writeFileSync(path.join(pkg, name), content);
      }
      writeFileSync(path.join(pkg, '.npmrc'), `//127.0.0.2:${port}/:_authToken=test\n`);
      execFileSync('npm', ['publish', '--registry', url, '--ignore-scripts'], { cwd: pkg, stdio: 'pipe' });
    },
    async stop() {
      server.kill('SIGKILL');
      await new Promise((resolve) => server.once('exit', resolve));
    },
  };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, message: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
