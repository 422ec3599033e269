import type { Edit } from './types.js';

/**
 * A line as `read_file` numbers it (`  42 | text`, or an empty line's `42 |`), or as a search result shows it
 * (`src/app.py:42 | text`). Models copy these prefixes into edits; the file must never receive them.
 */
const PREFIX = /^\s*(?:[^\s:|]+:)?(\d+) \|(?: |$)/;

/** The line number a line's pasted prefix carries, or `undefined` when it has none. */
function prefixNumber(line: string): number | undefined {
  const match = PREFIX.exec(line);
  return match ? Number(match[1]) : undefined;
}

const stripPrefix = (line: string): string => line.replace(PREFIX, '');

/** Whether the numbered lines (`[position in the block, number]`) count up one by one, as read_file prints them. */
function countsUp(numbered: [position: number, number: number][]): boolean {
  return numbered.every(([position, number]) => number - position === numbered[0]![1] - numbered[0]![0]);
}

/**
 * What the search block says about pasted line numbers: `none`; `all` its non-blank lines carry one (the edit
 * with the prefixes taken off both blocks); or `some` do, in the order read_file would print them, which is a
 * paste gone half-wrong the editor must not guess at.
 */
export type PastedNumbers = { kind: 'none' } | { kind: 'all'; edit: Edit } | { kind: 'some'; positions: number[] };

export function readPastedNumbers(edit: Edit): PastedNumbers {
  const lines = edit.search.split('\n');
  const numbered = lines.flatMap((line, position): [number, number][] => {
    const number = prefixNumber(line);
    return number === undefined ? [] : [[position, number]];
  });
  if (numbered.length === 0) return { kind: 'none' };
  const nonBlank = lines.filter((line) => line.trim() !== '').length;
  if (numbered.length === nonBlank) {
    const strip = (block: string) => block.split('\n').map(stripPrefix).join('\n');
    return { kind: 'all', edit: { search: strip(edit.search), replace: strip(edit.replace) } };
  }
  // One numbered-looking line amid plain ones is more likely code (`    1 | 2,`) than a paste.
  const pasted = countsUp(numbered) && (numbered.length >= 2 || numbered[0]![0] === 0);
  return pasted ? { kind: 'some', positions: numbered.map(([position]) => position + 1) } : { kind: 'none' };
}

/**
 * The lines of `replacement` (1-based) that would write a line-number prefix the matched text did not have. At a
 * fuzzy match any such line counts, since that is how prefixes slip in; at the stricter levels only a run of
 * them numbered one by one, so a line of code like `    1 | 2,` can still be written.
 */
export function introducedLineNumbers(matched: string, replacement: string, fuzzy: boolean): number[] {
  const numbered = (text: string) =>
    text.split('\n').flatMap((line, position): [number, number][] => {
      const number = prefixNumber(line);
      return number === undefined ? [] : [[position, number]];
    });
  const added = numbered(replacement);
  if (added.length === 0 || numbered(matched).length >= added.length) return [];
  if (fuzzy || (added.length >= 2 && countsUp(added))) return added.map(([position]) => position + 1);
  return [];
}
