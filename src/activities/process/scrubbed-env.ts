const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)/i;
const SECRET_PREFIXES = ['ANTHROPIC_', 'OPENAI_', 'AWS_', 'GOOGLE_', 'AZURE_', 'GITHUB_', 'GH_', 'TEMPORAL_', 'CODELOOP_', 'NPM_', 'DOCKER_'];

/**
 * The environment the agent's commands see: the worker's, minus anything that looks like a secret or a
 * connection to codeloop's own infrastructure. `ANTHROPIC_API_KEY` and the like never reach the agent's shell.
 * Non-interactive defaults keep test runners and git from waiting for a terminal.
 */
export function scrubbedEnv(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || SECRET_NAME.test(name) || SECRET_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    env[name] = value;
  }
  return { ...env, CI: 'true', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', FORCE_COLOR: '0', PAGER: 'cat' };
}
