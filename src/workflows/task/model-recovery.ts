import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { BlockerSpec } from '../common/blocker-desk.js';
import { ErrorType } from '../../shared/errors.js';

/**
 * What to do when the model activity has failed for good: ask a human (credentials, spend limit, an outage that
 * outlasted the retries), or fail the task (a request the API rejects as such).
 */
export type ModelFailurePlan = { ask: BlockerSpec; reason: string } | { fail: string; reason: string };

export function planForModelFailure(error: unknown): ModelFailurePlan | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  const message = cause?.message ?? error.message;
  const type = cause instanceof ApplicationFailure ? cause.type : undefined;
  switch (type) {
    case ErrorType.MissingApiKey:
    case ErrorType.ModelAuthFailed:
      return {
        reason: 'credentials',
        ask: {
          origin: 'credentials',
          question: `The model API cannot be used: ${message}. Set ANTHROPIC_API_KEY on the worker, then answer 'retry' (or 'stop' to fail the task).`,
          options: ['retry', 'stop'],
        },
      };
    case ErrorType.ModelSpendLimit:
      return {
        reason: 'spend_limit',
        ask: {
          origin: 'credentials',
          question: `The model account reached a spend limit: ${message}. Raise the limit, then answer 'retry' (or 'stop').`,
          options: ['retry', 'stop'],
        },
      };
    case ErrorType.ModelRequestRejected:
      return { reason: 'model_rejected_request', fail: message };
    default:
      if (type === ErrorType.ModelUnavailable || cause instanceof TimeoutFailure) {
        return {
          reason: 'model_unavailable',
          ask: {
            origin: 'model-unavailable',
            question: `The model API kept failing after every retry: ${message}. Answer 'retry' when it is back (or 'stop').`,
            options: ['retry', 'stop'],
          },
        };
      }
      return undefined;
  }
}
