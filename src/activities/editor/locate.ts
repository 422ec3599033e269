import { convertLineEndings, splitBlock } from './line-endings.js';
import { isBlank, keyForIndentation, keyForWhitespace } from './normalize-line.js';
import type { TextDocument } from './text-document.js';

export type LineLevel = 'whitespace' | 'indentation' | 'fuzzy';

/** Where a block sits: a character range for `exact`, whole lines (0-based `start`) for the other levels. */
export type Location = { level: 'exact'; offset: number; length: number } | { level: LineLevel; start: number; count: number };

/** Every occurrence of `block` (with `\n` breaks) in the document, overlapping ones included. */
export function locateExact(document: TextDocument, block: string): Location[] {
  const needle = convertLineEndings(block, document.eol);
  const locations: Location[] = [];
  const { content } = document;
  for (let offset = content.indexOf(needle); offset >= 0; offset = content.indexOf(needle, offset + 1)) {
    locations.push({ level: 'exact', offset, length: needle.length });
  }
  return locations;
}

/** Every run of whole lines equal to the block's lines under the level's key; none for an all-blank block. */
export function locateLines(document: TextDocument, block: string, level: 'whitespace' | 'indentation'): Location[] {
  const toKey = level === 'whitespace' ? keyForWhitespace : keyForIndentation;
  const blockLines = splitBlock(block);
  if (blockLines.every(isBlank)) return [];
  const wanted = blockLines.map(toKey);
  const keys = document.lines.map((line) => toKey(line.text));
  const locations: Location[] = [];
  for (let start = 0; start + wanted.length <= keys.length; start++) {
    if (wanted.every((key, index) => keys[start + index] === key)) locations.push({ level, start, count: wanted.length });
  }
  return locations;
}

/**
 * The character range a location covers. Line ranges end after their last line's text, or after its terminator
 * when `withTerminator` is set, so a range tested for containment can be generous and the range tested tight.
 */
export function measureRegion(document: TextDocument, location: Location, withTerminator: boolean): [number, number] {
  if (location.level === 'exact') return [location.offset, location.offset + location.length];
  const last = location.start + location.count - 1;
  const { lineStarts, lines } = document;
  const end = withTerminator ? lineStarts[last + 1]! : lineStarts[last]! + lines[last]!.text.length;
  return [lineStarts[location.start]!, end];
}
