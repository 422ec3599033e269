import type { EditFailure } from './describe-failure.js';
import { findMatch } from './find-match.js';
import { normalizeEdit } from './normalize-edit.js';
import { replaceMatch } from './replace-match.js';
import { openDocument } from './text-document.js';
import type { ApplyOptions, Edit, MatchLevel } from './types.js';

export type EditStep = { ok: true; content: string; level: MatchLevel } | { ok: false; failure: EditFailure };

/** Applies one search/replace block to `content`, or says why it cannot. */
export function applyEdit(content: string, edit: Edit, options: ApplyOptions): EditStep {
  if (edit.search === '') return { ok: false, failure: { kind: 'empty-search' } };
  const normalized = normalizeEdit(edit);
  const document = openDocument(content);
  const match = findMatch(document, normalized, options);
  if (match.kind === 'unique') {
    return { ok: true, content: replaceMatch(document, match.location, normalized), level: match.location.level };
  }
  if (match.kind === 'already-applied') return { ok: true, content, level: 'already-applied' };
  return { ok: false, failure: match };
}
