import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { ErrorType } from './errors.js';

/** Names each failing field, so "invalid task input: workspace: must be an absolute path" says what to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(input)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Parses workflow or CLI input. A failure is a non-retryable `ApplicationFailure`: bad input must fail the
 * workflow at once, never retry its task forever.
 */
export function parseOrFail<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw ApplicationFailure.nonRetryable(`invalid ${what}: ${describeIssues(result.error)}`, ErrorType.InvalidInput);
  }
  return result.data;
}
