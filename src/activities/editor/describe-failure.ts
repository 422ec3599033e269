import { FUZZY_THRESHOLD } from '../../shared/constants.js';
import type { MatchResult, Place } from './find-match.js';
import { describeLineRange, formatNearestLines } from './nearest-lines.js';

export type EditFailure =
  | { kind: 'empty-search' }
  | Extract<MatchResult, { kind: 'ambiguous' | 'missing' }>
  /** Lines (1-based, of the named block) that carry `read_file`'s `N | ` prefix where they must not. */
  | { kind: 'pasted-line-numbers'; block: 'search' | 'replace'; lines: number[] };

export interface FailureContext {
  path: string;
  /** 0-based. */
  editIndex: number;
  editCount: number;
  /** Lines of the file as the failed edit saw it, after the edits before it. */
  lines: string[];
  earlierEditsChanged: boolean;
}

const LEVEL_NAMES = {
  exact: 'exact match',
  whitespace: 'match ignoring whitespace',
  indentation: 'match ignoring indentation',
  fuzzy: 'fuzzy match',
} as const;

/**
 * A failure message the model can act on in its next turn: which edit failed and why, the file's own lines with
 * line numbers when the block was not found, and what to change in the block.
 */
export function describeFailure(failure: EditFailure, context: FailureContext): string {
  const { path, editIndex, editCount } = context;
  const heading = `Edit ${editIndex + 1}${editCount > 1 ? ` of ${editCount}` : ''} failed:`;
  const body =
    failure.kind === 'empty-search'
      ? 'search must not be empty; to create a file use create_file.'
      : failure.kind === 'pasted-line-numbers'
        ? describePastedNumbers(failure)
        : failure.kind === 'ambiguous'
          ? `the search block matches ${failure.places.length} places in ${path} (${LEVEL_NAMES[failure.level]} at ` +
            `${describePlaces(failure.places)}). Add surrounding lines to the search block so that it matches only ` +
            'one place.'
          : describeMissing(failure, context);
  const notes: string[] = [];
  if (editCount > 1) notes.push(`None of the ${editCount} edits were applied; send them all again.`);
  if (failure.kind !== 'empty-search' && failure.kind !== 'pasted-line-numbers' && context.earlierEditsChanged) {
    notes.push(`Line numbers count ${editIndex === 1 ? 'edit 1' : `edits 1-${editIndex}`} as applied.`);
  }
  return [`${heading} ${body}`, ...notes].join('\n');
}

function describeMissing(failure: Extract<EditFailure, { kind: 'missing' }>, context: FailureContext): string {
  const parts = [`the search block was not found in ${context.path}, not even ignoring whitespace and indentation.`];
  if (context.lines.length === 0) parts.push(`${context.path} is empty.`);
  if (failure.nearest) {
    const { nearest } = failure;
    parts.push(
      `The closest match is ${describeLineRange(nearest)}, ${formatPercent(nearest.similarity)} similar ` +
        `(${formatPercent(FUZZY_THRESHOLD)} needed):`,
      formatNearestLines(context.lines, nearest),
    );
  }
  parts.push('Copy the lines to change exactly as the file has them, with a few unchanged lines around them, and retry.');
  return parts.join('\n');
}

function describePastedNumbers(failure: Extract<EditFailure, { kind: 'pasted-line-numbers' }>): string {
  const which = `${failure.lines.length === 1 ? 'line' : 'lines'} ${joinWords(failure.lines.map(String))}`;
  if (failure.block === 'search') {
    return (
      `${which} of the search block start with read_file's line numbers ("12 | ") and the others do not, so it is ` +
      'not clear what the file holds. Send the lines as the file has them, without "N | " on any line.'
    );
  }
  return (
    `${which} of the replace block start with line numbers ("12 | ") that the file does not have there; they would ` +
    'be written into the file. Send the replacement without "N | " prefixes.'
  );
}

/** Exact matches can share a line, which is then named once. */
function describePlaces(places: Place[]): string {
  const words = [
    ...new Set(
      places.map((place) =>
        place.similarity === undefined ? String(place.line) : `${place.line} (${formatPercent(place.similarity)} similar)`,
      ),
    ),
  ];
  return `${words.length === 1 ? 'line' : 'lines'} ${joinWords(words)}`;
}

/** Rounded down, so a score just under the threshold never reads as reaching it. */
function formatPercent(fraction: number): string {
  return `${Math.floor(fraction * 100 + 1e-9)}%`;
}

function joinWords(words: string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
