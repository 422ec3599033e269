import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { BatchResult } from '../../shared/batch-state.js';
import { ErrorType } from '../../shared/errors.js';
import { morningTitle, renderPullRequestBody } from '../../text/morning-report.js';
import type { Publish, PublishedBranch } from '../../shared/mornings.js';
import { tryGit } from '../git/run-git.js';
import { pushBranch, remoteDefaultBranch, remoteGit } from '../git/remote-git.js';
import { forgeFor, repositoryFromUrl } from './forge.js';

export interface PublishRequest {
  repo: string;
  branch: string;
  /** The commit or ref the branch was cut from, for its diffstat. */
  diffBase: string;
  publish: Publish;
  /** The batch's `baseBranch`, the pull request's base unless `publish.base` names one. */
  baseBranch?: string;
  result: BatchResult;
  taskId?: string;
  title?: string;
}

/** The batch's page in the Web UI, from the worker's `CODELOOP_UI_URL`; none when it is not set. */
export function batchPageUrl(env: NodeJS.ProcessEnv): string | undefined {
  const base = env.CODELOOP_UI_URL?.replace(/\/$/, '');
  if (!base) return undefined;
  const { workflowNamespace, workflowExecution } = Context.current().info;
  if (!workflowNamespace || !workflowExecution) return undefined;
  return `${base}/namespaces/${encodeURIComponent(workflowNamespace)}/workflows/${encodeURIComponent(workflowExecution.workflowId)}`;
}

/**
 * Pushes a branch with the worker's credentials and opens its pull request, or updates the one already open: run
 * again (a retry, a worker that died midway, a second run of the step), it leaves one pull request with the latest
 * description.
 */
export async function publishBranch(request: PublishRequest, env: NodeJS.ProcessEnv): Promise<PublishedBranch> {
  const { publish, repo, branch } = request;
  await pushBranch({ repo, remote: publish.remote, branch }, env);
  const published: PublishedBranch = { branch, remote: publish.remote, ...(request.taskId ? { taskId: request.taskId } : {}) };
  if (publish.pullRequest === 'none') return published;
  const repository = publish.repository ?? repositoryFromUrl(await remoteGit(repo, ['remote', 'get-url', publish.remote], env));
  if (!repository)
    throw ApplicationFailure.nonRetryable(
      `cannot tell the repository of remote ${publish.remote} from its URL; set publish.repository (owner/name)`,
      ErrorType.ForgeFailed,
    );
  const base = publish.base ?? request.baseBranch ?? (await remoteDefaultBranch(repo, publish.remote, env));
  const diffstat = await tryGit(repo, ['diff', '--stat', `${request.diffBase}...refs/heads/${branch}`], { raw: true });
  const body = renderPullRequestBody({ result: request.result, uiUrl: batchPageUrl(env), diffstat: diffstat.stdout });
  const pullRequest = await forgeFor(publish.forge, env).upsertPullRequest({
    repository,
    head: branch,
    base,
    title: request.title ?? morningTitle(request.result),
    body,
    draft: publish.draft,
  });
  return { ...published, pullRequest };
}
