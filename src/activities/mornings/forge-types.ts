import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors.js';

/** What a pull request (GitHub) or merge request (GitLab) says. */
export interface PullRequestSpec {
  /** `owner/name`, or a GitLab project's path. */
  repository: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export interface PullRequestRef {
  number: number;
  url: string;
  /** False when an open one for the same branch was found and updated instead. */
  created: boolean;
}

/**
 * A forge opens a pull request for a branch, or updates the open one it already has: the step can run again (a
 * retried activity, a worker that died after the forge answered) and there is still one pull request.
 */
export interface Forge {
  upsertPullRequest(spec: PullRequestSpec): Promise<PullRequestRef>;
  /** The head branches of the repository's open pull requests (`codeloop gc` keeps those). */
  openPullRequestHeads(repository: string): Promise<string[]>;
}

/** A forge's refusal, with its status and message, as a non-retryable failure; network and 5xx errors stay retryable. */
export function forgeFailure(what: string, status: number | undefined, message: string): Error {
  const text = `${what} failed${status ? ` (${status})` : ''}: ${message}`;
  if (status !== undefined && status >= 400 && status < 500 && status !== 429)
    return ApplicationFailure.nonRetryable(text, ErrorType.ForgeFailed);
  return ApplicationFailure.retryable(text, ErrorType.ForgeFailed);
}
