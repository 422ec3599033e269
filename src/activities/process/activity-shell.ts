import { Context } from '@temporalio/activity';
import type { WorkspaceShell } from '../tools/run-command.js';
import { runInTaskEnvironment } from '../environment/run-in-environment.js';
import type { Sandbox } from './sandbox.js';

/**
 * The shell the tools use inside an activity: the worker's sandbox, an environment from the allow-list, heartbeats
 * while the command runs, and every process it started killed when the activity is cancelled. `env` is the worker's
 * environment that `commandEnv` copies allow-listed names from; it is not configuration.
 */
export function createActivityShell(sandbox: Sandbox, env: NodeJS.ProcessEnv = process.env): WorkspaceShell {
  const shell: WorkspaceShell = (command, { workspace, timeoutMs, access }) => {
    const context = Context.current();
    return runInTaskEnvironment({
      command,
      cwd: workspace,
      timeoutMs,
      env,
      sandbox,
      access,
      signal: context.cancellationSignal,
      onProgress: () => context.heartbeat(),
    });
  };
  return Object.assign(shell, { sandboxMode: sandbox.mode });
}
