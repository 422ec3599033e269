import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { createSandbox, SandboxUnavailableError, type Sandbox } from '../activities/process/sandbox.js';
import { connectWorker } from '../connection.js';
import { compareResults, renderComparison } from '../eval/compare.js';
import { loadSuite, SuiteError } from '../eval/load-suite.js';
import { readResults, ResultsFileError, defaultResultsFile, writeResults, type EvalResults } from '../eval/results.js';
import { RecordingsError, replaySuite } from '../eval/replay-suite.js';
import { runEval, UnknownCaseError } from '../eval/run-eval.js';
import { renderResults } from '../eval/table.js';
import { createWorkerLogger } from '../worker-logger.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { Progress } from './progress.js';
import { cliConfig, clientTaskQueue, withClient } from './session.js';

export interface EvalCommandOptions extends OutputOptions {
  model?: string;
  repeat?: string;
  maxParallel?: string;
  case?: string[];
  replay?: string;
  label?: string;
  out?: string;
  workdir?: string;
  keep?: boolean;
}

/**
 * `codeloop eval <suite.yaml>`: every case as a real task on the server, then its checks; a table (or `--json`), and
 * the results written under the suite's directory for `codeloop eval compare`. Exit code 0 only when every run
 * passed. Without `--replay` the tasks run on the configured queue's worker, with its key and model; with it, on
 * workers of this process that answer from the recordings.
 */
export async function runEvalCommand(suiteFile: string, options: EvalCommandOptions): Promise<void> {
  const suite = explained(() => loadSuite(suiteFile));
  if (options.replay && options.model) {
    throw new CliError('--model cannot be used with --replay: a replay asks for the models its recording used', 2);
  }
  const config = cliConfig();
  const sandbox = explained<Sandbox>(() => createSandbox(process.env, config.sandbox));
  const progress = new Progress();
  const common = {
    sandbox,
    repeat: positive(options.repeat, '--repeat', 1),
    maxParallel: positive(options.maxParallel, '--max-parallel', 4),
    only: options.case ?? [],
    label: options.label,
    workdir: options.workdir,
    keep: options.keep,
    onProgress: (line: string) => progress.log(line),
  };
  await withClient(async (client, namespace) => {
    let results: EvalResults;
    if (options.replay) {
      progress.log(
        `replaying ${options.replay} with workers in this process${config.worker.workflowBundle ? '' : ' (bundling the workflows first)'}…`,
      );
      Runtime.install({ logger: createWorkerLogger(config.worker.logLevel) });
      const connection = await connectWorker(config.temporal);
      try {
        results = await explained(() => replaySuite(suite, { ...common, client, connection, config, dir: options.replay! }));
      } finally {
        await connection.close();
      }
    } else {
      const taskQueue = clientTaskQueue();
      await requireWorker(client, namespace, taskQueue);
      results = await explained(() => runEval(suite, { ...common, client, taskQueue, model: options.model }));
    }
    const file = options.out ?? defaultResultsFile(suite.dir, results.label, results.startedAt);
    writeResults(results, file);
    emit(options, results, (value) => renderResults(value, file));
    if (results.totals.passed < results.totals.runs) process.exitCode = 1;
  });
}

export interface CompareCommandOptions extends OutputOptions {
  failOnRegression?: boolean;
}

/** `codeloop eval compare a.json b.json`: B against A, case by case. */
export async function compareEvalCommand(fileA: string, fileB: string, options: CompareCommandOptions): Promise<void> {
  const [a, b] = [fileA, fileB].map((file) => explained(() => readResults(file)));
  const comparison = compareResults(a, b, { a: fileA, b: fileB });
  emit(options, comparison, renderComparison);
  if (options.failOnRegression && comparison.cases.some((entry) => entry.change === 'broke')) process.exitCode = 1;
}

/**
 * A live eval needs a worker with a key on the queue; without one every task would wait for ever, so say what
 * to start instead. `TASK_QUEUE_TYPE_WORKFLOW` is 1.
 */
async function requireWorker(client: Client, namespace: string, taskQueue: string): Promise<void> {
  const response = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
  if (response.pollers?.length) return;
  throw new CliError(
    `no worker polls task queue ${taskQueue} in namespace ${namespace}: start one with \`npm start\` or \`npm run worker\` ` +
      '(with ANTHROPIC_API_KEY set, and CODELOOP_RECORD=<dir> to record the sessions), or replay recordings with --replay <dir>',
  );
}

/** The eval's own errors as one CLI line (exit 2 for a suite or results file that cannot be used). */
function explained<T>(body: () => T): T {
  const explain = (error: unknown): never => {
    if (error instanceof SuiteError || error instanceof ResultsFileError || error instanceof UnknownCaseError)
      throw new CliError(error.message, 2);
    if (error instanceof RecordingsError || error instanceof SandboxUnavailableError) throw new CliError(error.message);
    throw error;
  };
  try {
    const value = body();
    return (value instanceof Promise ? value.catch(explain) : value) as T;
  } catch (error) {
    return explain(error);
  }
}

function positive(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new CliError(`${flag} must be a whole number of at least 1; got ${JSON.stringify(value)}`, 2);
  return parsed;
}
