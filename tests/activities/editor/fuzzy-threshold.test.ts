import { describe, expect, test } from 'vitest';
import { applyEdits } from '../../../src/activities/editor/index.js';
import { FUZZY_THRESHOLD } from '../../../src/shared/constants.js';
import { expectApplied, expectRejected, linesOf } from './outcome.js';

/** Compared without indentation and joined with `\n`, this block is exactly 100 characters. */
const block = ['export function loadIt(path) {', '  const text = await readFile(path, "utf8");', '  return JSON.parse(text);', '}'];
const file = linesOf('import { readFile } from "node:fs/promises";', '', ...block, '', 'export default loadIt;');

/** The block without indentation and with the first `count` letters replaced by `#`, so it is `count` edits away. */
function damage(count: number): string {
  let left = count;
  return block.map((line) => line.trim().replace(/[a-z]/g, (letter) => (left-- > 0 ? '#' : letter))).join('\n');
}

describe('fuzzy threshold', () => {
  test('the block is 100 characters, so each damaged letter costs one point of similarity', () => {
    expect(damage(0).length).toBe(100);
    expect(damage(15)).toMatch(/^#{6} #{8} #oadIt\(path\) \{\n/);
  });

  test('exactly at the threshold passes', () => {
    expect(FUZZY_THRESHOLD).toBe(0.85);
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: damage(15), replace: 'export const loadIt = load;' }]));
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(
      linesOf('import { readFile } from "node:fs/promises";', '', 'export const loadIt = load;', '', 'export default loadIt;'),
    );
  });

  test('just above the threshold passes', () => {
    const outcome = expectApplied(applyEdits('a.ts', file, [{ search: damage(14), replace: 'x();' }]));
    expect(outcome.levels).toEqual(['fuzzy']);
  });

  test('just below the threshold fails and reports 84%', () => {
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: damage(16), replace: 'x();' }]));
    expect(outcome.message).toContain('The closest match is lines 3-6, 84% similar (85% needed):');
  });

  test('clearly below the threshold fails and shows the nearest lines with context', () => {
    const outcome = expectRejected(applyEdits('a.ts', file, [{ search: damage(40), replace: 'x();' }]));
    expect(outcome.message).toBe(
      [
        'Edit 1 failed: the search block was not found in a.ts, not even ignoring whitespace and indentation.',
        'The closest match is lines 3-6, 60% similar (85% needed):',
        '  1 | import { readFile } from "node:fs/promises";',
        '  2 | ',
        '  3 | export function loadIt(path) {',
        '  4 |   const text = await readFile(path, "utf8");',
        '  5 |   return JSON.parse(text);',
        '  6 | }',
        '  7 | ',
        '  8 | export default loadIt;',
        'Copy the lines to change exactly as the file has them, with a few unchanged lines around them, and retry.',
      ].join('\n'),
    );
  });
});

/** Mulberry32: a seeded generator, so the large file is the same on every run. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzzy matching on a 5,000-line file', () => {
  const random = createRandom(7);
  const words = ['value', 'total', 'items', 'config', 'result', 'buffer', 'handler', 'request', 'response', 'options'];
  const pick = () => words[Math.floor(random() * words.length)]!;
  const lines = Array.from(
    { length: 5_000 },
    (_, index) => `${'  '.repeat(1 + (index % 3))}const ${pick()}${index} = ${pick()}.${pick()}(${pick()}, ${index % 97});`,
  );
  const big = linesOf(...lines);
  const search = lines
    .slice(2_500, 2_520)
    .map((line, index) => (index % 7 === 3 ? line.replace('const', 'cnst') : line))
    .join('\n');

  test('finds a 20-line block with typos well under a second', () => {
    const started = performance.now();
    const outcome = expectApplied(applyEdits('big.ts', big, [{ search, replace: 'replaced();' }]));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(outcome.levels).toEqual(['fuzzy']);
    expect(outcome.content).toBe(linesOf(...lines.slice(0, 2_500), 'replaced();', ...lines.slice(2_520)));
  });

  test('reports a missing 20-line block well under a second', () => {
    const absent = Array.from({ length: 20 }, (_, index) => `let ${pick()}Other${index} = await ${pick()}(${index});`).join('\n');
    const started = performance.now();
    const outcome = expectRejected(applyEdits('big.ts', big, [{ search: absent, replace: 'x();' }]));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(outcome.message).toMatch(/The closest match is lines \d+-\d+, \d+% similar \(85% needed\):/);
  });
});
