import type { EditFailure } from './describe-failure.js';
import { findMatch, type MatchResult } from './find-match.js';
import type { Location } from './locate.js';
import { normalizeEdit } from './normalize-edit.js';
import { introducedLineNumbers, readPastedNumbers } from './pasted-line-numbers.js';
import { replaceMatch } from './replace-match.js';
import { openDocument, type TextDocument } from './text-document.js';
import type { ApplyOptions, Edit, MatchLevel } from './types.js';

export type EditStep = { ok: true; content: string; level: MatchLevel } | { ok: false; failure: EditFailure };

/**
 * Applies one search/replace block to `content`, or says why it cannot. A search block whose lines all carry
 * `read_file`'s `N | ` prefixes is matched, and its replacement written, without them, unless the file itself holds
 * those lines; a block where only some lines carry one is refused, and no match may write such a prefix.
 */
export function applyEdit(content: string, edit: Edit, options: ApplyOptions): EditStep {
  if (edit.search === '') return { ok: false, failure: { kind: 'empty-search' } };
  const given = normalizeEdit(edit);
  const document = openDocument(content);
  const pasted = readPastedNumbers(given);
  let normalized = given;
  let match = findMatch(document, given, options);
  const matchedAsGiven = match.kind === 'already-applied' || (match.kind === 'unique' && match.location.level !== 'fuzzy');
  if (pasted.kind === 'some' && !matchedAsGiven) {
    return { ok: false, failure: { kind: 'pasted-line-numbers', block: 'search', lines: pasted.positions } };
  }
  if (pasted.kind === 'all' && !matchedAsGiven) {
    normalized = normalizeEdit(pasted.edit);
    match = findMatch(document, normalized, options);
  }
  return applyMatch(document, match, normalized);
}

function applyMatch(document: TextDocument, match: MatchResult, edit: Edit): EditStep {
  if (match.kind === 'already-applied') return { ok: true, content: document.content, level: 'already-applied' };
  if (match.kind !== 'unique') return { ok: false, failure: match };
  const { location } = match;
  const written = introducedLineNumbers(matchedText(document, location, edit), edit.replace, location.level === 'fuzzy');
  if (written.length > 0) return { ok: false, failure: { kind: 'pasted-line-numbers', block: 'replace', lines: written } };
  return { ok: true, content: replaceMatch(document, location, edit), level: location.level };
}

/** The file's text at a match: the search block itself when exact, else the whole lines it covers. */
function matchedText(document: TextDocument, location: Location, edit: Edit): string {
  if (location.level === 'exact') return edit.search;
  return document.lines
    .slice(location.start, location.start + location.count)
    .map((line) => line.text)
    .join('\n');
}
