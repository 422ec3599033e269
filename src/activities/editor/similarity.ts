import { computeEditDistance, type Pattern } from './edit-distance.js';

/**
 * Normalised Levenshtein similarity, `1 - distance / max(|a|, |b|)`: 1 for equal texts, 0 for nothing in common.
 * Chosen over difflib's ratio because it has a cheap lower bound on distance (see `computeSubstringDistances`), so
 * most windows of a large file never need the full computation.
 */
export function measureSimilarity(pattern: Pattern, text: string): number {
  const longest = Math.max(pattern.length, text.length);
  if (longest === 0) return 1;
  return 1 - computeEditDistance(pattern, text) / longest;
}

/** The most a text of `length` characters can score, given it is at least `distance` edits from the pattern. */
export function boundSimilarity(pattern: Pattern, length: number, distance: number): number {
  const longest = Math.max(pattern.length, length);
  return longest === 0 ? 1 : 1 - distance / longest;
}
