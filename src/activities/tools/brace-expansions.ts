/** A range brace set: `{1..20}`, `{a..f}`, `{0..100..10}`. */
const RANGE = /^(-?\d+|[^\d\\])\.\.(-?\d+|[^\d\\])(?:\.\.(-?\d+))?$/;

interface Cursor {
  text: string;
  at: number;
}

/**
 * An upper bound on how many patterns brace expansion makes of a glob, counted without expanding it: `{a,b}{c,d}`
 * is 4, `{1..50}` is 50, `{a,{b,c}}` is 3. fast-glob expands every brace set before it walks, on the event loop, so
 * a short model-chosen glob such as `{a,b}` twenty times over would build a million patterns; counting first lets
 * such a glob be refused instead.
 */
export function countBraceExpansions(pattern: string): number {
  return countSequence({ text: pattern, at: 0 }, false);
}

/** Patterns made by a run of text: the product of its brace sets. Inside a set it stops at `,` or `}`. */
function countSequence(cursor: Cursor, inSet: boolean): number {
  let count = 1;
  while (cursor.at < cursor.text.length) {
    const char = cursor.text[cursor.at]!;
    if (char === '\\') {
      cursor.at += 2;
      continue;
    }
    if (inSet && (char === ',' || char === '}')) return count;
    cursor.at += 1;
    if (char === '{') count *= countSet(cursor);
  }
  return count;
}

/** Patterns made by the set whose `{` was just read: the sum over its alternatives, or the length of its range. */
function countSet(cursor: Cursor): number {
  const start = cursor.at;
  let sum = 0;
  let alternatives = 0;
  while (cursor.at < cursor.text.length) {
    sum += countSequence(cursor, true);
    alternatives += 1;
    if (cursor.text[cursor.at++] === '}') break;
  }
  // An unclosed set is literal text to fast-glob; counting its alternatives anyway keeps the bound an upper one.
  if (alternatives > 1) return sum;
  return countRange(cursor.text.slice(start, cursor.at - 1)) ?? sum;
}

function countRange(body: string): number | undefined {
  const range = RANGE.exec(body);
  if (!range) return undefined;
  const [from, to] = [range[1]!, range[2]!].map((end) => (/\d/.test(end) ? Number(end) : end.codePointAt(0)!));
  const step = Math.max(1, Math.abs(Number(range[3] ?? 1)));
  return Math.floor(Math.abs(to! - from!) / step) + 1;
}
