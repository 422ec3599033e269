import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.js';

type Activities = ReturnType<typeof createActivities>;

/**
 * Worktrees, commits and merges, on the host that holds the repository. Each is safe to repeat; the heartbeat
 * notices a dead host within 20 s.
 */
export const gitActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});
