import { runInTaskEnvironment } from '../../src/activities/environment/run-in-environment.js';
import { runProcess } from '../../src/activities/process/run-process.js';
import { createSandbox, type CommandAccess } from '../../src/activities/process/sandbox.js';
import type { WorkspaceShell } from '../../src/activities/tools/run-command.js';

/** The sandbox the worker would build on this host, from this process's environment. */
export const testSandbox = createSandbox(process.env);

/** The unsandboxed runner (`CODELOOP_SANDBOX=off`), for the cases that compare against it. */
export const unsandboxed = createSandbox({ ...process.env, CODELOOP_SANDBOX: 'off' });

/** A `WorkspaceShell` as the worker builds it, outside an activity: the sandbox and the worker's `env`. */
export function sandboxedShell(env: NodeJS.ProcessEnv = process.env, sandbox = testSandbox): WorkspaceShell {
  const shell: WorkspaceShell = (command, { workspace, timeoutMs, access }) =>
    runInTaskEnvironment({ command, cwd: workspace, timeoutMs, env, sandbox, access });
  return Object.assign(shell, { sandboxMode: sandbox.mode });
}

/** Runs one command in a workspace through the sandbox. */
export const runSandboxed = (
  command: string,
  workspace: string,
  options: { timeoutMs?: number; access?: CommandAccess; env?: NodeJS.ProcessEnv } = {},
) =>
  runProcess({
    command,
    cwd: workspace,
    timeoutMs: options.timeoutMs ?? 10_000,
    env: options.env ?? process.env,
    sandbox: testSandbox,
    access: options.access,
  });
