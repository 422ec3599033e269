import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { detectLineEnding, spliceLines, splitBlock, splitLines } from '../../../src/activities/editor/line-endings.js';
import { expectApplied } from './outcome.js';

describe('CRLF files', () => {
  const crlf = 'function f() {\r\n  return 1;\r\n}\r\n';

  test('an exact multi-line edit written with \\n keeps \\r\\n', () => {
    const outcome = expectApplied(applyEdits('a.ts', crlf, [{ search: '  return 1;\n}', replace: '  return 2;\n}\n\nf();' }]));
    expect(outcome.levels).toEqual(['exact']);
    expect(outcome.content).toBe('function f() {\r\n  return 2;\r\n}\r\n\r\nf();\r\n');
  });

  test('a line-level edit inserts lines with \\r\\n', () => {
    const outcome = expectApplied(applyEdits('a.ts', crlf, [{ search: 'return  1;', replace: 'log();\nreturn 1;' }]));
    expect(outcome.levels).toEqual(['indentation']);
    expect(outcome.content).toBe('function f() {\r\n  log();\r\n  return 1;\r\n}\r\n');
  });

  test('an edit sent with \\r\\n applies to a \\n file as \\n', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\nb\nc\n', [{ search: 'a\r\nb\r\n', replace: 'x\r\ny\r\n' }]));
    expect(outcome.content).toBe('x\ny\nc\n');
  });

  test('lines an edit does not touch keep their own endings in a mixed file', () => {
    const mixed = 'one\r\ntwo\nthree\r\nfour\r\n';
    const outcome = expectApplied(applyEdits('a.ts', mixed, [{ search: '  two\n  three', replace: 'TWO\nTHREE' }]));
    expect(outcome.levels).toEqual(['indentation']);
    expect(outcome.content).toBe('one\r\nTWO\r\nTHREE\r\nfour\r\n');
  });

  test('the diff of a CRLF file keeps the \\r', () => {
    const outcome = expectApplied(applyEdits('a.ts', crlf, [{ search: 'return 1;', replace: 'return 2;' }]));
    expect(outcome.diff).toContain('-  return 1;\r\n+  return 2;\r\n');
  });
});

describe('final newline', () => {
  test('a line-level edit of the last line keeps a missing final newline', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\n  b', [{ search: '    b', replace: '    c\n    d' }]));
    expect(outcome.content).toBe('a\n  c\n  d');
  });

  test('a line-level edit of the last line keeps a present final newline', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\n  b\n', [{ search: '    b', replace: '    c\n    d' }]));
    expect(outcome.content).toBe('a\n  c\n  d\n');
  });

  test('deleting the last line of a file without a final newline keeps it without one', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\n  b', [{ search: '    b', replace: '' }]));
    expect(outcome.content).toBe('a');
  });

  test('deleting a middle line at line level leaves the others intact', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\n  b\nc\n', [{ search: '    b', replace: '' }]));
    expect(outcome.content).toBe('a\nc\n');
  });

  test('a final newline missing from replace only is treated as a slip', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\nb\nc\n', [{ search: 'b\n', replace: 'x' }]));
    expect(outcome.content).toBe('a\nx\nc\n');
  });

  test('a final newline added to replace only is treated as a slip', () => {
    const outcome = expectApplied(applyEdits('a.ts', 'a\nb\nc\n', [{ search: 'b', replace: 'b\nb2\n' }]));
    expect(outcome.content).toBe('a\nb\nb2\nc\n');
  });
});

describe('line helpers', () => {
  test('detectLineEnding picks the majority and defaults to \\n', () => {
    expect(detectLineEnding('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(detectLineEnding('a\r\nb\nc\n')).toBe('\n');
    expect(detectLineEnding('no breaks')).toBe('\n');
    expect(detectLineEnding('')).toBe('\n');
  });

  test('splitLines keeps each terminator and has no empty last line', () => {
    expect(splitLines('a\r\nb\nc')).toEqual([
      { text: 'a', eol: '\r\n' },
      { text: 'b', eol: '\n' },
      { text: 'c', eol: '' },
    ]);
    expect(splitLines('a\n')).toEqual([{ text: 'a', eol: '\n' }]);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n\n')).toEqual([
      { text: '', eol: '\n' },
      { text: '', eol: '\n' },
    ]);
  });

  test('splitBlock treats one final newline as ending the last line', () => {
    expect(splitBlock('a\nb\n')).toEqual(['a', 'b']);
    expect(splitBlock('a\nb')).toEqual(['a', 'b']);
    expect(splitBlock('a\n\n')).toEqual(['a', '']);
    expect(splitBlock('\n')).toEqual(['']);
    expect(splitBlock('')).toEqual([]);
  });

  test('spliceLines gives the last new line the terminator of the last old one', () => {
    const lines = splitLines('a\nb');
    expect(spliceLines(lines, 1, 1, ['x', 'y'], '\r\n')).toEqual([
      { text: 'a', eol: '\n' },
      { text: 'x', eol: '\r\n' },
      { text: 'y', eol: '' },
    ]);
  });
});
