import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createSandbox } from '../../src/activities/process/sandbox.js';
import { createCodeloopWorkers } from '../../src/create-workers.js';
import { caseTitle, type EvalSuite } from '../../src/eval/load-suite.js';
import type { EvalResults } from '../../src/eval/results.js';
import { runEval, type EvalOptions } from '../../src/eval/run-eval.js';
import { byTask, startFakeMessagesApi, withSummaries, type Responder } from '../../tests/support/fake-messages-api.js';

/** The model name scripted sessions answer as, so a recording made from one never passes for a real model's. */
export const SCRIPTED_MODEL = 'scripted-model';

/**
 * Runs a suite as `codeloop eval` does against a live worker, with the model replaced by scripted sessions served
 * by the loopback Messages API: codeloop's own workers in this process, the real SDK, the real server. With
 * `recordDir` the workers record every exchange there (`CODELOOP_RECORD`), which is how evals/recordings/ is made.
 */
export async function runScriptedEval(options: {
  suite: EvalSuite;
  /** A session per case id; a request for a case with none is refused loudly by the fake. */
  sessions: Record<string, Responder>;
  client: Client;
  connection: NativeConnection;
  workflowBundlePath?: string;
  recordDir?: string;
  eval?: Partial<Omit<EvalOptions, 'client' | 'taskQueue'>>;
}): Promise<{ results: EvalResults; problems: string[] }> {
  const fake = await startFakeMessagesApi();
  const byTitle = Object.fromEntries(
    options.suite.cases
      .filter((suiteCase) => options.sessions[suiteCase.id])
      .map((suiteCase) => [caseTitle(suiteCase), options.sessions[suiteCase.id]]),
  );
  fake.setResponder(withSummaries(byTask(byTitle)));
  const taskQueue = `codeloop-eval-scripted-${randomUUID().slice(0, 8)}`;
  const workers = await createCodeloopWorkers({
    connection: options.connection,
    taskQueue,
    workflowBundlePath: options.workflowBundlePath,
    env: {
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      CODELOOP_MODEL: SCRIPTED_MODEL,
      // Its server is not npm start's, and the eval's client reads results without codecs.
      CODELOOP_PAYLOAD_STORE: 'off',
      ...(options.recordDir ? { CODELOOP_RECORD: options.recordDir } : {}),
    },
  });
  const running = workers.run();
  try {
    const results = await runEval(options.suite, { sandbox: createSandbox(), ...options.eval, client: options.client, taskQueue });
    return { results, problems: fake.problems };
  } finally {
    workers.shutdown();
    await running;
    await fake.close();
  }
}
