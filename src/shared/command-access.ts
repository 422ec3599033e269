/**
 * What a task lets its commands reach beyond the workspace, from its `network` and `env` input: the network, and
 * worker environment variables it names. Travels with every command's activity to the worker's sandbox.
 */
export interface CommandAccess {
  network: 'off' | 'on';
  env: readonly string[];
  /**
   * In a task worktree, whose dependency directories commands use: the checkout's (the default), or the worktree's
   * own, which the task's `setup` installs.
   */
  dependencies?: 'checkout' | 'own';
}

/** No network, no variables beyond the allow-list: what a task gets unless it asks. */
export const DEFAULT_ACCESS: CommandAccess = { network: 'off', env: [] };

/** Whether the worker that holds a task's workspace runs its commands in the sandbox. */
export type SandboxMode = 'on' | 'off';
