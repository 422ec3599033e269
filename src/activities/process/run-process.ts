import { execa } from 'execa';

export interface ProcessRequest {
  /** A shell command line, run by `bash -c`. */
  command: string;
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Aborts the run (activity cancellation); the whole process group is killed. */
  signal?: AbortSignal;
  /** Called every few seconds while the process runs, so a long command keeps its activity alive. */
  onProgress?: () => void;
}

export interface ProcessResult {
  exitCode: number | undefined;
  /** stdout and stderr, interleaved as they were written. */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

const KILL_GRACE_MS = 2_000;
const PROGRESS_EVERY_MS = 5_000;
/** What coreutils `timeout` exits with when the deadline passed. */
const TIMEOUT_EXIT_CODE = 124;

/**
 * Runs a command in its own process group and kills the whole group on timeout or cancel, so a test runner's
 * grandchildren (servers, watchers) do not outlive the activity.
 */
export async function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  const started = Date.now();
  // coreutils `timeout` enforces the deadline even if this worker dies mid-command.
  const seconds = Math.max(1, Math.ceil(request.timeoutMs / 1000));
  const child = execa('timeout', [`--kill-after=${KILL_GRACE_MS / 1000}`, `${seconds}`, 'bash', '-c', request.command], {
    cwd: request.cwd,
    env: request.env,
    extendEnv: false,
    detached: true,
    stdin: 'ignore',
    all: true,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 50_000_000,
  });
  let timedOut = false;
  let cancelled = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    signalGroup(child.pid, 'SIGTERM');
    setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, seconds * 1000 + KILL_GRACE_MS);
  const onAbort = () => {
    cancelled = true;
    killGroup();
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  const progress = request.onProgress ? setInterval(request.onProgress, PROGRESS_EVERY_MS) : undefined;
  try {
    const result = await child;
    timedOut ||= result.exitCode === TIMEOUT_EXIT_CODE;
    return {
      exitCode: result.exitCode,
      output: String(result.all ?? ''),
      timedOut,
      cancelled,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    request.signal?.removeEventListener('abort', onAbort);
    // A backgrounded grandchild may still hold the group; it goes with the command that started it.
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
