import { expect, test } from 'vitest';
import { stripAnsi } from '../../src/text/ansi.js';

test('colours, cursor moves and OSC links are taken out; the text stays', () => {
  expect(stripAnsi('\u001b[31mFAILED\u001b[0m tests/test_a.py::\u001b[1mtest_words[c d]\u001b[0m')).toBe(
    'FAILED tests/test_a.py::test_words[c d]',
  );
  expect(stripAnsi('\u001b[2K\u001b[1Gdone')).toBe('done');
  expect(stripAnsi('\u001b]8;;https://example.org\u0007link\u001b]8;;\u0007')).toBe('link');
  expect(stripAnsi('plain | text [1m]')).toBe('plain | text [1m]');
});
