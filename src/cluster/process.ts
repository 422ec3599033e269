import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface SpawnedProcess {
  pid: number;
}

/**
 * Starts a long-running server process in a session of its own, its output appended to `logFile`. It holds nothing
 * of this process (no pipe, no handle), so it outlives `codeloop cluster up` and a Ctrl-C in the terminal reaches only
 * codeloop, which then stops the cluster in order.
 */
export function spawnDetached(command: string, args: string[], options: { env: NodeJS.ProcessEnv; logFile: string }): SpawnedProcess {
  const log = openSync(options.logFile, 'a');
  try {
    const child = spawn(command, args, { env: options.env, stdio: ['ignore', log, log], detached: true });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    child.unref();
    return { pid: child.pid };
  } finally {
    closeSync(log);
  }
}

/**
 * Whether `pid` is alive and is still the process we started: its command line contains every one of `marks`, so a
 * pid the system has since given to another program is not taken for ours. A zombie (exited, not yet reaped) is dead.
 */
export function isRunning(pid: number | undefined, marks: string[]): boolean {
  if (!pid) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return marks.every((mark) => commandLine.includes(mark));
  } catch {
    return false;
  }
}

/** Sends `signal` and waits until the process is gone; past `timeoutMs` it is killed outright. */
export async function stopProcess(pid: number, marks: string[], signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<void> {
  if (!isRunning(pid, marks)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid, marks)) {
    if (Date.now() > deadline && signal !== 'SIGKILL') {
      process.kill(pid, 'SIGKILL');
      signal = 'SIGKILL';
    }
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of a log, for an error that says why a process did not come up. */
export function tailOf(logFile: string, lines = 8): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
