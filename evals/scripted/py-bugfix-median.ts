import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { edit, read, runTests } from './tools.js';

const BUGGY = '    ordered = sorted(values)\n    return ordered[len(ordered) // 2]';
const TEST_ANCHOR = 'def test_median_of_odd_length():\n    assert median([3, 1, 2]) == 2\n';

/** Reads, fixes the even case, adds a test, runs the tests. */
export const solve: Responder = byTurn([
  { text: 'Reading the module and its tests.', toolCalls: [read('stats/summary.py'), read('tests/test_summary.py')] },
  {
    text: 'For an even count the median is the mean of the two middle values.',
    toolCalls: [
      edit('stats/summary.py', [
        BUGGY,
        '    ordered = sorted(values)\n    middle = len(ordered) // 2\n    if len(ordered) % 2 == 0:\n        return (ordered[middle - 1] + ordered[middle]) / 2\n    return ordered[middle]',
      ]),
    ],
  },
  {
    text: 'A regression test.',
    toolCalls: [
      edit('tests/test_summary.py', [
        TEST_ANCHOR,
        `${TEST_ANCHOR}\n\ndef test_median_of_even_length():\n    assert median([1, 2, 3, 4]) == 2.5\n`,
      ]),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'median() now averages the two middle values of an even-length list; a test covers [1, 2, 3, 4] → 2.5.' },
]);

/**
 * A careless fix, for the checks to catch: the lower middle instead of the mean of the two (the hidden regression
 * test fails), and a pytest setting added to pyproject.toml on the way (the config must stay byte-identical).
 */
export const botch: Responder = byTurn([
  { text: 'Reading the module.', toolCalls: [read('stats/summary.py')] },
  {
    text: 'Taking the lower middle value, and making pytest quieter while I am at it.',
    toolCalls: [
      edit('stats/summary.py', [BUGGY, '    ordered = sorted(values)\n    return ordered[(len(ordered) - 1) // 2]']),
      edit('pyproject.toml', ['pythonpath = ["."]', 'pythonpath = ["."]\naddopts = "-q"']),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Fixed median for even-length lists.' },
]);
