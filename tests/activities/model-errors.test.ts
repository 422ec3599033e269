import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import { retryAfterMs, toModelFailure } from '../../src/activities/model-errors.js';

const apiError = (status: number, type: string, headers: Record<string, string> = {}, errorCode?: string) =>
  Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message: 'boom', details: errorCode ? { error_code: errorCode } : undefined } },
    undefined,
    new Headers(headers),
  );

const failure = (error: unknown) => toModelFailure(error, 'host-a') as ApplicationFailure;

describe('the retry decision', () => {
  test.each([
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
    [500, 'api_error'],
    [503, 'api_error'],
  ])('%i is retryable', (status, type) => {
    const result = failure(apiError(status, type));
    expect(result.type).toBe('ModelUnavailable');
    expect(result.nonRetryable).toBe(false);
  });

  test.each([
    [400, 'invalid_request_error', 'ModelRequestRejected'],
    [401, 'authentication_error', 'ModelAuthFailed'],
    [403, 'permission_error', 'ModelAuthFailed'],
    [404, 'not_found_error', 'ModelRequestRejected'],
  ])('%i is not', (status, type, errorType) => {
    const result = failure(apiError(status, type));
    expect(result.type).toBe(errorType);
    expect(result.nonRetryable).toBe(true);
  });

  test('a spend-limit 429 is not retried', () => {
    const result = failure(apiError(429, 'rate_limit_error', {}, 'enforced_spend_limit_reached'));
    expect(result).toMatchObject({ type: 'ModelSpendLimit', nonRetryable: true });
  });

  test('retry-after becomes the next retry delay', () => {
    expect(failure(apiError(429, 'rate_limit_error', { 'retry-after': '7' })).nextRetryDelay).toBe(7_000);
    expect(failure(apiError(529, 'overloaded_error', { 'retry-after-ms': '1500' })).nextRetryDelay).toBe(1_500);
  });

  test('a 401 names the fix and the host', () => {
    expect(failure(apiError(401, 'authentication_error')).message).toContain('set a valid ANTHROPIC_API_KEY on worker host-a');
  });

  test('network errors retry; cancellation passes through untouched', () => {
    expect(failure(new Anthropic.APIConnectionError({ message: 'ECONNRESET' })).type).toBe('ModelUnavailable');
    const abort = new Anthropic.APIUserAbortError();
    expect(toModelFailure(abort, 'h')).toBe(abort);
  });
});

test('retry-after as an HTTP date', () => {
  const now = Date.parse('2026-11-22T00:00:00Z');
  expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 00:00:30 GMT' }), now)).toBe(30_000);
  expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
});
