import { IGNORED_DIRECTORIES, IGNORED_DIRECTORY_SUFFIXES, IGNORED_NESTED_DIRECTORIES } from '../ignored-paths.js';

/** A file ripgrep found matching lines in, by the path it printed, and how many. */
export interface FileCount {
  file: string;
  count: number;
}

/** A line ripgrep printed: its file as printed, its number and its text without the line ending. */
export interface PrintedLine {
  file: string;
  line: number;
  text: string;
}

const NUL = 0;
const NEWLINE = 0x0a;

/**
 * `rg --count --null`: `path NUL count LF` per file. Paths are read up to their NUL, so a file name holding a
 * newline still parses.
 */
export function parseCounts(output: Buffer): FileCount[] {
  const text = output.toString('utf8');
  const counts: FileCount[] = [];
  for (let start = 0; start < text.length;) {
    const nul = text.indexOf('\0', start);
    if (nul === -1) break;
    const newline = text.indexOf('\n', nul);
    const end = newline === -1 ? text.length : newline;
    const count = Number(text.slice(nul + 1, end));
    if (Number.isInteger(count)) counts.push({ file: text.slice(start, nul), count });
    start = end + 1;
  }
  return counts;
}

/**
 * `rg --line-number --with-filename --null --no-heading`: `path NUL number : text LF` per line. A record without a
 * NUL (ripgrep's "binary file matches" note) is skipped; a `\r` before the line feed is the file's line ending.
 */
export function parseLines(output: Buffer): PrintedLine[] {
  const lines: PrintedLine[] = [];
  for (let start = 0; start < output.length;) {
    const nul = output.indexOf(NUL, start);
    const newline = output.indexOf(NEWLINE, start);
    const end = newline === -1 ? output.length : newline;
    if (nul !== -1 && nul < end) {
      const record = output.subarray(nul + 1, end).toString('utf8');
      const colon = record.indexOf(':');
      const line = Number(record.slice(0, colon));
      if (colon > 0 && Number.isInteger(line)) {
        lines.push({ file: output.subarray(start, nul).toString('utf8'), line, text: record.slice(colon + 1).replace(/\r$/, '') });
      }
    }
    start = end + 1;
  }
  return lines;
}

/**
 * The fixed list of dependency, cache and build directories as ripgrep exclusions (`isIgnoredDirectory`'s rules):
 * directories only, at any depth below where the walk starts; a start inside one is walked, since ripgrep never
 * applies a glob to the paths it is given.
 */
export function fixedListGlobs(): string[] {
  return [
    ...IGNORED_DIRECTORIES.map((name) => `!${name}/`),
    ...IGNORED_NESTED_DIRECTORIES.map((nested) => `!**/${nested}/`),
    ...IGNORED_DIRECTORY_SUFFIXES.map((suffix) => `!*${suffix}/`),
  ].flatMap((glob) => ['--glob', glob]);
}
