import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { expectApplied, expectRejected, linesOf } from './outcome.js';

const source = linesOf(
  'from math import fsum',
  '',
  '',
  'def add(first, second):',
  '    """The sum of two numbers."""',
  '    return first + second',
  '',
  'def mean(values):',
  '    return fsum(values) / len(values)',
);

/** What read_file shows for lines `from`-`to` of `source`, `N | text`, padded as it pads them. */
const pasted = (from: number, to: number, width = 1) =>
  source
    .split('\n')
    .slice(from - 1, to)
    .map((line, index) => `${String(from + index).padStart(width)} | ${line}`)
    .join('\n');

describe('line numbers pasted from read_file', () => {
  test('on every line of search and replace: taken off before matching, and never written', () => {
    const search = pasted(4, 6);
    const replace = [
      '4 | def add(first_operand, second_operand):',
      '5 |     """The sum of two numbers."""',
      '6 |     return first_operand + second_operand',
    ].join('\n');
    const outcome = expectApplied(applyEdits('calc.py', source, [{ search, replace }]));
    expect(outcome.content).toContain('def add(first_operand, second_operand):\n    """The sum');
    expect(outcome.content).toContain('    return first_operand + second_operand\n');
    expect(outcome.content).not.toMatch(/^\s*\d+ \| /m);
    expect(outcome.levels).toEqual(['exact']);
  });

  test('with read_file padding and an empty line printed as "N |"', () => {
    const search = ` 7 |\n 8 | def mean(values):\n 9 |     return fsum(values) / len(values)`;
    const replace = ' 7 |\n 8 | def mean(values):\n 9 |     return fsum(values) / max(len(values), 1)';
    const outcome = expectApplied(applyEdits('calc.py', source, [{ search, replace }]));
    expect(outcome.content).toContain('\ndef mean(values):\n    return fsum(values) / max(len(values), 1)\n');
    expect(outcome.content).not.toMatch(/\d \|/);
  });

  test("with search_codebase's path:line form", () => {
    const search = 'calc.py:6 |     return first + second';
    const outcome = expectApplied(applyEdits('calc.py', source, [{ search, replace: 'calc.py:6 |     return second + first' }]));
    expect(outcome.content).toContain('    return second + first\n');
  });

  test('only the replace lines that carry a prefix lose it; new lines without one are kept as written', () => {
    const search = pasted(6, 6);
    const replace = '6 |     total = first + second\n    return total';
    const outcome = expectApplied(applyEdits('calc.py', source, [{ search, replace }]));
    expect(outcome.content).toContain('    total = first + second\n    return total\n');
  });

  test('on only some lines of the search block: refused, saying which', () => {
    const search = '4 | def add(first, second):\n    """The sum of two numbers."""\n6 |     return first + second';
    const failure = expectRejected(applyEdits('calc.py', source, [{ search, replace: 'x' }]));
    expect(failure.message).toBe(
      'Edit 1 failed: lines 1 and 3 of the search block start with read_file\'s line numbers ("12 | ") and the others do not, ' +
        'so it is not clear what the file holds. Send the lines as the file has them, without "N | " on any line.',
    );
  });

  test('a fuzzy match never writes a prefix the replace carries', () => {
    // The search is close enough to match fuzzily; its replacement would write "4 | " into the file.
    const search = 'def add(first, secnd):\n    """The sum of two numbers."""\n    return first + secnd';
    const replace = '4 | def add(a, b):\n5 |     """The sum of two numbers."""\n6 |     return a + b';
    const failure = expectRejected(applyEdits('calc.py', source, [{ search, replace }]));
    expect(failure.message).toContain(
      'lines 1, 2 and 3 of the replace block start with line numbers ("12 | ") that the file does not have',
    );
  });

  test('a file that really holds such lines is edited as it is', () => {
    const table = linesOf('rows:', '1 | alpha', '2 | beta');
    const outcome = expectApplied(applyEdits('table.txt', table, [{ search: '1 | alpha\n2 | beta', replace: '1 | alpha\n2 | gamma' }]));
    expect(outcome.content).toBe(linesOf('rows:', '1 | alpha', '2 | gamma'));
  });

  test('code that only looks numbered is no paste', () => {
    const flags = linesOf('FLAGS = (', '    1 | 2', ')');
    const outcome = expectApplied(applyEdits('flags.py', flags, [{ search: 'FLAGS = (\n    1 | 2', replace: 'FLAGS = (\n    1 | 4' }]));
    expect(outcome.content).toBe(linesOf('FLAGS = (', '    1 | 4', ')'));
  });
});
