import { expect, test } from 'vitest';
import { compareFindings, parseEslintFindings, parseRuffFindings } from '../../src/activities/verification/lint-findings.js';

const finding = (rule: string, line: number, message = `${rule} message`) => ({ rule, line, column: 1, message });

test('a finding that only moved is pre-existing; one more of the same kind is new, and it is the later one', () => {
  const before = [finding('E501', 3), finding('CPY001', 1)];
  const after = [finding('CPY001', 1), finding('E501', 10), finding('E501', 4)];
  expect(compareFindings(after, before)).toEqual({ introduced: [finding('E501', 10)], preExisting: 2 });
});

test('a finding fixed by the edit is simply gone; one with another message is new', () => {
  expect(compareFindings([finding('F401', 2, '`sys` imported but unused')], [finding('F401', 1, '`os` imported but unused')])).toEqual({
    introduced: [finding('F401', 2, '`sys` imported but unused')],
    preExisting: 0,
  });
});

test('ruff and eslint JSON parse; anything else is undefined, so the caller shows the output whole', () => {
  const ruff = 'warning: something\n[{"code":null,"message":"SyntaxError: bad","location":{"row":2,"column":5}}]';
  expect(parseRuffFindings(ruff)).toEqual([{ rule: 'syntax-error', line: 2, column: 5, message: 'SyntaxError: bad' }]);
  const eslint =
    '[{"messages":[{"ruleId":"semi","severity":1,"message":"warn","line":1,"column":1},{"ruleId":"no-undef","severity":2,"message":"x","line":3,"column":2}]}]';
  expect(parseEslintFindings(eslint)).toEqual([{ rule: 'no-undef', line: 3, column: 2, message: 'x' }]);
  expect(parseRuffFindings('ruff crashed')).toBeUndefined();
  expect(parseEslintFindings('{"not":"an array"}')).toBeUndefined();
});
