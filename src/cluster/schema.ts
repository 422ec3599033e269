import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { PrivatePostgres } from './postgres.js';
import { tailOf } from './process.js';
import { SCHEMA_SCRIPT, schemaEnvironment } from './server-config.js';
import type { ClusterTools } from './tools.js';

/**
 * Creates or upgrades the `temporal` and `temporal_visibility` databases with `deploy/temporal-schema.sh`, the same
 * one-shot docker-compose.yml runs; every step of it is idempotent. Its output goes to `logFile`.
 */
export async function setUpSchemas(tools: ClusterTools, postgres: PrivatePostgres, logFile: string): Promise<void> {
  const log = openSync(logFile, 'a');
  try {
    const child = spawn('/bin/sh', [SCHEMA_SCRIPT], { env: schemaEnvironment(tools, postgres), stdio: ['ignore', log, log] });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`the schema setup failed (exit ${code}); the end of ${logFile}:\n${tailOf(logFile)}`);
  } finally {
    closeSync(log);
  }
}
