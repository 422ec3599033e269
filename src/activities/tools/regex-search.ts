import { Worker } from 'node:worker_threads';
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
 * Starts a thread for `pattern` (already checked to compile). A batch that runs past the time limit ends the
 * thread and rejects with a refusal the model can act on; so does one that runs out of memory. `signal` (the
 * activity's cancellation) ends the thread too, rejecting with the signal's reason.
 */
export function startRegexSearch(pattern: string, options: { maxLineChars: number; signal?: AbortSignal }): RegexSearch {
  const worker = new Worker(new URL('./regex-search-worker.mjs', import.meta.url), {
    workerData: { pattern, maxLineChars: options.maxLineChars },
    // The script is plain JavaScript: the thread needs none of the parent's loaders (tsx) or flags.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  return {
    match: (files, keep) => {
      const reply = awaitReply(worker, pattern, files.length, options.signal);
      worker.postMessage({ files, keep });
      return reply;
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

function awaitReply(worker: Worker, pattern: string, fileCount: number, signal?: AbortSignal): Promise<BatchMatches> {
  return new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    const fail = (error: unknown) => settle(() => reject(error));
    const onMessage = (matches: BatchMatches) => settle(() => resolve(matches));
    const onError = (error: Error & { code?: string }) =>
      fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new ToolRefusal(`the search for /${pattern}/ ran out of memory; narrow file_glob`) : error);
    const onExit = (code: number) => fail(new Error(`the regex search thread exited with code ${code} before it answered`));
    const onAbort = () => fail(signal!.reason);
    const timer = setTimeout(() => {
      void worker.terminate();
      fail(new ToolRefusal(describeTimeout(pattern, fileCount)));
    }, REGEX_TIME_LIMIT_MS);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort);
  });
}

function describeTimeout(pattern: string, fileCount: number): string {
  return (
    `the pattern /${pattern}/ took longer than ${REGEX_TIME_LIMIT_MS / 1000} s over ${fileCount} files and was stopped; ` +
    'it probably backtracks catastrophically (nested quantifiers such as (a+)+ or (a|aa)*). ' +
    'Use a simpler pattern, or search for a literal string with special characters escaped, and narrow file_glob'
  );
}
