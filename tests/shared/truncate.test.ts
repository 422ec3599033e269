import { expect, test } from 'vitest';
import { truncateEnd, truncateMiddle } from '../../src/text/truncate.js';

test('short text is left alone', () => {
  expect(truncateMiddle('abc', 10)).toBe('abc');
  expect(truncateMiddle('a'.repeat(4000), 4000)).toHaveLength(4000);
});

test('long text keeps its first and last halves and says how much went', () => {
  const text = `${'a'.repeat(3000)}${'m'.repeat(1000)}${'z'.repeat(3000)}`;
  const cut = truncateMiddle(text, 4000);
  expect(cut.startsWith('a'.repeat(2000))).toBe(true);
  expect(cut.endsWith('z'.repeat(2000))).toBe(true);
  expect(cut).toContain('[3000 characters omitted]');
  expect(cut).not.toContain('mm');
});

test('odd limits never lose the marker or overlap', () => {
  const cut = truncateMiddle('0123456789', 5);
  expect(cut).toBe('01\n… [6 characters omitted] …\n89');
});

test('truncateEnd keeps the start', () => {
  expect(truncateEnd('abcdef', 3)).toBe('abc\n… [truncated: 3 more characters]');
  expect(truncateEnd('abc', 3)).toBe('abc');
});
