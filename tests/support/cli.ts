import { execFile } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { cliBundleDir } from './test-output.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `codeloop` CLI as a user would, against the test server: its source as compiled once for the run (see
 * `buildEntryPoints` in the global setup).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return startCli(args, env).done;
}

/**
 * As `runCli`, for a command that keeps running (`follow`): `started` settles once it has printed anything, so a test
 * can hold the workflow back until the command is really watching it.
 */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): { started: Promise<void>; done: Promise<CliRun> } {
  let printed!: () => void;
  const started = new Promise<void>((resolve) => (printed = resolve));
  const done = new Promise<CliRun>((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(cliBundleDir, 'codeloop.mjs'), ...args],
      { env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        printed();
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdout?.once('data', () => printed());
    child.stderr?.once('data', () => printed());
  });
  return { started, done };
}
