import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgresBinaries, POSTGRES_MISSING, startPostgres as startPrivatePostgres } from '../../src/cluster/postgres.js';
import { freePort } from './free-port.js';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway private PostgreSQL cluster (the one `codeloop cluster` runs, without fsync) in a temporary directory on
 * a free port. `undefined` when PostgreSQL is not installed; CI installs it and sets CODELOOP_REQUIRE_POSTGRES so that
 * cannot pass silently.
 */
export async function startPostgres(): Promise<TestPostgres | undefined> {
  if (!findPostgresBinaries()) {
    if (process.env.CODELOOP_REQUIRE_POSTGRES) throw new Error(`${POSTGRES_MISSING}; it is required here`);
    console.warn(`PostgreSQL checks skipped: ${POSTGRES_MISSING}`);
    return undefined;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-pg-'));
  // PostgreSQL runs as its own user when the tests run as root: it must be able to reach the directory.
  chmodSync(dir, 0o755);
  const postgres = await startPrivatePostgres({ dir: path.join(dir, 'cluster'), port: await freePort(), user: 'codeloop', durable: false });
  return {
    url: postgres.url,
    async stop() {
      await postgres.stop({ mode: 'immediate' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
