/** One `search_codebase` call, as an engine sees it. */
export interface SearchRequest {
  pattern: string;
  /** `file_glob`; the whole workspace when absent. */
  glob?: string;
  caseInsensitive: boolean;
  /** Matching lines to return; the rest are only counted. */
  maxResults: number;
  /** Characters kept of a longer line, which then ends in `…`. */
  maxLineChars: number;
  /** The activity's cancellation. */
  signal?: AbortSignal;
  /** Called as the search goes, so the activity keeps heartbeating. */
  heartbeat?: () => void;
}

export interface FoundLine {
  /** Workspace-relative path, as the glob spelled it. */
  file: string;
  /** 1-based. */
  line: number;
  /** The line as it is in the file, indentation included, cut to `maxLineChars`. */
  text: string;
}

export interface SearchResult {
  /** Matching lines in all. */
  total: number;
  /** The first `maxResults` of them, by path and line. */
  shown: FoundLine[];
  /** When nothing matched: the files the glob selected, and how many of them were skipped for their size. */
  files?: number;
  tooLarge?: number;
}

/**
 * How `search_codebase` searches: ripgrep inside the sandbox where the worker has it, or the built-in search (a
 * walk and a regex thread in the worker) where it does not. Both search the same files by the same rules; a pattern
 * neither can compile, or a search past its time limit, is a `ToolRefusal`.
 */
export interface SearchEngine {
  readonly name: 'ripgrep' | 'built-in';
  /** One line for the worker's start-up log. */
  readonly description: string;
  search(root: string, request: SearchRequest): Promise<SearchResult>;
}

/** Files over this many bytes are not searched: minified bundles, data, lock files. */
export const MAX_SEARCHED_FILE_BYTES = 1_000_000;

/** `line` cut to `maxLineChars`, marked with `…` when it was longer. */
export function cutLine(line: string, maxLineChars: number): string {
  return line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line;
}
