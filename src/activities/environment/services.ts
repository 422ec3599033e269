import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ServiceSpec } from '../../shared/task-environment.js';
import { commandEnv } from '../process/command-env.js';
import { runProcess } from '../process/run-process.js';
import type { CommandAccess, Sandbox } from '../process/sandbox.js';
import type { TaskNetwork } from './task-network.js';

/** A service the task started, running until the task's environment is stopped. */
export interface RunningService {
  name: string;
  process: ChildProcess;
  log: string;
  stop(): void;
}

const READY_EVERY_MS = 500;
/** The longest a service may run: far past any task, so only `stop` ends it. */
const SERVICE_SECONDS = 30 * 24 * 3600;

/**
 * Starts a service in the task's sandbox (its own network namespace, so it listens on the task's loopback only) and
 * waits until its `ready` command succeeds. Its output goes to a log beside the task's state; a service that ends,
 * or is not ready in time, fails with the log's tail. Everything it started dies when it is stopped: its sandbox is
 * a PID namespace of its own.
 */
export async function startService(
  sandbox: Sandbox,
  spec: ServiceSpec,
  where: { workspace: string; stateDir: string; access: CommandAccess; network?: TaskNetwork; env: NodeJS.ProcessEnv },
): Promise<RunningService> {
  const log = path.join(where.stateDir, `service-${spec.name}.log`);
  const output = openSync(log, 'w');
  const launch = sandbox.launch(spec.command, {
    workspace: where.workspace,
    access: where.access,
    timeoutSeconds: SERVICE_SECONDS,
    network: where.network,
  });
  const child = spawn(launch.file, launch.args, {
    cwd: where.workspace,
    env: { ...commandEnv(where.env, where.access, launch.home), ...where.network?.env },
    detached: true,
    stdio: ['ignore', output, output],
  });
  child.unref();
  let ended: string | undefined;
  child.once('exit', (code, signal) => (ended = signal ?? `exit ${code}`));
  const service: RunningService = {
    name: spec.name,
    process: child,
    log,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      void launch.release();
    },
  };
  const deadline = Date.now() + spec.readyTimeoutSeconds * 1000;
  for (;;) {
    if (ended) throw new Error(`service ${spec.name} ended (${ended}) before it was ready: ${tail(log)}`);
    const ready = await runProcess({
      command: spec.ready,
      cwd: where.workspace,
      timeoutMs: 10_000,
      env: where.env,
      sandbox,
      access: where.access,
      network: where.network,
    });
    if (ready.exitCode === 0) return service;
    if (Date.now() > deadline) {
      service.stop();
      throw new Error(
        `service ${spec.name} was not ready after ${spec.readyTimeoutSeconds} s (${spec.ready}: ${ready.output.trim().split('\n').at(-1) ?? ''}): ${tail(log)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, READY_EVERY_MS));
  }
}

function tail(log: string): string {
  try {
    return readFileSync(log, 'utf8').trim().split('\n').slice(-10).join('\n') || '(no output)';
  } catch {
    return '(no output)';
  }
}
