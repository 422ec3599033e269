/** A line of a file without its terminator, and the terminator itself (`''` on a last line without one). */
export interface Line {
  text: string;
  eol: string;
}

export type LineEnding = '\n' | '\r\n';

/**
 * The file's dominant line ending. Inserted lines use it, so an edit written with `\n` keeps a Windows file in
 * `\r\n`; a file with no line breaks counts as `\n`.
 */
export function detectLineEnding(content: string): LineEnding {
  const crlf = content.match(/\r\n/g)?.length ?? 0;
  const lf = content.match(/\n/g)?.length ?? 0;
  return crlf > lf - crlf ? '\r\n' : '\n';
}

/** Rewrites every line break in `text` as `eol`. */
export function convertLineEndings(text: string, eol: LineEnding): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

/**
 * Splits a file into lines that remember their own terminators, so lines an edit does not touch keep theirs even in
 * a file that mixes `\n` and `\r\n`.
 */
export function splitLines(content: string): Line[] {
  const lines: Line[] = [];
  const breaks = /\r?\n/g;
  let start = 0;
  for (let found = breaks.exec(content); found; found = breaks.exec(content)) {
    lines.push({ text: content.slice(start, found.index), eol: found[0] });
    start = found.index + found[0].length;
  }
  if (start < content.length) lines.push({ text: content.slice(start), eol: '' });
  return lines;
}

export function joinLines(lines: Line[]): string {
  return lines.map((line) => line.text + line.eol).join('');
}

/**
 * Splits a `\n`-normalised search or replace block into whole lines. One trailing newline only ends the last line,
 * so `"a\n"` and `"a"` are both the single line `a`; an empty block has no lines.
 */
export function splitBlock(block: string): string[] {
  if (block === '') return [];
  return (block.endsWith('\n') ? block.slice(0, -1) : block).split('\n');
}

/**
 * Replaces `count` lines from `start` with `texts`. New lines take `eol`, except the last, which takes the
 * terminator of the last line replaced, so the file keeps or lacks its final newline as before.
 */
export function spliceLines(lines: Line[], start: number, count: number, texts: string[], eol: LineEnding): Line[] {
  const lastEol = lines[start + count - 1]?.eol ?? eol;
  const inserted = texts.map((text, index) => ({ text, eol: index === texts.length - 1 ? lastEol : eol }));
  const result = [...lines.slice(0, start), ...inserted, ...lines.slice(start + count)];
  const previous = result[start - 1];
  if (texts.length === 0 && lastEol === '' && previous) result[start - 1] = { ...previous, eol: '' };
  return result;
}
