import { Context } from '@temporalio/activity';
import type { WorkspaceShell } from '../tools/run-command.js';
import { runProcess } from './run-process.js';
import { scrubbedEnv } from './scrubbed-env.js';

/**
 * The shell the tools use inside an activity: a scrubbed environment, heartbeats while the command runs, and the
 * process group killed when the activity is cancelled.
 */
export function createActivityShell(): WorkspaceShell {
  return (command, { workspace, timeoutMs }) => {
    const context = Context.current();
    return runProcess({
      command,
      cwd: workspace,
      timeoutMs,
      env: scrubbedEnv(),
      signal: context.cancellationSignal,
      onProgress: () => context.heartbeat(),
    });
  };
}
