import { startTimedThread } from '../timed-thread.js';
import { ToolRefusal } from './tool-outcome.js';

/**
 * How long the pattern may run over one batch of files. A plain pattern needs a few milliseconds per megabyte, so
 * this is hundreds of times what a useful search takes, and short enough that a runaway one is reported within 2 s.
 */
export const REGEX_TIME_LIMIT_MS = 1_000;

/** Heap for the search thread: a batch of files and its matches, with room to spare. */
const THREAD_HEAP_MB = 256;

export interface SearchedFile {
  /** Workspace-relative path, as shown to the model. */
  name: string;
  bytes: Uint8Array;
}

export interface MatchedLine {
  file: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

export interface BatchMatches {
  /** Matching lines in the batch. */
  total: number;
  /** The first of them, as many as were asked for. */
  shown: MatchedLine[];
}

/** A regular expression running on a thread of its own; `close` ends the thread and must always be called. */
export interface RegexSearch {
  /** Matches `files` line by line, keeping the first `keep` matching lines. */
  match(files: SearchedFile[], keep: number): Promise<BatchMatches>;
  close(): Promise<void>;
}

/**
 * Starts a thread for `pattern` (already checked to compile with `flags`, `i` or none). A batch that runs past the time limit ends the
 * thread and rejects with a refusal the model can act on; so does one that runs out of memory. `signal` (the
 * activity's cancellation) ends the thread too, rejecting with the signal's reason.
 */
export function startRegexSearch(pattern: string, options: { maxLineChars: number; flags?: string; signal?: AbortSignal }): RegexSearch {
  let fileCount = 0;
  const thread = startTimedThread<{ files: SearchedFile[]; keep: number }, BatchMatches>({
    script: 'src/activities/tools/regex-search-worker.mjs',
    workerData: { pattern, flags: options.flags ?? '', maxLineChars: options.maxLineChars },
    heapMb: THREAD_HEAP_MB,
    timeLimitMs: REGEX_TIME_LIMIT_MS,
    onTimeout: () => new ToolRefusal(describeTimeout(pattern, fileCount)),
    onOutOfMemory: () => outOfMemory(pattern),
    signal: options.signal,
  });
  return {
    match: (files, keep) => {
      fileCount = files.length;
      return thread.ask({ files, keep });
    },
    close: () => thread.close(),
  };
}

function outOfMemory(pattern: string): ToolRefusal {
  return new ToolRefusal(`the search for /${pattern}/ ran out of memory and was stopped; narrow file_glob or the pattern`);
}

function describeTimeout(pattern: string, fileCount: number): string {
  return (
    `the pattern /${pattern}/ took longer than ${REGEX_TIME_LIMIT_MS / 1000} s over ${fileCount} files and was stopped; ` +
    'it probably backtracks catastrophically (nested quantifiers such as (a+)+ or (a|aa)*). ' +
    'Use a simpler pattern, or search for a literal string with special characters escaped, and narrow file_glob'
  );
}
