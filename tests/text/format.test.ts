import { expect, test } from 'vitest';
import { formatCount } from '../../src/text/format.js';

test('formatCount groups thousands exactly as en-US does, for integers of every size and sign and for fractions', () => {
  const values = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 123_456_789, -1, -1000, -98_765_432, Number.MAX_SAFE_INTEGER, 1234.5, 1e21];
  for (let digits = 1; digits <= 16; digits++) values.push(Number('9'.repeat(digits)), Number(`1${'0'.repeat(digits - 1)}`));
  for (const value of values) expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
});
