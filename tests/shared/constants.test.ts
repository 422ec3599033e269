import { expect, test } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
test('search attribute names', () => {
  expect(Object.values(SEARCH_ATTRIBUTES)).toEqual(['CodeloopStatus', 'CodeloopPhase', 'CodeloopBatchId']);
});
