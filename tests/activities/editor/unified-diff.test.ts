import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { createUnifiedDiff } from '../../../src/activities/editor/unified-diff.js';
import { expectApplied, linesOf } from './outcome.js';

const ten = linesOf(...Array.from({ length: 10 }, (_, index) => `line ${index + 1}`));

describe('unified diff', () => {
  test('has a/ and b/ headers, no Index or ==== lines, and 3 lines of context', () => {
    const outcome = expectApplied(applyEdits('src/app.ts', ten, [{ search: 'line 5', replace: 'line five' }]));
    expect(outcome.diff).toBe(
      [
        '--- a/src/app.ts',
        '+++ b/src/app.ts',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+line five',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    );
  });

  test('covers every edit of the call in one diff', () => {
    const outcome = expectApplied(
      applyEdits('app.ts', ten, [
        { search: 'line 1\n', replace: 'line one\n' },
        { search: 'line 10', replace: 'line ten' },
      ]),
    );
    expect(outcome.diff.match(/^@@ /gm)).toEqual(['@@ ', '@@ ']);
    expect(outcome.diff).toContain('-line 1\n+line one\n');
    expect(outcome.diff).toContain('-line 10\n+line ten\n');
  });

  test('marks a missing final newline', () => {
    expect(createUnifiedDiff('a.txt', 'a\nb', 'a\nc')).toBe(
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
    );
  });

  test('is empty when nothing changed', () => {
    expect(createUnifiedDiff('a.txt', 'same\n', 'same\n')).toBe('');
  });
});
