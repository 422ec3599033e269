import { spawn } from 'node:child_process';
import { stripAnsi } from '../../text/ansi.js';
import { commandEnv } from './command-env.js';
import { OutputCapture } from './output-capture.js';
import { DEFAULT_ACCESS, type CommandAccess, type Sandbox } from './sandbox.js';
import type { TaskNetwork } from '../environment/task-network.js';

export interface ProcessRequest {
  /** A shell command line, run by `bash -c`. */
  command: string;
  cwd: string;
  timeoutMs: number;
  /** The worker's environment: only the allow-listed names and those in `access.env` reach the command. */
  env: NodeJS.ProcessEnv;
  /** Where the command runs; the worker's sandbox, or none (`CODELOOP_SANDBOX=off`). */
  sandbox: Sandbox;
  access?: CommandAccess;
  /** Aborts the run (activity cancellation); every process the command started is killed. */
  signal?: AbortSignal;
  /** Called every few seconds while the process runs, so a long command keeps its activity alive. */
  onProgress?: () => void;
  /** The task's own network namespace to run in (see `runInTaskEnvironment`). */
  network?: TaskNetwork;
}

export interface ProcessResult {
  exitCode: number | undefined;
  /** The signal that ended the command, when one did (SIGXFSZ for a file over the size limit, say). */
  signal?: string;
  /** stdout and stderr, interleaved as they were written, capped (see `OutputCapture`). */
  output: string;
  /** Bytes the command wrote in all. */
  outputBytes: number;
  /** Bytes the cap left out of `output` (its middle); 0 when `output` is whole. */
  omittedBytes: number;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The seconds the command was allowed. */
  timeoutSeconds: number;
  /** `host:port` of each connection the task's proxy refused while it ran (see `runInTaskEnvironment`). */
  networkDenied?: string[];
}

const KILL_GRACE_MS = 2_000;
const PROGRESS_EVERY_MS = 5_000;
/** After the command ends, how long its pipes may stay open before they are closed from this side. */
const DRAIN_MS = 500;
/** What coreutils `timeout` exits with when the deadline passed (the unsandboxed path). */
const TIMEOUT_EXIT_CODE = 124;

/**
 * Runs a command and makes sure that when it returns, times out or is cancelled, nothing it started is left: in the
 * sandbox the PID namespace dies with its first process; unsandboxed, the process group is killed. The result is
 * known when the command's own process ends, even if something it started still holds its output open.
 */
export async function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  const started = Date.now();
  const timeoutSeconds = Math.max(1, Math.ceil(request.timeoutMs / 1000));
  const access = request.access ?? DEFAULT_ACCESS;
  const launch = request.sandbox.launch(request.command, { workspace: request.cwd, access, timeoutSeconds, network: request.network });
  const child = spawn(launch.file, launch.args, {
    cwd: request.cwd,
    env: { ...commandEnv(request.env, access, launch.home), ...request.network?.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const capture = new OutputCapture();
  child.stdout.on('data', (chunk: Buffer) => capture.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => capture.write(chunk));
  let timedOut = false;
  let cancelled = false;
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid !== undefined) signalGroup(child.pid, signal);
  };
  const stop = () => {
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
  };
  // Unsandboxed, coreutils `timeout` acts first and this timer is the backstop.
  const timer = setTimeout(
    () => {
      timedOut = true;
      stop();
    },
    timeoutSeconds * 1000 + (request.sandbox.mode === 'off' ? KILL_GRACE_MS : 0),
  );
  const onAbort = () => {
    cancelled = true;
    stop();
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  const progress = request.onProgress ? setInterval(request.onProgress, PROGRESS_EVERY_MS) : undefined;
  try {
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (ended.error) throw new Error(`could not start ${launch.file}: ${ended.error.message}`);
    // Anything the command left behind goes with it, and its pipes close with it.
    killGroup('SIGKILL');
    await drain(child.stdout, child.stderr);
    const exitCode = ended.code ?? undefined;
    timedOut ||= request.sandbox.mode === 'off' && exitCode === TIMEOUT_EXIT_CODE;
    return {
      exitCode,
      ...(ended.signal ? { signal: ended.signal } : {}),
      // Colour codes would reach the model and the parsers of test reports: they read plain text.
      output: stripAnsi(capture.text()),
      outputBytes: capture.totalBytes,
      omittedBytes: capture.omittedBytes,
      timedOut,
      cancelled,
      durationMs: Date.now() - started,
      timeoutSeconds,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    request.signal?.removeEventListener('abort', onAbort);
    // The group empties a moment after the command ends; removing it need not hold up the result.
    void launch.release();
  }
}

/** Waits for the pipes to close, at most `DRAIN_MS`, then closes them from this side. */
async function drain(...streams: NodeJS.ReadableStream[]): Promise<void> {
  const closed = streams.map(
    (stream) =>
      new Promise<void>((resolve) => {
        const readable = stream as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
        if (readable.readableEnded || readable.destroyed) return resolve();
        stream.once('end', () => resolve());
        stream.once('close', () => resolve());
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
  clearTimeout(timer);
  for (const stream of streams) (stream as unknown as { destroy(): void }).destroy();
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
