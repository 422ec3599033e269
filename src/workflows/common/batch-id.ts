import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../../shared/constants.js';
import { fnv1a } from './error-signature.js';

/** `CodeloopBatchId`: set on a batch and on each of its tasks' children. */
export const batchIdKey = defineSearchAttributeKey(SEARCH_ATTRIBUTES.batchId, SearchAttributeType.KEYWORD);

/** A batch id names its git branches and worktree directories, and keeps to the 64 characters `batchId` allows. */
export const MAX_BATCH_ID_LENGTH = 64;

/**
 * The time a Temporal Schedule appends to the workflow ids it starts (`<schedule id>-<RFC 3339 time>`), once the
 * colons are replaced.
 */
const SCHEDULED_TIME_SUFFIX = /-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/;

const safeCharacters = (workflowId: string) => workflowId.replace(/[^A-Za-z0-9._-]/g, '-');

/**
 * The batch id of a batch started without one, from its workflow id. A long id is cut in the middle, never at its
 * end: a scheduled run keeps its scheduled time whole (the schedule's name is what gets shorter), and any other id
 * keeps a fingerprint of the whole id. Either way two runs never share an integration branch.
 */
export function batchIdFromWorkflowId(workflowId: string): string {
  const safe = safeCharacters(workflowId);
  if (safe.length <= MAX_BATCH_ID_LENGTH) return safe;
  const suffix = SCHEDULED_TIME_SUFFIX.exec(safe)?.[0] ?? `-${fnv1a(workflowId)}`;
  return safe.slice(0, MAX_BATCH_ID_LENGTH - suffix.length) + suffix;
}

/** How batch ids were derived before: the first 64 characters. Runs started then keep their branches. */
export function legacyBatchIdFromWorkflowId(workflowId: string): string {
  return safeCharacters(workflowId).slice(0, MAX_BATCH_ID_LENGTH);
}
