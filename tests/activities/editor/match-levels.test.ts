import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { expectApplied, expectRejected, linesOf } from './outcome.js';

describe('whitespace level', () => {
  test('ignores runs of spaces inside a line', () => {
    const file = linesOf('if (a  &&   b) {', '  go();', '}');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'if (a && b) {', replace: 'if (a || b) {' }]));
    expect(outcome.content).toBe(linesOf('if (a || b) {', '  go();', '}'));
    expect(outcome.levels).toEqual(['whitespace']);
  });

  test('ignores trailing whitespace in the file', () => {
    const file = linesOf('one();   ', 'two();\t', 'three();');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'one();\ntwo();', replace: 'both();' }]));
    expect(outcome.content).toBe(linesOf('both();', 'three();'));
    expect(outcome.levels).toEqual(['whitespace']);
  });

  test('ignores trailing whitespace in the search block', () => {
    const file = linesOf('one();', 'two();');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'one();  \ntwo();', replace: 'both();' }]));
    expect(outcome.content).toBe(linesOf('both();'));
  });

  test('treats a tab as four columns and writes the replacement with the file’s tab', () => {
    const file = linesOf('class A {', '\tm() {}', '}');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: '    m() {}', replace: '    m() {}\n    n() {}' }]));
    expect(outcome.content).toBe(linesOf('class A {', '\tm() {}', '\tn() {}', '}'));
    expect(outcome.levels).toEqual(['whitespace']);
  });

  test('treats blank lines with stray spaces as blank', () => {
    const file = linesOf('a();', '   ', 'b();');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'a();\n\nb();', replace: 'ab();' }]));
    expect(outcome.content).toBe(linesOf('ab();'));
    expect(outcome.levels).toEqual(['whitespace']);
  });

  test('still requires the same indentation width', () => {
    const file = linesOf('  x  = 1;');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: '    x = 1;', replace: '    x = 2;' }]));
    expect(outcome.levels).toEqual(['indentation']);
  });

  test('fails on two places with their line numbers', () => {
    const file = linesOf('x  = 1;', 'y();', 'x =  1;');
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: 'x = 1;', replace: 'x = 2;' }]));
    expect(outcome.message).toBe(
      'Edit 1 failed: the search block matches 2 places in a.ts (match ignoring whitespace at lines 1 and 3). ' +
        'Add surrounding lines to the search block so that it matches only one place.',
    );
  });
});

describe('indentation level', () => {
  test('matches a block written without indentation and re-indents deeper', () => {
    const file = linesOf('function f() {', '    if (ready) {', '        start();', '    }', '}');
    const outcome = expectApplied(
      applyEdits('a.ts', file, [{ search: 'if (ready) {\n    start();\n}', replace: 'if (ready) {\n    start();\n    log();\n}' }]),
    );
    expect(outcome.content).toBe(linesOf('function f() {', '    if (ready) {', '        start();', '        log();', '    }', '}'));
    expect(outcome.levels).toEqual(['indentation']);
  });

  test('matches a block written too deep and re-indents shallower', () => {
    const file = linesOf('  if (ready) {', '    start();', '  }');
    const outcome = expectApplied(
      applyEdits('a.ts', file, [
        {
          search: '        if (ready) {\n          start();\n        }',
          replace: '        if (ready) {\n          stop();\n        }',
        },
      ]),
    );
    expect(outcome.content).toBe(linesOf('  if (ready) {', '    stop();', '  }'));
  });

  test('keeps extra depth the replacement adds, relative to the file', () => {
    const file = linesOf('    prepare();', '    run();');
    const outcome = expectApplied(
      applyEdits('a.ts', file, [{ search: 'prepare();\nrun();', replace: 'prepare();\ntry {\n  run();\n} catch {\n  recover();\n}' }]),
    );
    expect(outcome.levels).toEqual(['indentation']);
    expect(outcome.content).toBe(linesOf('    prepare();', '    try {', '      run();', '    } catch {', '      recover();', '    }'));
  });

  test('maps two-space search indentation onto a tab-indented file', () => {
    const file = linesOf('function f() {', '\tif (x) {', '\t\ty();', '\t}', '}');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'if (x) {\n  y();\n}', replace: 'if (x) {\n  y();\n  z();\n}' }]));
    expect(outcome.content).toBe(linesOf('function f() {', '\tif (x) {', '\t\ty();', '\t\tz();', '\t}', '}'));
  });

  test('maps tab search indentation onto a space-indented file', () => {
    const file = linesOf('  if (x) {', '    y();', '  }');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: '\t\ty();', replace: '\t\ty();\n\t\t\tz();' }]));
    expect(outcome.content).toBe(linesOf('  if (x) {', '    y();', '        z();', '  }'));
  });

  test('keeps blank lines inside the block', () => {
    const file = linesOf('  a();', '', '  b();');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'a();\n\nb();', replace: 'a();\n\nc();' }]));
    expect(outcome.content).toBe(linesOf('  a();', '', '  c();'));
  });

  test('fails on the same block at two depths', () => {
    const file = linesOf('if (a) {', '  go();', '}', 'function f() {', '  if (a) {', '    go();', '  }', '}');
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: '    if (a) {\n      go();\n    }', replace: 'x' }]));
    expect(outcome.message).toContain('matches 2 places in a.ts (match ignoring indentation at lines 1 and 5)');
  });

  test('ignores whitespace inside lines as well', () => {
    const file = linesOf('    let  x =  1;');
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'let x = 1;', replace: 'let x = 2;' }]));
    expect(outcome.content).toBe(linesOf('    let x = 2;'));
    expect(outcome.levels).toEqual(['indentation']);
  });
});

