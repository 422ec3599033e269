import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { ExchangeRecorder, ModelExchange } from './model.js';

/**
 * Recorded sessions: with `CODELOOP_RECORD=<dir>` the worker appends every model request and its response to
 * `<dir>/<workflow-id>.jsonl`, one JSON object a line, so `codeloop eval --replay <dir>` can serve the same responses
 * again with no key (`src/eval/recording.ts` reads them).
 */

export interface RecordedExchange<Request = ModelExchange['request'], Response = ModelExchange['response']> {
  v: 1;
  workflowId: string;
  runId: string;
  /** The model activity's attempt: a retried call is recorded again, and the later entry is the one its task used. */
  attempt: number;
  at: string;
  request: Request;
  response: Response;
}

/** The file a workflow's exchanges go to: its id, with what a file name cannot hold (a batch child's `/`) replaced. */
export function recordingFile(dir: string, workflowId: string): string {
  return path.join(dir, `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
}

/**
 * Appends each exchange as one line, in one `write` to a file opened for appending, then flushes it to disk before
 * the model activity returns. A crash mid-write leaves at most a torn last line: the next append starts on a line of
 * its own, and readers skip the torn one, so entries written before it are never lost. Appends to one file from this
 * process are queued, so two never interleave.
 */
export function createExchangeRecorder(dir: string): ExchangeRecorder {
  const queues = new Map<string, Promise<void>>();
  let made: Promise<unknown> | undefined;
  return (exchange: ModelExchange) => {
    const workflowId = exchange.workflowId ?? 'no-workflow';
    const file = recordingFile(dir, workflowId);
    const entry: RecordedExchange = {
      v: 1,
      workflowId,
      runId: exchange.runId ?? '',
      attempt: exchange.attempt,
      at: new Date().toISOString(),
      request: exchange.request,
      response: exchange.response,
    };
    const append = async () => {
      await (made ??= mkdir(dir, { recursive: true }));
      await appendLine(file, JSON.stringify(entry));
    };
    const next = (queues.get(file) ?? Promise.resolve()).then(append, append);
    queues.set(file, next);
    return next;
  };
}

async function appendLine(file: string, line: string): Promise<void> {
  const handle = await open(file, 'a+');
  let size: number;
  try {
    size = (await handle.stat()).size;
    let startsClean = true;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      startsClean = last[0] === 0x0a;
    }
    await handle.write(`${startsClean ? '' : '\n'}${line}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  // A new file's name must reach the disk too, or a crash could lose the whole file.
  if (size === 0) await syncDirectory(path.dirname(file));
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
