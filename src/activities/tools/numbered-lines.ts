import { formatCount } from '../../text/format.js';
import type { ScannedLine } from './scan-lines.js';

/** Formats lines as `  42 | text`, numbered from `firstLine`, padded to the widest number shown. */
export function numberLines(lines: string[], firstLine: number, width = String(firstLine + lines.length - 1).length): string {
  return lines.map((line, index) => `${String(firstLine + index).padStart(width)} | ${line}`).join('\n');
}

/** Scanned lines that fit in a character budget, and how they render. */
export interface FittedLines {
  lines: ScannedLine[];
  text: string;
}

/**
 * As many consecutive `lines` as fit in `budget` characters once numbered, taken from the start or, with
 * `fromEnd`, from the end. A cut line ends with a marker giving its real size, so the model knows it saw a part.
 */
export function fitLines(lines: ScannedLine[], width: number, budget: number, fromEnd = false): FittedLines {
  const rendered = lines.map(
    (line) =>
      `${String(line.number).padStart(width)} | ${line.text}${line.cut ? ` … [line cut: ${formatCount(line.bytes)} bytes in all]` : ''}`,
  );
  const order = fromEnd ? [...rendered.keys()].reverse() : [...rendered.keys()];
  let used = 0;
  let count = 0;
  for (const index of order) {
    used += rendered[index]!.length + 1;
    if (used > budget) break;
    count += 1;
  }
  const range: [number, number] = fromEnd ? [lines.length - count, lines.length] : [0, count];
  return { lines: lines.slice(...range), text: rendered.slice(...range).join('\n') };
}
