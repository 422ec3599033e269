import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../project-root.js';
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
  const worker = new Worker(path.join(projectRoot, 'src', 'activities', 'tools', 'regex-search-worker.mjs'), {
    workerData: { pattern, flags: options.flags ?? '', maxLineChars: options.maxLineChars },
    // The script is plain JavaScript: the thread needs none of the parent's loaders (tsx) or flags.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  let ended: Error | undefined;
  let failBatch: ((error: unknown) => void) | undefined;
  const end = (error: Error) => {
    ended ??= error;
    failBatch?.(ended);
  };
  // Listening from the start: a thread that fails before its first batch must not become an unhandled 'error'.
  worker.on('error', (error: Error & { code?: string }) => end(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? outOfMemory(pattern) : error));
  worker.on('exit', (code) => end(new Error(`the regex search thread exited with code ${code} before it answered`)));
  return {
    match: (files, keep) =>
      new Promise((resolve, reject) => {
        if (ended) return reject(ended);
        const settle = (finish: () => void) => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          options.signal?.removeEventListener('abort', onAbort);
          failBatch = undefined;
          finish();
        };
        const onMessage = (matches: BatchMatches) => settle(() => resolve(matches));
        const onAbort = () => failBatch?.(options.signal!.reason);
        const timer = setTimeout(() => {
          failBatch?.(new ToolRefusal(describeTimeout(pattern, files.length)));
          void worker.terminate();
        }, REGEX_TIME_LIMIT_MS);
        failBatch = (error) => settle(() => reject(error));
        worker.on('message', onMessage);
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener('abort', onAbort);
        worker.postMessage({ files, keep });
      }),
    close: async () => {
      await worker.terminate();
    },
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
