import { randomUUID } from 'node:crypto';
import type { NativeConnection } from '@temporalio/worker';
import type { CodeloopConfig } from '../config.js';
import { createCodeloopWorkers } from '../create-workers.js';
import { caseTitle, type EvalCase } from './load-suite.js';
import type { Recording } from './recording.js';
import { startReplayServer, type ReplayServer } from './replay-server.js';

/** The recording a case replays, and the models its requests named (the replay asks for the same ones). */
export interface CaseReplay {
  recording: Recording;
  model: string;
  summaryModel?: string;
}

/**
 * Each case's recording: the newest one whose first request's system prompt carries the case's task title, the way
 * the task layer of the prompt names it. That holds for a recording made by `codeloop eval` as for one of a task a
 * user started by hand with the same title.
 */
export function matchRecordings(cases: EvalCase[], recordings: Recording[]): Map<string, CaseReplay> {
  const matched = new Map<string, CaseReplay>();
  for (const suiteCase of cases) {
    const title = caseTitle(suiteCase);
    for (const recording of recordings) {
      const first = recording.exchanges.find((exchange) => exchange.request.tools?.length);
      if (!first || !JSON.stringify(first.request.system ?? '').includes(JSON.stringify(`## ${title}\n`).slice(1, -1))) continue;
      const summary = recording.exchanges.find((exchange) => !exchange.request.tools?.length);
      matched.set(suiteCase.id, { recording, model: first.request.model, summaryModel: summary?.request.model });
    }
  }
  return matched;
}

export interface ReplayWorkers {
  taskQueue: string;
  server: ReplayServer;
  stop(): Promise<void>;
}

/**
 * codeloop's own workers, in this process, on a task queue of their own (so no other worker takes a replayed task)
 * and pointed at a loopback server that answers from the recordings. With `CODELOOP_WORKFLOW_BUNDLE` set the
 * workflows are not bundled again.
 */
export async function startReplayWorkers(options: {
  connection: NativeConnection;
  config: CodeloopConfig;
  recordings: Recording[];
}): Promise<ReplayWorkers> {
  const server = await startReplayServer(options.recordings);
  const taskQueue = `codeloop-eval-replay-${randomUUID().slice(0, 8)}`;
  // A replay is not itself recorded.
  const config = { ...options.config, worker: { ...options.config.worker, recordDir: undefined } };
  try {
    const workers = await createCodeloopWorkers({
      connection: options.connection,
      config,
      taskQueue,
      workflowBundlePath: config.worker.workflowBundle,
      env: { ANTHROPIC_API_KEY: server.apiKey, ANTHROPIC_BASE_URL: server.url },
    });
    const running = workers.run();
    return {
      taskQueue,
      server,
      async stop() {
        workers.shutdown();
        await running;
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
