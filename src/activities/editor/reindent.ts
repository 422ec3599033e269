import { getLeadingWhitespace, isBlank, measureIndent, normalizeLine, renderIndent } from './normalize-line.js';

/**
 * Moves a replacement written at the search block's indentation to the indentation the matched lines really have.
 *
 * The first non-blank search line and the first non-blank matched line fix the base delta. Every other search line
 * pairs its indentation with the matched line at the same position (when both blocks have as many lines, or the two
 * lines say the same thing), so a block written with two spaces lands in a tab-indented file with the file's tabs
 * at every depth. A replacement line takes the pair with the longest indentation it starts with and keeps any extra
 * depth in the file's tabs or spaces; a line shallower than every pair gets the base delta by width. Blank lines
 * are left alone.
 */
export function reindentLines(replacement: string[], search: string[], matched: string[]): string[] {
  const pairs = pairIndentation(search, matched);
  const first = pairs.entries().next().value;
  if (!first || [...pairs].every(([from, to]) => from === to)) return replacement;
  const [baseFrom, baseTo] = first;
  return replacement.map((line) => {
    if (isBlank(line)) return line;
    const lead = getLeadingWhitespace(line);
    const body = line.slice(lead.length);
    const from = findLongestPrefix([...pairs.keys()], lead);
    if (from !== undefined) {
      const to = pairs.get(from)!;
      const extra = lead.slice(from.length);
      return to + (to === '' ? extra : renderIndent(measureIndent(extra), to.includes('\t'))) + body;
    }
    const width = Math.max(0, measureIndent(lead) + measureIndent(baseTo) - measureIndent(baseFrom));
    return renderIndent(width, baseTo === '' ? lead.includes('\t') : baseTo.includes('\t')) + body;
  });
}

/** Search indentation → file indentation, base pair first. */
function pairIndentation(search: string[], matched: string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  const searchFirst = search.findIndex((line) => !isBlank(line));
  const matchedFirst = matched.findIndex((line) => !isBlank(line));
  if (searchFirst < 0 || matchedFirst < 0) return pairs;
  pairs.set(getLeadingWhitespace(search[searchFirst]!), getLeadingWhitespace(matched[matchedFirst]!));
  for (let index = 0; index < Math.min(search.length, matched.length); index++) {
    const searchLine = search[index]!;
    const matchedLine = matched[index]!;
    if (isBlank(searchLine) || isBlank(matchedLine)) continue;
    if (search.length !== matched.length && normalizeLine(searchLine) !== normalizeLine(matchedLine)) continue;
    const from = getLeadingWhitespace(searchLine);
    if (!pairs.has(from)) pairs.set(from, getLeadingWhitespace(matchedLine));
  }
  return pairs;
}

function findLongestPrefix(candidates: string[], text: string): string | undefined {
  let longest: string | undefined;
  for (const candidate of candidates) {
    if (text.startsWith(candidate) && (longest === undefined || candidate.length > longest.length)) longest = candidate;
  }
  return longest;
}
