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
};

/**
 * The environment the agent's commands run with, built from an allow-list and never from the worker's own: a
 * worker holds the model key, cloud credentials and connection strings under names no deny-list could foresee.
 * `names` are the extra variables a task lists explicitly (its `env` input); `home` is the command's own home.
 *
 * `source` is the worker's environment, read here by name to copy values through, not to configure codeloop: that
 * is `loadConfig`'s job, and none of codeloop's own variables is on the allow-list.
 */
export function commandEnv(source: NodeJS.ProcessEnv, names: readonly string[], home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...ALLOWED_NAMES, ...names.filter((name) => !isCodeloopCredential(name))]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, HOME: home, ...DEFAULTS };
}
