import { expect, test } from 'vitest';
import { terminalSafe } from '../../src/text/terminal-safe.js';

test('escape sequences, carriage returns and C1 controls are shown, not obeyed; lines and tabs stay', () => {
  const question = 'Approve running this command?\n\n    rm -rf build\x1b[2K\r\x1b[1A    ls\u009b0m\tok\x07';
  expect(terminalSafe(question)).toBe('Approve running this command?\n\n    rm -rf build\\x1b[2K\\x0d\\x1b[1A    ls\\x9b0m\tok\\x07');
});

test('ordinary text, accents and emoji are unchanged', () => {
  const text = 'Café — naïve 测试 ✅ {"a": 1}\n';
  expect(terminalSafe(text)).toBe(text);
});
