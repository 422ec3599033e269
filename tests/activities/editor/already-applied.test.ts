import { describe, expect, test } from 'vitest';
import { applyEdits, type Edit } from '../../../src/activities/editor/index.js';
import { expectApplied, expectRejected, linesOf } from './outcome.js';

const source = linesOf('function greet(name) {', '  return "hi " + name;', '}');

const retry = { retried: true };

/** A retried activity runs the same edits on the file its first attempt wrote. */
function applyTwice(file: string, edits: Edit[]) {
  const first = expectApplied(applyEdits('a.ts', file, edits));
  return { first, second: applyEdits('a.ts', first.content, edits, retry) };
}

describe('already applied', () => {
  test('an edit whose search is gone and whose replacement is present changes nothing', () => {
    const { first, second } = applyTwice(source, [{ search: '"hi "', replace: '"hello "' }]);
    expect(first.levels).toEqual(['exact']);
    expect(second).toEqual({ ok: true, content: first.content, diff: '', levels: ['already-applied'], changed: false });
  });

  test('an insertion whose search is still there is not inserted twice', () => {
    const edit = { search: 'function greet(name) {\n', replace: 'function greet(name) {\n  log(name);\n' };
    const { first, second } = applyTwice(source, [edit]);
    expect(first.content).toBe(linesOf('function greet(name) {', '  log(name);', '  return "hi " + name;', '}'));
    expect(expectApplied(second).levels).toEqual(['already-applied']);
    expect(expectApplied(second).content).toBe(first.content);
  });

  test('an edit applied with re-indentation is recognised on the retry', () => {
    const edit = { search: 'return "hi " +  name;', replace: 'if (!name) return "hi";\nreturn "hi " + name;' };
    const { first, second } = applyTwice(source, [edit]);
    expect(first.levels).toEqual(['indentation']);
    expect(first.content).toBe(linesOf('function greet(name) {', '  if (!name) return "hi";', '  return "hi " + name;', '}'));
    expect(expectApplied(second).levels).toEqual(['already-applied']);
  });

  test('an edit applied fuzzily is recognised before fuzzy matching could apply it again', () => {
    const edit = {
      search: 'function greet(nam) {\n  return "hi " + nam;\n}',
      replace: 'function greet(name) {\n  return "hi " + name + "!";\n}',
    };
    const { first, second } = applyTwice(source, [edit]);
    expect(first.levels).toEqual(['fuzzy']);
    expect(expectApplied(second).levels).toEqual(['already-applied']);
  });

  test('a list of edits is idempotent, and all already applied means unchanged', () => {
    const edits = [
      { search: 'greet(name)', replace: 'greet(name, greeting)' },
      { search: '"hi "', replace: 'greeting + " "' },
    ];
    const { first, second } = applyTwice(source, edits);
    expect(first.changed).toBe(true);
    const levels = ['already-applied', 'already-applied'];
    expect(second).toEqual({ ok: true, content: first.content, diff: '', levels, changed: false });
  });

  test('a partly applied list applies the rest', () => {
    const edits = [
      { search: 'greet(name)', replace: 'greet(name, greeting)' },
      { search: '"hi "', replace: 'greeting + " "' },
    ];
    const half = expectApplied(applyEdits('a.ts', source, [edits[0]!]));
    const outcome = expectApplied(applyEdits('a.ts', half.content, edits, retry));
    expect(outcome.levels).toEqual(['already-applied', 'exact']);
    expect(outcome.changed).toBe(true);
  });

  test('a search block that is still in the file is applied even if the replacement exists elsewhere', () => {
    const file = linesOf('a = 1;', 'b = 2;');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'a = 1;', replace: 'b = 2;' }], retry));
    expect(outcome.levels).toEqual(['exact']);
    expect(outcome.content).toBe(linesOf('b = 2;', 'b = 2;'));
  });

  test('a replacement present twice does not count', () => {
    const file = linesOf('b = 2;', 'b = 2;');
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: 'a = 1;', replace: 'b = 2;' }], retry));
    expect(outcome.message).toContain('not found');
  });

  test('an empty replacement does not count', () => {
    const outcome = expectRejected(applyEdits('a.ts', linesOf('x();'), [{ search: 'gone();\n', replace: '' }], retry));
    expect(outcome.message).toContain('not found');
  });

  test('a replacement equal to its search does not count when the search is missing', () => {
    const outcome = expectRejected(applyEdits('a.ts', linesOf('x();'), [{ search: 'qqqqqq', replace: 'qqqqqq' }], retry));
    expect(outcome.message).toContain('not found');
  });
});

describe('a first attempt never reports already applied', () => {
  test('a search block with a typo fails with the nearest lines, though its replacement is in the file', () => {
    const file = linesOf('const limit = 10;', 'const retries = 3;', 'run(limit, retries);');
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: 'const limt = 5;', replace: 'const limit = 10;' }]));
    expect(outcome.message).toContain('the search block was not found in a.ts');
    expect(outcome.message).toContain('1 | const limit = 10;');
  });

  test('the same edits that a retry finds in place are applied as asked', () => {
    const edit = { search: 'function greet(name) {\n', replace: 'function greet(name) {\n  log(name);\n' };
    const once = expectApplied(applyEdits('a.ts', source, [edit]));
    const again = expectApplied(applyEdits('a.ts', once.content, [edit]));
    expect(again.levels).toEqual(['exact']);
    expect(again.content).toBe(linesOf('function greet(name) {', '  log(name);', '  log(name);', '  return "hi " + name;', '}'));
  });

  test('an edit sent again after it was applied is missing its search block, not applied', () => {
    const edit = { search: '"hi "', replace: '"hello "' };
    const once = expectApplied(applyEdits('a.ts', source, [edit]));
    expect(expectRejected(applyEdits('a.ts', once.content, [edit])).message).toContain('not found');
  });
});
