import { expect, test } from 'vitest';
import { errorSignature, normalizeError } from '../../src/workflows/common/error-signature.js';

test.each([
  ['File "/home/a/x/test_calc.py", line 12, in test_sub', 'File "/srv/b/test_calc.py", line 40, in test_sub'],
  ['src/app.ts:10:5 - error TS2322', 'lib/app.ts:99:1 - error TS2322'],
  ['segfault at 0x7ffd1234', 'segfault at 0xdeadbeef'],
  ['2026-11-22T03:00:00Z failed after 1.5s', '2026-11-23T04:10:09Z failed after 30s'],
  ['expected "a very long quoted string value here" to match', 'expected "another very long quoted string value" to match'],
])('the same error: %s', (a, b) => {
  expect(errorSignature(a)).toBe(errorSignature(b));
});

test('different errors keep different signatures', () => {
  expect(errorSignature('TypeError: x is undefined')).not.toBe(errorSignature('SyntaxError: unexpected token'));
  expect(errorSignature('assert 2 == 3')).toBe(errorSignature('assert 4 == 5'));
  expect(normalizeError('assert add(1, 2) == 4')).toBe('assert add(<n>, <n>) == <n>');
});