describe('fuzzy level', () => {
  const file = linesOf(
    'import { load } from "./load.js";',
    '',
    'export function total(items: Item[]): number {',
    '  let sum = 0;',
    '  for (const item of items) sum += item.price;',
    '  return sum;',
    '}',
    '',
    'export const answer = 42;',
  );

  test('matches a block with a small typo and replaces whole lines', () => {
    const outcome = expectApplied(
      applyEdits('a.ts', file, [
        {
          search: 'let sum = 0;\nfor (const item of item) sum += item.prices;\nreturn sum;',
          replace: 'let sum = 0;\nfor (const item of items) sum += item.price * item.quantity;\nreturn sum;',
        },
      ]),
    );
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(
      linesOf(
        'import { load } from "./load.js";',
        '',
        'export function total(items: Item[]): number {',
        '  let sum = 0;',
        '  for (const item of items) sum += item.price * item.quantity;',
        '  return sum;',
        '}',
        '',
        'export const answer = 42;',
      ),
    );
  });

  test('does not count the same place seen through a window one line larger as a second match', () => {
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: 'export const answr = 42;', replace: 'export const answer = 43;' }]));
    expect(outcome.content.endsWith('\nexport const answer = 43;\n')).toBe(true);
    expect(outcome.content.split('\n')).toHaveLength(10);
  });

  test('matches a window one line longer than the search block', () => {
    const wide = linesOf('start();', 'const alpha = compute(1);', '', 'const beta = compute(2);', 'end();');
    const outcome = expectApplied(
      applyEdits('a.ts', wide, [{ search: 'const alpha = compute(1);\nconst beta = compute(2);', replace: 'merged();' }]),
    );
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(linesOf('start();', 'merged();', 'end();'));
  });

  test('matches a window one line shorter than the search block', () => {
    const narrow = linesOf('start();', 'alpha_value = compute(1);', 'gamma_value = compute(3);', 'end();');
    const outcome = expectApplied(
      applyEdits('a.ts', narrow, [{ search: 'alpha_value = compute(1);\n\ngamma_value = compute(3);', replace: 'merged();' }]),
    );
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(linesOf('start();', 'merged();', 'end();'));
  });

  test('fails when two places tie within 0.01', () => {
    const twins = linesOf(
      'function first() {',
      '  const result = compute(alpha, beta);',
      '  return result;',
      '}',
      'function second() {',
      '  const result = compute(alpha, beta);',
      '  return result;',
      '}',
    );
    const outcome = expectRejected(
      applyEdits('a.ts', twins, [{ search: 'const reslt = compute(alpha, beta);\nreturn reslt;', replace: 'x' }]),
    );
    expect(outcome.message).toBe(
      'Edit 1 failed: the search block matches 2 places in a.ts (fuzzy match at lines 2 (96% similar) and ' +
        '6 (96% similar)). Add surrounding lines to the search block so that it matches only one place.',
    );
  });

  test('picks the clearly better of two places above the threshold', () => {
    const near = linesOf(
      'const first = computeTotal(alpha, beta, gamma);',
      'unrelated();',
      'const first = computeTotal(alpha, beta, gamma, delta);',
    );
    const outcome = expectApplied(
      applyEdits('a.ts', near, [{ search: 'const first = computeTotal(alpha, beta, gama);', replace: 'const first = 0;' }]),
    );
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(linesOf('const first = 0;', 'unrelated();', 'const first = computeTotal(alpha, beta, gamma, delta);'));
  });

  test('re-indents the replacement to the matched lines', () => {
    const indented = linesOf('class A {', '\tmethod() {', '\t\treturn this.value;', '\t}', '}');
    const outcome = expectApplied(
      applyEdits('a.ts', indented, [{ search: 'method() {\n  return this.valeu;\n}', replace: 'method() {\n  return this.value + 1;\n}' }]),
    );
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(linesOf('class A {', '\tmethod() {', '\t\treturn this.value + 1;', '\t}', '}'));
  });

  test('is not tried for a search block of blank lines', () => {
    const outcome = expectRejected(applyEdits('a.ts', linesOf('a', 'b'), [{ search: '\n\n', replace: 'x' }]));
    expect(outcome.message).toContain('not found');
    expect(outcome.message).not.toContain('closest match');
  });
});
