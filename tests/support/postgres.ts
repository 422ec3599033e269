import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

export interface TestPostgres {
  url: string;
  stop(): void;
}

const found = (binary: string) => spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;

/**
 * A private PostgreSQL cluster in a temporary directory on a free port (`initdb` and `pg_ctl` from Debian's
 * postgresql), run as the `postgres` user when the tests run as root, since PostgreSQL refuses root. `undefined`
 * when PostgreSQL is not installed; CI installs it and sets CODELOOP_REQUIRE_POSTGRES so that cannot pass silently.
 */
export async function startPostgres(): Promise<TestPostgres | undefined> {
  if (!found('initdb') || !found('pg_ctl')) {
    if (process.env.CODELOOP_REQUIRE_POSTGRES) throw new Error('PostgreSQL (initdb, pg_ctl) is required here: apt-get install postgresql');
    console.warn('PostgreSQL checks skipped: no initdb/pg_ctl on PATH (apt-get install postgresql)');
    return undefined;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === 0
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'codeloop', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://codeloop@127.0.0.1:${port}/postgres`,
    stop() {
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
