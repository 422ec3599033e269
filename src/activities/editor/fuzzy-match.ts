import { compilePattern, computeSubstringDistances } from './edit-distance.js';
import { normalizeLine } from './normalize-line.js';
import { boundSimilarity, measureSimilarity } from './similarity.js';

/** A run of whole lines, 0-based `start`, and how similar it is to the search block. */
export interface Window {
  start: number;
  count: number;
  similarity: number;
}

/**
 * `places` holds one window per distinct place scoring within {@link TIE} of the best, when the best reaches the
 * threshold; more than one means the block is ambiguous. `nearest` is the best window found either way.
 */
export interface FuzzyResult {
  places: Window[];
  nearest?: Window;
}

/** Scores this close to the best count as a tie: the block is not distinctive enough to trust either place. */
export const TIE = 0.01;

/** When nothing reaches the threshold, this many of the most promising windows are scored to pick the nearest. */
const NEAREST_CANDIDATES = 16;

/**
 * Slides windows of the search block's line count, and one line fewer or more, over the file. Lines are compared
 * with whitespace normalised (see `normalizeLine`) and joined with `\n`; the score is `measureSimilarity`.
 *
 * Windows are scored best-bound first, and the search stops once no remaining bound can matter, so every window
 * at or near the threshold is scored exactly while a typical file needs only a handful of full computations.
 */
export function findFuzzyMatches(fileLines: string[], searchLines: string[], threshold: number): FuzzyResult {
  const search = searchLines.map(normalizeLine).join('\n');
  if (search.replace(/\n/g, '') === '' || fileLines.length === 0) return { places: [] };
  const pattern = compilePattern(search);
  const lines = fileLines.map(normalizeLine);
  const text = lines.join('\n');
  const starts = listLineStarts(lines);
  const endOf = (window: Pick<Window, 'start' | 'count'>) => starts[window.start + window.count]! - 1;
  const distances = computeSubstringDistances(pattern, text);

  const candidates: Array<{ start: number; count: number; bound: number }> = [];
  for (const count of listWindowSizes(searchLines.length, lines.length)) {
    for (let start = 0; start + count <= lines.length; start++) {
      const end = endOf({ start, count });
      candidates.push({ start, count, bound: boundSimilarity(pattern, end - starts[start]!, distances[end]!) });
    }
  }
  candidates.sort((left, right) => right.bound - left.bound);

  const scored: Window[] = [];
  let best = -1;
  for (const { start, count, bound } of candidates) {
    if (bound < best - TIE) break;
    if (bound < threshold - TIE && scored.length >= NEAREST_CANDIDATES) break;
    const similarity = measureSimilarity(pattern, text.slice(starts[start], endOf({ start, count })));
    scored.push({ start, count, similarity });
    best = Math.max(best, similarity);
  }
  const ranked = rankWindows(scored, searchLines.length);
  const nearest = ranked[0];
  if (!nearest || nearest.similarity < threshold) return { places: [], nearest };
  return { places: pickDistinctPlaces(ranked, nearest.similarity - TIE), nearest };
}

/** The block's own size first, then one fewer and one more, clamped so a short file still yields one window. */
function listWindowSizes(searchCount: number, fileCount: number): number[] {
  const sizes = [searchCount, searchCount - 1, searchCount + 1].map((size) => Math.min(Math.max(size, 1), fileCount));
  return [...new Set(sizes)];
}

function listLineStarts(lines: string[]): number[] {
  const starts = [0];
  for (const line of lines) starts.push(starts[starts.length - 1]! + line.length + 1);
  return starts;
}

/** Best first; among equal scores the window the size of the search block, then the earlier one. */
function rankWindows(windows: Window[], searchCount: number): Window[] {
  return [...windows].sort(
    (left, right) =>
      right.similarity - left.similarity ||
      Math.abs(left.count - searchCount) - Math.abs(right.count - searchCount) ||
      left.start - right.start,
  );
}

/** Overlapping windows are one place seen at different sizes or offsets, not a second match. */
function pickDistinctPlaces(ranked: Window[], floor: number): Window[] {
  const places: Window[] = [];
  for (const window of ranked) {
    if (window.similarity < floor) break;
    if (!places.some((place) => overlap(place, window))) places.push(window);
  }
  return places.sort((left, right) => left.start - right.start);
}

function overlap(left: Window, right: Window): boolean {
  return left.start < right.start + right.count && right.start < left.start + left.count;
}
