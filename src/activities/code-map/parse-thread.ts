import path from 'node:path';
import { createRequire } from 'node:module';
import { startTimedThread, type TimedThread } from '../timed-thread.js';
import { LANGUAGES } from './languages.js';

/** A source file to parse: its workspace-relative path, its language's name and its text. */
export interface SourceText {
  file: string;
  language: string;
  text: string;
}

/** What the parser found in one file: its definitions as `[name, kind, line]`, and each identifier it uses once. */
export interface ParsedFile {
  file: string;
  definitions: Array<[name: string, kind: string, line: number]>;
  references: string[];
}

type Reply = { parsed: ParsedFile[]; error?: undefined } | { error: string; parsed?: undefined };

/** One batch (a few MB of source) may take this long: tree-sitter parses megabytes a second, so this is generous. */
const BATCH_TIME_LIMIT_MS = 30_000;
/** The parser's JavaScript heap; its WebAssembly memory comes on top. */
const THREAD_HEAP_MB = 512;

const grammarDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');

/** A parser thread with every grammar loaded; `close` must always be called. */
export interface ParseThread {
  parse(files: SourceText[]): Promise<ParsedFile[]>;
  close(): Promise<void>;
}

/** Starts the parser thread (see parse-worker.mjs). A batch past its time limit ends the thread and rejects. */
export function startParseThread(signal?: AbortSignal): ParseThread {
  const thread: TimedThread<{ files: SourceText[] }, Reply> = startTimedThread({
    script: 'src/activities/code-map/parse-worker.mjs',
    workerData: {
      grammarDir,
      languages: LANGUAGES.map(({ name, grammar, definitions, references }) => ({ name, grammar, definitions, references })),
    },
    heapMb: THREAD_HEAP_MB,
    timeLimitMs: BATCH_TIME_LIMIT_MS,
    onTimeout: () => new Error(`parsing a batch of source files took longer than ${BATCH_TIME_LIMIT_MS / 1000} s`),
    onOutOfMemory: () => new Error('the code map parser ran out of memory'),
    signal,
  });
  return {
    async parse(files) {
      const reply = await thread.ask({ files });
      if (reply.error !== undefined) throw new Error(reply.error);
      return reply.parsed;
    },
    close: () => thread.close(),
  };
}
