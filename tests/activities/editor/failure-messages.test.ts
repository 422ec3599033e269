import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { expectRejected, linesOf } from './outcome.js';

const numbered = Array.from({ length: 14 }, (_, index) => `const line${index + 1} = ${index + 1};`);
const file = linesOf(...numbered);

describe('failure messages', () => {
  test('show the nearest lines with 2 lines of context and aligned line numbers', () => {
    const search = 'const line10 = ten;\nconst line11 = eleven;';
    const outcome = expectRejected(applyEdits('src/n.ts', file, [{ search, replace: 'x' }]));
    expect(outcome.message).toBe(
      [
        'Edit 1 failed: the search block was not found in src/n.ts, not even ignoring whitespace and indentation.',
        'The closest match is lines 10-11, 78% similar (85% needed):',
        '   8 | const line8 = 8;',
        '   9 | const line9 = 9;',
        '  10 | const line10 = 10;',
        '  11 | const line11 = 11;',
        '  12 | const line12 = 12;',
        '  13 | const line13 = 13;',
        'Copy the lines to change exactly as the file has them, with a few unchanged lines around them, and retry.',
      ].join('\n'),
    );
  });

  test('clip the context at the start of the file', () => {
    const outcome = expectRejected(applyEdits('n.ts', file, [{ search: 'const line1 = one;', replace: 'x' }]));
    expect(outcome.message).toContain(
      'The closest match is line 1, 83% similar (85% needed):\n  1 | const line1 = 1;\n  2 | const line2 = 2;\n' +
        '  3 | const line3 = 3;\nCopy',
    );
  });

  test('clip the context at the end of the file', () => {
    const outcome = expectRejected(applyEdits('n.ts', file, [{ search: 'const line14 = fourteen;', replace: 'x' }]));
    expect(outcome.message).toContain(
      'line 14, 66% similar (85% needed):\n  12 | const line12 = 12;\n  13 | const line13 = 13;\n  14 | const line14 = 14;\nCopy',
    );
  });

  test('show the whole file when it is shorter than the search block', () => {
    const outcome = expectRejected(
      applyEdits('short.ts', linesOf('alpha();'), [{ search: 'one();\ntwo();\nthree();\nfour();', replace: 'x' }]),
    );
    expect(outcome.message).toMatch(/The closest match is line 1, \d+% similar \(85% needed\):\n {2}1 \| alpha\(\);\n/);
  });

  test('say when the file is empty', () => {
    const outcome = expectRejected(applyEdits('empty.ts', '', [{ search: 'anything', replace: 'x' }]));
    expect(outcome.message).toBe(
      'Edit 1 failed: the search block was not found in empty.ts, not even ignoring whitespace and indentation.\n' +
        'empty.ts is empty.\n' +
        'Copy the lines to change exactly as the file has them, with a few unchanged lines around them, and retry.',
    );
  });

  test('name the failed edit out of several and say that none were applied', () => {
    const outcome = expectRejected(
      applyEdits('n.ts', file, [
        { search: 'const line1 = 1;', replace: 'const first = 1;' },
        { search: 'const line2 = 2;', replace: 'const second = 2;' },
        { search: 'nothing like this at all', replace: 'x' },
      ]),
    );
    expect(outcome.editIndex).toBe(2);
    expect(outcome.message).toMatch(/^Edit 3 of 3 failed: the search block was not found in n\.ts/);
    expect(outcome.message).toMatch(
      /\nNone of the 3 edits were applied; send them all again\.\nLine numbers count edits 1-2 as applied\.$/,
    );
  });

  test('show lines as earlier edits in the same call left them', () => {
    const outcome = expectRejected(
      applyEdits('n.ts', file, [
        { search: 'const line1 = 1;\n', replace: 'const zero = 0;\nconst line1 = 1;\n' },
        { search: 'const line5 = five;', replace: 'x' },
      ]),
    );
    expect(outcome.message).toContain(
      'line 6, 78% similar (85% needed):\n  4 | const line3 = 3;\n  5 | const line4 = 4;\n  6 | const line5 = 5;',
    );
    expect(outcome.message).toContain('Line numbers count edit 1 as applied.');
  });

  test('leave out the line-number note when earlier edits changed nothing', () => {
    const outcome = expectRejected(
      applyEdits('n.ts', file, [
        { search: 'const line1 = 1;', replace: 'const line1 = 1;' },
        { search: 'const line5 = five;', replace: 'x' },
      ]),
    );
    expect(outcome.message).not.toContain('Line numbers count');
  });

  test('round similarity down so a near miss never reads as reaching the threshold', () => {
    const line = 'abcdefghij'.repeat(20);
    const search = '#'.repeat(31) + line.slice(31);
    const outcome = expectRejected(applyEdits('n.ts', linesOf(line), [{ search, replace: 'x' }]));
    expect(1 - 31 / 200).toBeCloseTo(0.845);
    expect(outcome.message).toContain('line 1, 84% similar (85% needed)');
  });

  test('cut very long lines', () => {
    const outcome = expectRejected(applyEdits('n.ts', linesOf('x'.repeat(500)), [{ search: 'y'.repeat(20), replace: 'z' }]));
    expect(outcome.message).toContain(`  1 | ${'x'.repeat(200)}…\n`);
  });
});
