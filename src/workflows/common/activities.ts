import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.js';
import { NON_RETRYABLE_MODEL_ERRORS } from '../../shared/errors.js';

type Activities = ReturnType<typeof createActivities>;

/**
 * Model calls run on any worker. The SDK's retries are off, so this policy is the only one: the activity maps
 * 429/529/5xx to retryable failures carrying `retry-after`, and everything listed here fails at once.
 */
export const modelActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    maximumAttempts: 12,
    nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
  },
});

/**
 * File tools: quick, and safe to retry because writes are atomic and edits idempotent. The call site adds the
 * host's own task queue and a summary.
 */
export const fileActivities = proxyActivities<Activities>({
  // Edits lint their file, which may take a while; the heartbeat notices a dead host within 20 s regardless.
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

/** Commands heartbeat while they run and are killed with their process group when cancelled. */
export const commandActivities = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '20 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

/**
 * Fetches, pushes and pull requests, on the host that holds the repository, with the worker's credentials. A
 * refusal (unknown branch, bad token) fails at once; a network error is retried, a few times, minutes apart at most.
 */
export const remoteActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** The morning message to one target: retried a few times, then left to the batch result (it never fails a batch). */
export const notifyActivities = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4 },
});

/**
 * Worktrees, commits and merges, on the host that holds the repository. Each is safe to repeat; the heartbeat
 * notices a dead host within 20 s.
 */
export const gitActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});
