import { execFile } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { runCliInProcess, type CliRun } from './cli-in-process.js';
import { cliBundleDir } from './test-output.js';

export type { CliRun } from './cli-in-process.js';

/**
 * Runs a `codeloop` command against the test server, in this process (see `runCliInProcess`): what the command
 * prints, and its exit code, as a user would see them.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCliInProcess(args, { TEMPORAL_ADDRESS: inject('temporalAddress'), ...env });
}

/**
 * As `runCli`, but as a process of its own, the way a user runs it: its source as compiled once for the run (see
 * `buildEntryPoints` in the global setup). For what only a process shows: commander ending it, the compiled CLI.
 */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return startCli(args, env).done;
}

/**
 * As `runCliProcess`, for a command that keeps running (`follow`): `started` settles once it has printed anything, so
 * a test can hold the workflow back until the command is really watching it.
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
