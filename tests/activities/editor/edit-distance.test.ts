import { describe, expect, test } from 'vitest';
import { compilePattern, computeEditDistance, computeSubstringDistances } from '../../../src/activities/editor/edit-distance.js';
import { measureSimilarity } from '../../../src/activities/editor/similarity.js';

/** Textbook O(m·n) dynamic programme; `free` lets the match start anywhere in the text. */
function computeByTable(pattern: string, text: string, free: boolean): number[] {
  let previous = Array.from({ length: text.length + 1 }, (_, column) => (free ? 0 : column));
  for (let row = 1; row <= pattern.length; row++) {
    const current = [row];
    for (let column = 1; column <= text.length; column++) {
      const substitution = previous[column - 1]! + (pattern[row - 1] === text[column - 1] ? 0 : 1);
      current[column] = Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous;
}

function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('edit distance', () => {
  test('known pairs', () => {
    expect(computeEditDistance(compilePattern('kitten'), 'sitting')).toBe(3);
    expect(computeEditDistance(compilePattern('flaw'), 'lawn')).toBe(2);
    expect(computeEditDistance(compilePattern('abc'), '')).toBe(3);
    expect(computeEditDistance(compilePattern(''), 'abc')).toBe(3);
    expect(computeEditDistance(compilePattern('same'), 'same')).toBe(0);
  });

  test('agrees with the table on random strings spanning several 32-bit blocks', () => {
    const random = createRandom(42);
    for (let round = 0; round < 300; round++) {
      const alphabet = 'ab\n c'.slice(0, 2 + (round % 4));
      const draw = (length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const pattern = draw(1 + Math.floor(random() * 150));
      const text = draw(Math.floor(random() * 150));
      const compiled = compilePattern(pattern);
      expect(computeEditDistance(compiled, text)).toBe(computeByTable(pattern, text, false)[text.length]);
      expect(Array.from(computeSubstringDistances(compiled, text))).toEqual(computeByTable(pattern, text, true));
    }
  });

  test('substring distances find a pattern inside a longer text', () => {
    const distances = computeSubstringDistances(compilePattern('needle'), 'haystack needle hay');
    expect(distances[15]).toBe(0);
    expect(distances[0]).toBe(6);
  });
});

describe('similarity', () => {
  test('is one minus distance over the longer length', () => {
    expect(measureSimilarity(compilePattern('abcdefghij'), 'abcdefghij')).toBe(1);
    expect(measureSimilarity(compilePattern('abcdefghij'), 'abcdefgh')).toBeCloseTo(0.8);
    expect(measureSimilarity(compilePattern('abcd'), 'wxyz')).toBe(0);
  });
});
