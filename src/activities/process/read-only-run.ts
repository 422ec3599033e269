import { spawn } from 'node:child_process';
import { commandEnv } from './command-env.js';
import { DEFAULT_ACCESS, type Sandbox } from './sandbox.js';

export interface ReadOnlyRequest {
  /** The program and its arguments, each passed to it as written (quoted for the sandbox's shell here). */
  argv: string[];
  /** The workspace: the working directory, bound read-only inside the sandbox. */
  workspace: string;
  /**
   * A file the program reads: its content, and the word in `argv` that stands for its path. It is written to a
   * temporary file where the program runs (the sandbox's private /tmp) and removed afterwards: a path such as
   * /dev/stdin cannot stand in, since the worker's end of a child's standard input is a socket, which cannot be
   * opened by path.
   */
  inputFile?: { content: string; placeholder: string };
  timeoutMs: number;
  /** Standard output kept; past this the program is stopped and `truncated` set. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Called every few seconds while the program runs, so the activity keeps heartbeating. */
  onProgress?: () => void;
}

export interface ReadOnlyResult {
  exitCode: number | undefined;
  stdout: Buffer;
  /** The first few KB of standard error: where a program says why it refused. */
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
}

const STDERR_BYTES = 8_192;
const PROGRESS_EVERY_MS = 5_000;

/**
 * Runs a program that only reads the workspace (ripgrep, for `search_codebase`), through the worker's sandbox with
 * the workspace bound read-only: whatever the program is fooled into (a symlink, a path that leads out), it sees
 * only what a sandboxed command sees and can change nothing. With `CODELOOP_SANDBOX=off` it runs on the host under
 * `timeout`. Unlike `runProcess`, standard output is kept whole up to `maxOutputBytes` and apart from standard error:
 * the caller parses it.
 */
export async function runReadOnly(sandbox: Sandbox, request: ReadOnlyRequest): Promise<ReadOnlyResult> {
  const timeoutSeconds = Math.max(1, Math.ceil(request.timeoutMs / 1000));
  const command = shellCommand(request.argv, request.inputFile?.placeholder);
  const launch = sandbox.launch(command, { workspace: request.workspace, access: DEFAULT_ACCESS, timeoutSeconds, readOnly: true });
  const child = spawn(launch.file, launch.args, {
    cwd: request.workspace,
    env: commandEnv(process.env, DEFAULT_ACCESS, launch.home),
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  let outputBytes = 0;
  let stderr = '';
  let timedOut = false;
  let truncated = false;
  const stop = () => {
    if (child.pid !== undefined) killGroup(child.pid);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    if (truncated) return;
    const kept = chunk.subarray(0, request.maxOutputBytes - outputBytes);
    chunks.push(kept);
    outputBytes += kept.length;
    if (kept.length < chunk.length) {
      truncated = true;
      stop();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < STDERR_BYTES) stderr += chunk.toString('utf8');
  });
  // A program that exits before reading its input closes the pipe: that is its business, not an error here.
  child.stdin.on('error', () => undefined);
  child.stdin.end(request.inputFile?.content ?? '');
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);
  const onAbort = () => stop();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  const progress = request.onProgress ? setInterval(request.onProgress, PROGRESS_EVERY_MS) : undefined;
  try {
    const exitCode = await new Promise<number | undefined>((resolve, reject) => {
      child.once('error', (error) => reject(new Error(`could not start ${launch.file}: ${error.message}`)));
      child.once('close', (code) => resolve(code ?? undefined));
    });
    request.signal?.throwIfAborted();
    return { exitCode, stdout: Buffer.concat(chunks), stderr: stderr.slice(0, STDERR_BYTES), timedOut, truncated };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    request.signal?.removeEventListener('abort', onAbort);
    stop();
    void launch.release();
  }
}

/** `argv` for `bash -c`; with an input file, first saved from standard input, and `placeholder` replaced by its path. */
function shellCommand(argv: string[], placeholder?: string): string {
  if (placeholder === undefined) return `exec ${argv.map(quote).join(' ')}`;
  const words = argv.map((word) => (word === placeholder ? '"$input"' : quote(word))).join(' ');
  return `input=$(mktemp) && cat > "$input" || exit 125; ${words}; status=$?; rm -f "$input"; exit $status`;
}

/** One word for `bash -c`, single-quoted so the shell takes it literally. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
