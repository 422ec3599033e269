import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../project-root.js';

/** A worker thread that answers one request at a time within a time limit; `close` ends it and must always be called. */
export interface TimedThread<Request, Reply> {
  ask(request: Request): Promise<Reply>;
  close(): Promise<void>;
}

export interface TimedThreadOptions {
  /** The thread's plain JavaScript script, relative to codeloop's checkout. */
  script: string;
  workerData: unknown;
  /** The old-generation heap the thread may use. */
  heapMb: number;
  /** How long one request may take; past it the thread is ended and the request rejected with `onTimeout()`. */
  timeLimitMs: number;
  onTimeout(): Error;
  /** The error for a thread that ran out of memory. */
  onOutOfMemory(): Error;
  /** The activity's cancellation: ends the thread, rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs CPU-bound work (a regular expression over files, a parser) off the worker's event loop, where a runaway
 * request holds up only its own thread: the thread is terminated when its time runs out or the activity is
 * cancelled, and the next request on this handle fails with the same reason. The script needs none of the parent's
 * loaders (tsx) or flags, so it runs the same under tsx, vitest and node.
 */
export function startTimedThread<Request, Reply>(options: TimedThreadOptions): TimedThread<Request, Reply> {
  const worker = new Worker(path.join(projectRoot, options.script), {
    workerData: options.workerData,
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
  });
  let ended: Error | undefined;
  let failRequest: ((error: unknown) => void) | undefined;
  const end = (error: Error) => {
    ended ??= error;
    failRequest?.(ended);
  };
  // Listening from the start: a thread that fails before its first request must not become an unhandled 'error'.
  worker.on('error', (error: Error & { code?: string }) =>
    end(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? options.onOutOfMemory() : error),
  );
  worker.on('exit', (code) => end(new Error(`the thread ${path.basename(options.script)} exited with code ${code} before it answered`)));
  return {
    ask: (request) =>
      new Promise((resolve, reject) => {
        if (ended) return reject(ended);
        const settle = (finish: () => void) => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          options.signal?.removeEventListener('abort', onAbort);
          failRequest = undefined;
          finish();
        };
        const onMessage = (reply: Reply) => settle(() => resolve(reply));
        const onAbort = () => failRequest?.(options.signal!.reason);
        const timer = setTimeout(() => {
          failRequest?.(options.onTimeout());
          void worker.terminate();
        }, options.timeLimitMs);
        failRequest = (error) => settle(() => reject(error));
        worker.on('message', onMessage);
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener('abort', onAbort);
        worker.postMessage(request);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}
