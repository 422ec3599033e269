import { spawn } from 'node:child_process';
import path from 'node:path';
import type { FakeMessagesApi } from '../tests/support/fake-messages-api.js';
import { benchDir } from './harness.js';

export interface BenchWorker {
  pid: number;
  stop(): Promise<void>;
}

/**
 * `src/worker.ts` as its own process, as `npm run worker` runs it, against `address` with the model pointed at the
 * bench's loopback Messages API; resolves once it polls. Its own process, so its memory is its own to measure.
 */
export async function spawnBenchWorker(options: {
  address: string;
  taskQueue: string;
  fake: FakeMessagesApi;
  bundlePath: string;
}): Promise<BenchWorker> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(benchDir, '../src/worker.ts')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      CODELOOP_TASK_QUEUE: options.taskQueue,
      CODELOOP_HOST_ID: 'bench',
      CODELOOP_WORKFLOW_BUNDLE: options.bundlePath,
      CODELOOP_LOG_LEVEL: 'ERROR',
      ANTHROPIC_API_KEY: options.fake.apiKey,
      ANTHROPIC_BASE_URL: options.fake.url,
      CODELOOP_MODEL: 'bench-model',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('codeloop worker on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the bench worker did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
