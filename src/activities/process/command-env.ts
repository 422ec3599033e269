import type { CommandAccess } from '../../shared/command-access.js';
import { isCodeloopCredential } from '../../shared/task-input.js';

/** What every command may see of the worker's environment: where programs are, and how to show text. */
const ALLOWED_NAMES = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ'];

/**
 * Defaults for every command. Non-interactive: test runners, git and pagers never wait for a terminal. No Python
 * bytecode caches: they are checked against the source's mtime in whole seconds and its size, so an edit made in the
 * same second as the last run that keeps the size (`+= 1` to `+= 2`) would run the stale code; and the workspace
 * stays free of `__pycache__`.
 */
const DEFAULTS = {
  CI: 'true',
  GIT_TERMINAL_PROMPT: '0',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  PAGER: 'cat',
  PYTHONDONTWRITEBYTECODE: '1',
  // git refuses `stash` and `commit` without an identity, and the command's home has no config to give one.
  GIT_AUTHOR_NAME: 'codeloop agent',
  GIT_AUTHOR_EMAIL: 'agent@codeloop.invalid',
  GIT_COMMITTER_NAME: 'codeloop agent',
  GIT_COMMITTER_EMAIL: 'agent@codeloop.invalid',
  // npm's update notifier, audit and funding calls go to the registry on every run.
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

/**
 * Without network, package managers are told so and fail at once, instead of retrying a registry they cannot reach
 * for a minute or more (`npx eslint` waited 71 s before it failed): npm, pnpm and yarn 1 (`npm_config_offline`), pip,
 * uv, cargo and go.
 */
const OFFLINE = {
  npm_config_offline: 'true',
  YARN_ENABLE_OFFLINE_MODE: '1',
  PIP_NO_INDEX: '1',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  UV_OFFLINE: '1',
  CARGO_NET_OFFLINE: 'true',
  GOPROXY: 'off',
};

/**
 * The environment the agent's commands run with, built from an allow-list and never from the worker's own: a
 * worker holds the model key, cloud credentials and connection strings under names no deny-list could foresee.
 * `access.env` names the extra variables a task lists explicitly (its `env` input); `home` is the command's own home.
 *
 * `source` is the worker's environment, read here by name to copy values through, not to configure codeloop: that
 * is `loadConfig`'s job, and none of codeloop's own variables is on the allow-list.
 */
export function commandEnv(source: NodeJS.ProcessEnv, access: CommandAccess, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...ALLOWED_NAMES, ...access.env.filter((name) => !isCodeloopCredential(name))]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, HOME: home, ...DEFAULTS, ...(access.network === 'off' ? OFFLINE : {}) };
}
