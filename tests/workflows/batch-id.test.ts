import { describe, expect, test } from 'vitest';
import { batchIdFromWorkflowId, legacyBatchIdFromWorkflowId, MAX_BATCH_ID_LENGTH } from '../../src/workflows/common/batch-id.js';
import { BatchInputSchema } from '../../src/shared/batch-input.js';

const longName = `nightly-${'refactor-the-billing-module-'.repeat(3)}batch`;
const scheduled = (name: string, time: string) => `${name}-${time}`;

describe('batchIdFromWorkflowId', () => {
  test('a short id only has its unsafe characters replaced, as before', () => {
    expect(batchIdFromWorkflowId('nightly-2026-11-22T04:00:00Z')).toBe('nightly-2026-11-22T04-00-00Z');
    expect(batchIdFromWorkflowId('batch/a b')).toBe('batch-a-b');
    expect(batchIdFromWorkflowId('batch/a b')).toBe(legacyBatchIdFromWorkflowId('batch/a b'));
  });

  test('a long schedule name is cut, the scheduled time kept whole', () => {
    const id = batchIdFromWorkflowId(scheduled(longName, '2026-11-22T04:00:00Z'));
    expect(id).toHaveLength(MAX_BATCH_ID_LENGTH);
    expect(id.endsWith('-2026-11-22T04-00-00Z')).toBe(true);
    expect(id.startsWith('nightly-refactor-the-billing-module-')).toBe(true);
  });

  test('two nights of a long-named schedule get two batch ids, where the first 64 characters are the same', () => {
    const monday = scheduled(longName, '2026-11-23T04:00:00Z');
    const tuesday = scheduled(longName, '2026-11-24T04:00:00Z');
    expect(legacyBatchIdFromWorkflowId(monday)).toBe(legacyBatchIdFromWorkflowId(tuesday));
    expect(batchIdFromWorkflowId(monday)).not.toBe(batchIdFromWorkflowId(tuesday));
  });

  test('any other long id keeps a fingerprint of the whole id, so ids differing only at the end stay apart', () => {
    const first = batchIdFromWorkflowId(`batch-${'x'.repeat(80)}-1a2b3c4d`);
    const second = batchIdFromWorkflowId(`batch-${'x'.repeat(80)}-5e6f7a8b`);
    expect(first).toHaveLength(MAX_BATCH_ID_LENGTH);
    expect(first).toMatch(/^batch-x+-[0-9a-f]{8}$/);
    expect(first).not.toBe(second);
    expect(batchIdFromWorkflowId(`batch-${'x'.repeat(80)}-1a2b3c4d`)).toBe(first);
  });

  test('a derived id is a valid batchId, so the batch can continue as new with it', () => {
    for (const workflowId of [scheduled(longName, '2026-11-22T04:00:00Z'), `batch-${'y'.repeat(200)}`]) {
      expect(BatchInputSchema.safeParse({ batchId: batchIdFromWorkflowId(workflowId), tasksFile: 't.yaml', workspace: '/w' }).success).toBe(
        true,
      );
    }
  });
});
