import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.js';

/**
 * Quick reads on the shared queue, the same for a task and a batch: binding a workspace to the host that holds it,
 * reading a batch's tasks file.
 */
export const setupActivities = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});
