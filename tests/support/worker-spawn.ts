import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killNow, reapOnExit } from './reap-on-exit.js';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** SIGKILL: no shutdown, no chance to report anything. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `src/worker.ts` as its own process, the way `npm run worker` does (or `entry`, the same program compiled), with
 * `env` over this process's own, and waits until it polls. Free of vitest, so the benches use it too.
 */
export async function startWorkerProcess(
  env: NodeJS.ProcessEnv,
  { startTimeoutMs = 30_000, entry }: { startTimeoutMs?: number; entry?: string } = {},
): Promise<WorkerProcess> {
  const program = entry ? [entry] : ['--import', 'tsx', fileURLToPath(new URL('../../src/worker.ts', import.meta.url))];
  const child = reapOnExit(
    spawn(process.execPath, program, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + startTimeoutMs;
  while (!output.includes('codeloop worker on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      killNow(child);
      throw new Error(`worker did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
