import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandAccess, Sandbox } from '../process/sandbox.js';
import { startService, type RunningService } from './services.js';
import { startTaskNetwork, type TaskNetwork } from './task-network.js';

/** One task's environment on this worker: its network namespace and the services running there. */
interface TaskEnvironment {
  network: Promise<TaskNetwork>;
  services: Map<string, Promise<RunningService>>;
  stateDir: string;
}

const environments = new Map<string, TaskEnvironment>();

/** The key a task's environment is kept under: the task's own (its workflow id), or its workspace's. */
export const environmentKeyOf = (access: CommandAccess, workspace: string) => access.environment?.key ?? `workspace:${workspace}`;

/**
 * Whether a command needs a network namespace that outlives it: the task's network is a list of hosts (reached through
 * its proxy), or the task has services (which its commands reach on their loopback). `on` shares the worker's network
 * and `off` alone gives each command a namespace of its own, as before.
 */
export const needsTaskNetwork = (access: CommandAccess) =>
  Array.isArray(access.network) || (access.network !== 'on' && (access.environment?.services?.length ?? 0) > 0);

/**
 * The task's network namespace, made at its first command that needs one, and its services, started there (again,
 * after a worker restart: they are the task's, so a new worker starts them the same way). Only a sandboxed worker has
 * network namespaces; unsandboxed, a list of hosts cannot be enforced and is refused.
 */
export async function prepareEnvironment(
  sandbox: Sandbox,
  access: CommandAccess,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<TaskNetwork | undefined> {
  const wantsNetwork = needsTaskNetwork(access);
  const services = access.environment?.services ?? [];
  if (!wantsNetwork && services.length === 0) return undefined;
  if (sandbox.mode === 'off' && Array.isArray(access.network))
    throw new Error('a network list needs the sandbox (CODELOOP_SANDBOX=off has no network namespaces to enforce it); use "on" or "off"');
  const key = environmentKeyOf(access, workspace);
  let environment = environments.get(key);
  if (!environment) {
    const stateDir = path.join(os.tmpdir(), 'codeloop-task-environments', key.replace(/[^A-Za-z0-9._-]/g, '_'));
    mkdirSync(stateDir, { recursive: true });
    const network =
      wantsNetwork && sandbox.bwrap
        ? startTaskNetwork(sandbox.bwrap, stateDir, Array.isArray(access.network) ? access.network : undefined)
        : Promise.resolve(undefined as unknown as TaskNetwork);
    environment = { network, services: new Map(), stateDir };
    environments.set(key, environment);
    network.catch(() => environments.delete(key));
  }
  const network = wantsNetwork ? await environment.network : undefined;
  for (const spec of services) {
    let running = environment.services.get(spec.name);
    if (!running || (await running.catch(() => undefined))?.process.exitCode !== null) {
      running = startService(sandbox, spec, { workspace, stateDir: environment.stateDir, access, network, env });
      environment.services.set(spec.name, running);
      running.catch(() => environment!.services.delete(spec.name));
    }
    await running;
  }
  return network;
}

/** Ends a task's environment: its services (every process they started) and its network namespace and proxy. */
export async function stopEnvironment(key: string): Promise<void> {
  const environment = environments.get(key);
  if (!environment) return;
  environments.delete(key);
  for (const running of environment.services.values()) (await running.catch(() => undefined))?.stop();
  await (await environment.network.catch(() => undefined))?.close();
}
