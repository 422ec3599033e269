import type { ServiceSpec } from './task-environment.js';

/**
 * What a task lets its commands reach beyond the workspace, from its `network` and `env` input: the network, and
 * worker environment variables it names. Travels with every command's activity to the worker's sandbox.
 */
export interface CommandAccess {
  /** `off`, `on` (the worker's network), or the hosts a proxy lets through (see `NetworkSchema`). */
  network: 'off' | 'on' | readonly string[];
  env: readonly string[];
  /**
   * In a task worktree, whose dependency directories commands use: the checkout's (the default), or the worktree's
   * own, which the task's `setup` installs.
   */
  dependencies?: 'checkout' | 'own';
  /**
   * The task's environment on its host: `key` (its workflow id) names the network namespace and services its commands
   * share, `services` what to start there (from `codeloop.json`; again after a worker restart).
   */
  environment?: { key: string; services?: ServiceSpec[] };
}

/** No network, no variables beyond the allow-list: what a task gets unless it asks. */
export const DEFAULT_ACCESS: CommandAccess = { network: 'off', env: [] };

/** Whether the worker that holds a task's workspace runs its commands in the sandbox. */
export type SandboxMode = 'on' | 'off';
