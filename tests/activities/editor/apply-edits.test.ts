import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { expectApplied, expectRejected, linesOf } from './outcome.js';

const source = linesOf('const a = 1;', 'const b = 2;', 'const c = 3;');

describe('exact matching', () => {
  test('replaces a unique block verbatim', () => {
    const outcome = expectApplied(applyEdits('a.ts', source, [{ search: 'const b = 2;', replace: 'const b = 20;' }]));
    expect(outcome.content).toBe(linesOf('const a = 1;', 'const b = 20;', 'const c = 3;'));
    expect(outcome.levels).toEqual(['exact']);
    expect(outcome.changed).toBe(true);
  });

  test('replaces part of a line', () => {
    const outcome = expectApplied(applyEdits('a.ts', source, [{ search: 'b = 2', replace: 'bee = 2' }]));
    expect(outcome.content).toBe(linesOf('const a = 1;', 'const bee = 2;', 'const c = 3;'));
  });

  test('replaces a multi-line block', () => {
    const outcome = expectApplied(applyEdits('a.ts', source, [{ search: 'const a = 1;\nconst b = 2;\n', replace: 'let ab = 3;\n' }]));
    expect(outcome.content).toBe(linesOf('let ab = 3;', 'const c = 3;'));
  });

  test('deletes a block when replace is empty', () => {
    const outcome = expectApplied(applyEdits('a.ts', source, [{ search: 'const b = 2;\n', replace: '' }]));
    expect(outcome.content).toBe(linesOf('const a = 1;', 'const c = 3;'));
  });

  test('is preferred over looser levels that would be ambiguous', () => {
    const file = linesOf('x = 1;', 'x  =  1;', 'x =\t1;');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'x = 1;', replace: 'x = 2;' }]));
    expect(outcome.content).toBe(linesOf('x = 2;', 'x  =  1;', 'x =\t1;'));
    expect(outcome.levels).toEqual(['exact']);
  });

  test('a replace equal to search succeeds without change', () => {
    const outcome = expectApplied(applyEdits('a.ts', source, [{ search: 'const b = 2;', replace: 'const b = 2;' }]));
    expect(outcome).toEqual({ ok: true, content: source, diff: '', levels: ['exact'], changed: false });
  });
});

describe('exact ambiguity', () => {
  test('two occurrences fail with both line numbers', () => {
    const file = linesOf('start();', 'run();', 'middle();', 'run();');
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: 'run();', replace: 'walk();' }]));
    expect(outcome.editIndex).toBe(0);
    expect(outcome.message).toBe(
      'Edit 1 failed: the search block matches 2 places in a.ts (exact match at lines 2 and 4). ' +
        'Add surrounding lines to the search block so that it matches only one place.',
    );
  });

  test('overlapping occurrences count as separate places', () => {
    const outcome = expectRejected(applyEdits('a.ts', 'aaa\n', [{ search: 'aa', replace: 'b' }]));
    expect(outcome.message).toContain('matches 2 places in a.ts (exact match at line 1)');
  });

  test('adding a surrounding line makes the block unique', () => {
    const file = linesOf('start();', 'run();', 'middle();', 'run();');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'middle();\nrun();', replace: 'middle();\nwalk();' }]));
    expect(outcome.content).toBe(linesOf('start();', 'run();', 'middle();', 'walk();'));
  });
});

describe('several edits', () => {
  test('apply in order, each to the result of the previous one', () => {
    const outcome = expectApplied(
      applyEdits('a.ts', source, [
        { search: 'const a = 1;', replace: 'const alpha = 1;' },
        { search: 'const alpha = 1;\nconst b = 2;', replace: 'const alpha = 1;\nconst beta = alpha + 1;' },
        { search: 'const c = 3;', replace: 'const gamma = beta + 1;' },
      ]),
    );
    expect(outcome.content).toBe(linesOf('const alpha = 1;', 'const beta = alpha + 1;', 'const gamma = beta + 1;'));
    expect(outcome.levels).toEqual(['exact', 'exact', 'exact']);
  });

  test('report the level each edit matched at', () => {
    const file = linesOf('function f() {', '    return  1;', '}');
    const outcome = expectApplied(
      applyEdits('a.ts', file, [
        { search: 'function f() {', replace: 'function g() {' },
        { search: '    return 1;', replace: '    return 2;' },
        { search: 'return 2;\n  }', replace: 'return 3;\n  }' },
      ]),
    );
    expect(outcome.levels).toEqual(['exact', 'whitespace', 'indentation']);
    expect(outcome.content).toBe(linesOf('function g() {', '    return 3;', '}'));
  });

  test('an empty list changes nothing', () => {
    expect(applyEdits('a.ts', source, [])).toEqual({ ok: true, content: source, diff: '', levels: [], changed: false });
  });
});

describe('all or none', () => {
  test('a failing second edit leaves no content and names edit 2', () => {
    const outcome = applyEdits('a.ts', source, [
      { search: 'const a = 1;', replace: 'const a = 100;' },
      { search: 'const zzz = 26;', replace: 'const z = 26;' },
    ]);
    expect(outcome.ok).toBe(false);
    expect(outcome).not.toHaveProperty('content');
    const rejected = expectRejected(outcome);
    expect(rejected.editIndex).toBe(1);
    expect(rejected.message).toMatch(/^Edit 2 of 2 failed:/);
    expect(rejected.message).toContain('None of the 2 edits were applied; send them all again.');
  });

  test('a failing first edit stops before later ones', () => {
    const outcome = expectRejected(
      applyEdits('a.ts', source, [
        { search: '', replace: 'x' },
        { search: 'const a = 1;', replace: 'const a = 100;' },
      ]),
    );
    expect(outcome.editIndex).toBe(0);
  });

  test('an edit that only matched what an earlier edit removed fails', () => {
    const outcome = expectRejected(
      applyEdits('a.ts', source, [
        { search: 'const b = 2;\n', replace: '' },
        { search: 'const b = 2;', replace: 'const b = 3;' },
      ]),
    );
    expect(outcome.editIndex).toBe(1);
  });
});

describe('empty search', () => {
  test('is rejected with a pointer to create_file', () => {
    const outcome = expectRejected(applyEdits('a.ts', source, [{ search: '', replace: 'new file' }]));
    expect(outcome).toEqual({
      ok: false,
      editIndex: 0,
      message: 'Edit 1 failed: search must not be empty; to create a file use create_file.',
    });
  });

  test('is rejected on an empty file too', () => {
    const outcome = expectRejected(applyEdits('a.ts', '', [{ search: '', replace: 'x' }]));
    expect(outcome.message).toContain('search must not be empty; to create a file use create_file');
  });
});
