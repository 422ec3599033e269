import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ErrorType } from './errors.js';

/** Names each failing field, so "invalid task input: workspace: must be an absolute path" says what to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${whereIs(issue)}${issue.message}`).join('; ');
}

/** An unknown key's message names the key itself, so at the top level it needs no "(input)" in front. */
function whereIs(issue: z.core.$ZodIssue): string {
  if (issue.path.length > 0) return `${issue.path.join('.')}: `;
  return issue.code === 'unrecognized_keys' ? '' : '(input): ';
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

/**
 * `z.strictObject` whose unknown keys are refused by name, with the closest known key when one is near. A dropped
 * key is a silent change of meaning: `{"aproval": "always"}` would run with approval `never`.
 */
export function objectWithKnownKeys<Shape extends z.core.$ZodLooseShape>(shape: Shape, notAnObject?: string) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => describeUnknownKey(key, known)).join('; ');
      return issue.code === 'invalid_type' ? notAnObject : undefined;
    },
  });
}

/** `unknown key "aproval" (did you mean "approval"?)`. */
export function describeUnknownKey(key: string, known: readonly string[]): string {
  const closest = closestKey(key, known);
  return `unknown key "${key}"${closest ? ` (did you mean "${closest}"?)` : ''}`;
}

/** The known key a typo most likely meant: within a third of its length in edits, case ignored. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.floor(key.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/** Levenshtein distance, one row at a time. */
function editDistance(from: string, to: string): number {
  let previous = Array.from({ length: to.length + 1 }, (_, index) => index);
  for (let i = 1; i <= from.length; i++) {
    const current = [i];
    for (let j = 1; j <= to.length; j++) {
      const substitution = previous[j - 1] + (from[i - 1] === to[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[to.length];
}
