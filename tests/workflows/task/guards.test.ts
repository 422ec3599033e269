import { expect, test } from 'vitest';
import type { ExecutedCall } from '../../../src/workflows/common/tool-calls.js';
import { Guards } from '../../../src/workflows/task/guards.js';

const executed = (name: string, input: unknown, isError: boolean, content = `${name} ${JSON.stringify(input)}`): ExecutedCall => ({
  call: { type: 'tool_use', id: `${name}-${JSON.stringify(input)}`, name, input },
  name: name as ExecutedCall['name'],
  input,
  summary: name,
  outcome: { content, isError, ...(name === 'edit_file' && !isError ? { changedFile: (input as { path: string }).path } : {}) },
});

const EXPLORING = [
  'grep -rn first_operand calc',
  'python3 -c "import tracker"',
  'ls build',
  'python3 -m pytest tests/test_missing.py',
  'cat setup.cfg',
];

test('five failing exploratory commands: the counting guards escalated, unless a passing run_tests came between; the progress guards never do', () => {
  const turns = EXPLORING.map((command) => [executed('run_command', { command }, true, `$ ${command}\nexit code 1: ${command} failed`)]);
  const counting = new Guards(undefined, () => false);
  expect(turns.map((turn, index) => counting.afterTools(turn, index + 1, 8).escalate?.question.split('.')[0])).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    'Escalating: 5 failures since the last green run',
  ]);
  // What made the same five commands pass unnoticed end to end: a green run_tests between them starts the count again.
  const reset = new Guards(undefined, () => false);
  turns.slice(0, 3).forEach((turn, index) => reset.afterTools(turn, index + 1, 8));
  reset.afterTools([executed('run_tests', {}, false)], 4, 8);
  expect(turns.slice(3).map((turn, index) => reset.afterTools(turn, index + 5, 8).escalate)).toEqual([undefined, undefined]);

  const progress = new Guards(undefined, () => true);
  expect(turns.map((turn, index) => progress.afterTools(turn, index + 1, 8))).toEqual([{}, {}, {}, {}, {}]);
});

test('the progress guards escalate the tests failing the same way after each of three edits', () => {
  const guards = new Guards(undefined, () => true);
  const verdicts = [1, 2, 3].map((round) => {
    guards.afterTools(
      [executed('edit_file', { path: 'calc.py', edits: [{ search: `v${round}`, replace: `v${round + 1}` }] }, false)],
      2 * round - 1,
      8,
    );
    return guards.afterTools([executed('run_tests', {}, true, 'FAILED tests/test_calc.py::test_add - assert 1 == 2')], 2 * round, 8);
  });
  expect(verdicts.slice(0, 2)).toEqual([{}, {}]);
  expect(verdicts[2]?.escalate).toMatchObject({
    kind: 'fixes',
    question: expect.stringMatching(/^Escalating: the same error 3 times \(tests\)/),
  });
});
