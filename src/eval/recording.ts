import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordedExchange as WrittenExchange } from '../activities/model-recording.js';
import type { ApiMessage } from './messages-wire.js';
import type { ApiRequest } from './normalise.js';

/** Reading recorded sessions (written by the worker's `src/activities/model-recording.ts`) for `--replay`. */

/** An entry as the eval reads it: the request and response in the Messages API's wire shapes. */
export type RecordedExchange = WrittenExchange<ApiRequest, ApiMessage>;

export interface Recording {
  file: string;
  exchanges: RecordedExchange[];
  /** Lines that are not a whole entry: a write torn by a crash. They are skipped; every other entry stays readable. */
  tornLines: number[];
}

/** A recording file's whole entries, in order, and the line numbers of torn ones. */
export function readRecording(file: string): Recording {
  const exchanges: RecordedExchange[] = [];
  const tornLines: number[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (!line.trim()) return;
      try {
        const entry = JSON.parse(line) as RecordedExchange;
        if (entry.v === 1 && entry.request && entry.response) exchanges.push(entry);
        else tornLines.push(index + 1);
      } catch {
        tornLines.push(index + 1);
      }
    });
  return { file, exchanges, tornLines };
}

/** Every `*.jsonl` recording in a directory, oldest first by its first entry. */
export function readRecordings(dir: string): Recording[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => path.join(dir, name));
  const recordings = files.map(readRecording).filter((recording) => recording.exchanges.length > 0);
  return recordings.sort((a, b) => a.exchanges[0].at.localeCompare(b.exchanges[0].at));
}
