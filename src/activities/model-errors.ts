import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../shared/errors.js';

const SPEND_LIMIT_CODES = /spend_limit_reached|billing/;

/**
 * Turns a Messages API failure into Temporal's retry decision. The SDK's own retries are off, so this is the only
 * place that decides: 429/529/5xx and network errors retry (after the server's `retry-after` when it sends one);
 * 400/401/403/404 and a spend-limit 429 do not, because sending the same request again cannot succeed.
 */
export function toModelFailure(error: unknown, hostId: string): unknown {
  if (error instanceof Anthropic.APIUserAbortError) return error;
  if (error instanceof Anthropic.APIConnectionError) {
    return ApplicationFailure.retryable(`model API unreachable: ${error.message}`, ErrorType.ModelUnavailable);
  }
  if (!(error instanceof Anthropic.APIError) || error.status === undefined) return error;
  const status = error.status;
  const detail = `${status} ${error.type ?? 'error'}: ${error.apiMessage ?? error.message}`;
  if (status === 401 || status === 403) {
    return ApplicationFailure.nonRetryable(
      `the model API rejected the credentials (${detail}); set a valid ANTHROPIC_API_KEY on worker ${hostId} and restart it`,
      ErrorType.ModelAuthFailed,
    );
  }
  if (status === 429 && (SPEND_LIMIT_CODES.test(error.errorCode ?? '') || error.type === 'billing_error')) {
    return ApplicationFailure.nonRetryable(`the model account reached a spend limit (${detail})`, ErrorType.ModelSpendLimit);
  }
  if (status === 429 || status === 529 || status >= 500) {
    return ApplicationFailure.create({
      message: `model API unavailable (${detail})`,
      type: ErrorType.ModelUnavailable,
      nextRetryDelay: retryAfterMs(error.headers),
    });
  }
  return ApplicationFailure.nonRetryable(`the model API rejected the request (${detail})`, ErrorType.ModelRequestRejected);
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const milliseconds = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
