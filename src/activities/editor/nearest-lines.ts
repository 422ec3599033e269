import { numberLines } from '../tools/numbered-lines.js';
import type { Window } from './fuzzy-match.js';

/** Lines shown around the nearest window, so the model can see where it is in the file. */
export const CONTEXT_LINES = 2;

/** A failure message must not flood the model's context with one line of a minified file. */
const MAX_LINE_CHARS = 200;

/**
 * The nearest window's lines with {@link CONTEXT_LINES} either side, numbered from 1 the way `read_file` numbers
 * them, so the model can copy them into its next search block: `  42 | const x = 1;`.
 */
export function formatNearestLines(lines: string[], window: Window): string {
  const first = Math.max(0, window.start - CONTEXT_LINES);
  const end = Math.min(lines.length, window.start + window.count + CONTEXT_LINES);
  const shown = lines.slice(first, end).map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line));
  return numberLines(shown, first + 1, String(end).length)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** "line 7" or "lines 7-9", 1-based. */
export function describeLineRange(window: Pick<Window, 'start' | 'count'>): string {
  const first = window.start + 1;
  const last = window.start + window.count;
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
