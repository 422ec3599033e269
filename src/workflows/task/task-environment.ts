import { workflowInfo } from '@temporalio/workflow';
import type { WorkspaceBinding } from '../../activities/index.js';
import type { EnvironmentReport } from '../../activities/environment/index.js';
import type { CommandAccess } from '../../shared/command-access.js';
import type { TaskInput } from '../../shared/task-input.js';
import { commandActivities } from '../common/activities.js';
import { onHost, type HostWait } from '../common/host-wait.js';
import type { BlockerSpec } from '../common/blocker-desk.js';

/** The longest setup may take in all: its commands have their own limits (`setupTimeoutSeconds`, each). */
const SETUP_LIMIT = '3 hours';

/** What the task's environment came to, kept in its state (and shown in `getState` and the Web UI). */
export type TaskEnvironmentState = Omit<EnvironmentReport, 'failed'>;

/**
 * The task's environment (`setup`, `files`, `services` and `network` in its `codeloop.json`): made before its first
 * turn, and before the gates' baseline, on the host that holds its workspace. A setup command that fails asks a
 * human, naming it with the tail of its output: `retry` runs setup again (after a fix), `stop` ends the task.
 */
export async function prepareTaskEnvironment(
  input: TaskInput,
  binding: WorkspaceBinding,
  wait: HostWait,
  askHuman: (spec: BlockerSpec) => Promise<string>,
  stop: (message: string) => Promise<never>,
): Promise<TaskEnvironmentState> {
  const summary = `set up the task's environment on ${binding.hostId}`;
  for (;;) {
    const report = await onHost(wait, summary, (limit) =>
      commandActivities.prepareTaskEnvironment.executeWithOptions(
        { taskQueue: binding.hostQueue, summary, ...limit, startToCloseTimeout: SETUP_LIMIT },
        [{ workspace: binding.workspace, network: input.network, env: input.env, key: environmentKey() }],
      ),
    );
    const { failed, ...state } = report;
    if (!failed) return state;
    const ended = failed.timedOut ? 'timed out' : `exited with ${failed.exitCode ?? 'no code'}`;
    const answer = await askHuman({
      origin: 'setup',
      question: `The task's setup failed: \`${failed.command}\` ${ended}. Fix it (codeloop.json, or the checkout), then answer 'retry'; or 'stop' to fail the task.`,
      context: failed.output,
      options: ['retry', 'stop'],
    });
    if (/^\s*stop\b/i.test(answer)) return stop(`the task's setup failed: ${failed.command} ${ended}`);
  }
}

/** Whether the task has anything on its host to end: services, or a network namespace and proxy for its list. */
export const hasHostEnvironment = (input: TaskInput, environment: TaskEnvironmentState | undefined) =>
  Array.isArray(environment?.network ?? input.network) || (environment?.services.length ?? 0) > 0;

/** Ends the task's services and network namespace on its host; nothing to end is fine. */
export async function stopTaskEnvironment(binding: WorkspaceBinding, wait: HostWait): Promise<void> {
  const summary = `stop the task's services on ${binding.hostId}`;
  await onHost(wait, summary, (limit) =>
    commandActivities.stopTaskEnvironment.executeWithOptions({ taskQueue: binding.hostQueue, summary, ...limit }, [environmentKey()]),
  );
}

/** What the task's commands get: its network (narrowed by `codeloop.json`), its variables, its environment. */
export function commandAccess(input: TaskInput, environment: TaskEnvironmentState | undefined): CommandAccess {
  // A network list is enforced by a proxy of the task's own, kept (and ended) under the task's key.
  if (!environment)
    return { network: input.network, env: input.env, ...(Array.isArray(input.network) ? { environment: { key: environmentKey() } } : {}) };
  return {
    network: environment.network,
    env: input.env,
    dependencies: environment.dependencies,
    environment: { key: environmentKey(), ...(environment.services.length ? { services: environment.services } : {}) },
  };
}

/** For the prompt's project section: what setup did, which services run where, which files were copied in. */
export function describeEnvironment(environment: TaskEnvironmentState): string[] {
  const lines: string[] = [];
  if (environment.setup.length)
    lines.push(
      `Setup ran before you started, in this workspace: ${environment.setup.map((step) => `\`${step.command}\` (exit ${step.exitCode})`).join(', ')}; its installs are this task's own.`,
    );
  for (const service of environment.services)
    lines.push(`Service ${service.name} runs for this task (\`${service.command}\`); reach it on 127.0.0.1 from your commands.`);
  if (environment.files.copied.length) lines.push(`Copied from the checkout (never committed): ${environment.files.copied.join(', ')}.`);
  if (environment.files.missing.length)
    lines.push(`Named in codeloop.json but missing in the checkout: ${environment.files.missing.join(', ')}.`);
  return lines;
}

/** The task's environment is its own: one per workflow (a retry or a batch re-run starts a new one). */
const environmentKey = () => workflowInfo().workflowId;
