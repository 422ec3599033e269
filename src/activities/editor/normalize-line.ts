/** Width a tab counts for when indentation written with tabs is compared with indentation written with spaces. */
export const TAB_WIDTH = 4;

export function isBlank(line: string): boolean {
  return line.trim() === '';
}

export function getLeadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** Indentation width with each tab counted as {@link TAB_WIDTH} spaces. */
export function measureIndent(whitespace: string): number {
  let width = 0;
  for (const character of whitespace) width += character === '\t' ? TAB_WIDTH : 1;
  return width;
}

/** Writes an indentation of `width` columns in tabs (spaces for the remainder) or in spaces. */
export function renderIndent(width: number, useTabs: boolean): string {
  if (!useTabs) return ' '.repeat(width);
  return '\t'.repeat(Math.floor(width / TAB_WIDTH)) + ' '.repeat(width % TAB_WIDTH);
}

/** Line content with indentation and trailing whitespace removed and inner runs of whitespace collapsed to one space. */
export function normalizeLine(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

/**
 * Key for the `whitespace` level: normalised content plus indentation width, so a block still has to sit at the
 * same depth, but tabs versus spaces and spacing inside a line no longer matter. Blank lines all compare equal.
 */
export function keyForWhitespace(line: string): string {
  if (isBlank(line)) return '';
  return `${measureIndent(getLeadingWhitespace(line))}:${normalizeLine(line)}`;
}

/** Key for the `indentation` level: the `whitespace` key without the depth. */
export function keyForIndentation(line: string): string {
  return normalizeLine(line);
}
