/** One search/replace block from the model's `edit_file` call. */
export interface Edit {
  search: string;
  replace: string;
}

export interface ApplyOptions {
  /**
   * The edits are a retry of a call that may already have written them. Only then is an edit whose replacement is
   * in the file and whose search block is not taken as `already-applied`; on a first call that same picture means
   * the search block has a mistake, and calling it applied would report a change that was never made.
   */
  retried: boolean;
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
  { ok: true; content: string; diff: string; levels: MatchLevel[]; changed: boolean } | { ok: false; editIndex: number; message: string };
