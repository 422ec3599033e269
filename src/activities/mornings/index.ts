import { Context } from '@temporalio/activity';
import { withHeartbeat } from '../heartbeat.js';
import { fetchBase } from '../git/remote-git.js';
import type { NotifyTarget, PublishedBranch } from '../../shared/mornings.js';
import { deliverNotification, type MorningNews } from './notify.js';
import { publishBranch, type PublishRequest } from './publish-branch.js';

export type { PublishRequest } from './publish-branch.js';
export type { MorningNews } from './notify.js';

/**
 * The steps that reach outside the worker for a night's work: fetching a fresh base, pushing and opening pull
 * requests, sending the morning message. They use the worker's credentials, read from `env` at each call, so that
 * none enters workflow history.
 */
export function createMorningActivities(deps: { workerEnv: () => NodeJS.ProcessEnv }) {
  return {
    fetchBase: (input: { repo: string; remote: string; baseBranch?: string }) => withHeartbeat(() => fetchBase(input, deps.workerEnv())),
    publishBranch: (request: PublishRequest): Promise<PublishedBranch> => withHeartbeat(() => publishBranch(request, deps.workerEnv())),
    deliverNotification: (input: { target: NotifyTarget; news: MorningNews }): Promise<void> =>
      withHeartbeat(() => deliverNotification(input, deps.workerEnv(), deliveryKey())),
  };
}

/** One delivery's key, the same on each of its attempts: the workflow run and the activity's id within it. */
function deliveryKey(): string {
  const { workflowExecution, activityId } = Context.current().info;
  return [workflowExecution?.workflowId, workflowExecution?.runId, activityId].join('.');
}
