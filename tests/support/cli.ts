import { execFile } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `codeloop` bin as a user would, against the test server. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.resolve('bin/codeloop.js'), ...args],
      { env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
