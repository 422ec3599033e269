import { readFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors.js';
import type { Publish } from '../../shared/mornings.js';
import { createGitHubForge } from './github-forge.js';
import { createGitLabForge } from './gitlab-forge.js';
import type { Forge } from './forge-types.js';

/** A token from the worker's environment: the variable itself, or the file `<NAME>_FILE` names. Never from input. */
export function tokenFrom(env: NodeJS.ProcessEnv, name: string): string {
  const direct = env[name]?.trim();
  if (direct) return direct;
  const file = env[`${name}_FILE`];
  if (file) return readFileSync(file, 'utf8').trim();
  throw ApplicationFailure.nonRetryable(
    `no ${name} (or ${name}_FILE) on this worker: a pull request needs the forge's token on the worker that publishes`,
    ErrorType.ForgeFailed,
  );
}

/** The forge `publish.forge` names, with its token and API address from the worker's environment. */
export function forgeFor(kind: Publish['forge'], env: NodeJS.ProcessEnv): Forge {
  if (kind === 'gitlab') return createGitLabForge(env.GITLAB_API_URL ?? 'https://gitlab.com/api/v4', tokenFrom(env, 'GITLAB_TOKEN'));
  return createGitHubForge(env.GITHUB_API_URL ?? 'https://api.github.com', tokenFrom(env, 'GITHUB_TOKEN'));
}

/** `owner/name` from a remote's URL: `git@host:owner/name.git`, `https://host/owner/name(.git)`, `ssh://git@host/owner/name`. */
export function repositoryFromUrl(url: string): string | undefined {
  const match = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]+\/|[^@/]+@[^:/]+:)(.+?)(?:\.git)?\/?$/i.exec(url.trim());
  return match && match[1].includes('/') ? match[1] : undefined;
}
