import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import type { CodeloopConfig } from '../config.js';
import type { EvalSuite } from './load-suite.js';
import { readRecordings } from './recording.js';
import type { EvalResults } from './results.js';
import { matchRecordings, startReplayWorkers } from './replay-worker.js';
import { runEval, type EvalOptions } from './run-eval.js';

export class RecordingsError extends Error {}

/**
 * `codeloop eval --replay <dir>`: the suite's cases with each model turn served from its recording, by workers this
 * process runs itself. No key and no other worker is involved, so it runs anywhere the Temporal server is reachable.
 */
export async function replaySuite(
  suite: EvalSuite,
  options: Omit<EvalOptions, 'taskQueue' | 'replay' | 'model'> & { dir: string; connection: NativeConnection; config: CodeloopConfig },
): Promise<EvalResults> {
  const dir = path.resolve(options.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new RecordingsError(`recordings directory ${options.dir} does not exist: record one with CODELOOP_RECORD=<dir> on the worker`);
  }
  const recordings = readRecordings(dir);
  for (const recording of recordings) {
    if (recording.tornLines.length) {
      options.onProgress?.(`${path.basename(recording.file)}: line(s) ${recording.tornLines.join(', ')} torn by a crash, skipped`);
    }
  }
  const matched = matchRecordings(suite.cases, recordings);
  const workers = await startReplayWorkers({
    connection: options.connection,
    config: options.config,
    recordings: [...matched.values()].map((replay) => replay.recording),
  });
  try {
    return await runEval(suite, { ...options, taskQueue: workers.taskQueue, replay: { dir, recordings: matched } });
  } finally {
    await workers.stop();
  }
}
