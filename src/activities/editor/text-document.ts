import { detectLineEnding, splitLines, type Line, type LineEnding } from './line-endings.js';

/** A file's content split once per edit, with what matching and replacing both need. */
export interface TextDocument {
  content: string;
  lines: Line[];
  eol: LineEnding;
  /** Offset of each line's first character, plus one final entry for the end of the content. */
  lineStarts: number[];
}

export function openDocument(content: string): TextDocument {
  const lines = splitLines(content);
  const lineStarts = [0];
  for (const line of lines) lineStarts.push(lineStarts[lineStarts.length - 1]! + line.text.length + line.eol.length);
  return { content, lines, eol: detectLineEnding(content), lineStarts };
}

export function listLineTexts(document: TextDocument): string[] {
  return document.lines.map((line) => line.text);
}

/** 1-based number of the line holding `offset`. */
export function findLineNumber(document: TextDocument, offset: number): number {
  let low = 0;
  let high = document.lines.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (document.lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
