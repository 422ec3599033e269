/** One search/replace block from the model's `edit_file` call. */
export interface Edit {
  search: string;
  replace: string;
}

/**
 * How an edit found its place, from strictest to loosest. `already-applied` means the replacement was already in
 * the file, so a retried activity left it alone instead of applying it twice.
 */
export type MatchLevel = 'exact' | 'whitespace' | 'indentation' | 'fuzzy' | 'already-applied';

/**
 * Result of applying a list of edits to one file. On failure nothing is applied, so the caller writes nothing;
 * `editIndex` is 0-based while `message` counts edits from 1, as the model does.
 */
export type EditOutcome =
  | { ok: true; content: string; diff: string; levels: MatchLevel[]; changed: boolean }
  | { ok: false; editIndex: number; message: string };
