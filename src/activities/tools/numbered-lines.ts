/** Formats lines as `  42 | text`, numbered from `firstLine`, padded to the widest number shown. */
export function numberLines(lines: string[], firstLine: number, width = String(firstLine + lines.length - 1).length): string {
  return lines.map((line, index) => `${String(firstLine + index).padStart(width)} | ${line}`).join('\n');
}

/** Splits file content into lines without inventing an empty last line for a trailing newline. */
export function splitLines(content: string): string[] {
  const lines = content.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
