import { FUZZY_THRESHOLD } from '../../shared/constants.js';
import { findFuzzyMatches, type Window } from './fuzzy-match.js';
import { splitBlock } from './line-endings.js';
import { locateExact, locateLines, measureRegion, type Location } from './locate.js';
import { findLineNumber, listLineTexts, type TextDocument } from './text-document.js';
import type { ApplyOptions, Edit } from './types.js';

/** A place a search block matched, 1-based; fuzzy places carry their similarity. */
export interface Place {
  line: number;
  similarity?: number;
}

export type MatchResult =
  | { kind: 'unique'; location: Location }
  | { kind: 'already-applied' }
  | { kind: 'ambiguous'; level: Location['level']; places: Place[] }
  | { kind: 'missing'; nearest?: Window };

/**
 * Finds where one normalised edit applies: exact, then ignoring whitespace, then ignoring indentation, then fuzzy.
 * The first level that finds anything decides, and it must find exactly one place.
 *
 * A retried activity runs its edits again on a file that already has them, so on a retry an edit is `already-applied`
 * when its replacement is in the file once (verbatim or re-indented) and either the search block is gone or its only
 * match lies inside that replacement. This is checked before fuzzy matching: a replacement usually resembles its
 * search block closely enough to match fuzzily, and applying it there would edit the file a second time.
 */
export function findMatch(document: TextDocument, edit: Edit, options: ApplyOptions): MatchResult {
  const strictLevels = [
    () => locateExact(document, edit.search),
    () => locateLines(document, edit.search, 'whitespace'),
    () => locateLines(document, edit.search, 'indentation'),
  ];
  for (const locate of strictLevels) {
    const locations = locate();
    if (locations.length > 1) {
      const places = locations.map((location) => ({ line: findFirstLine(document, location) }));
      return { kind: 'ambiguous', level: locations[0]!.level, places };
    }
    const location = locations[0];
    if (location) {
      const applied = options.retried && isInsideReplacement(document, location, edit);
      return applied ? { kind: 'already-applied' } : { kind: 'unique', location };
    }
  }
  if (options.retried && locateReplacement(document, edit)) return { kind: 'already-applied' };
  const fuzzy = findFuzzyMatches(listLineTexts(document), splitBlock(edit.search), FUZZY_THRESHOLD);
  const [first, ...others] = fuzzy.places;
  if (!first) return { kind: 'missing', nearest: fuzzy.nearest };
  if (others.length === 0) return { kind: 'unique', location: { level: 'fuzzy', start: first.start, count: first.count } };
  const places = fuzzy.places.map(({ start, similarity }) => ({ line: start + 1, similarity }));
  return { kind: 'ambiguous', level: 'fuzzy', places };
}

function findFirstLine(document: TextDocument, location: Location): number {
  return location.level === 'exact' ? findLineNumber(document, location.offset) : location.start + 1;
}

/** The replacement's only place in the file, verbatim or ignoring indentation; none if it is absent or repeated. */
function locateReplacement(document: TextDocument, edit: Edit): Location | undefined {
  if (edit.replace === '' || edit.replace === edit.search) return undefined;
  const exact = locateExact(document, edit.replace);
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const reindented = locateLines(document, edit.replace, 'indentation');
  return reindented.length === 1 ? reindented[0] : undefined;
}

function isInsideReplacement(document: TextDocument, location: Location, edit: Edit): boolean {
  const replacement = locateReplacement(document, edit);
  if (!replacement) return false;
  const [start, end] = measureRegion(document, location, false);
  const [outerStart, outerEnd] = measureRegion(document, replacement, true);
  return outerStart <= start && end <= outerEnd;
}
