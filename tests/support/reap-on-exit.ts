import type { ChildProcess } from 'node:child_process';

/** Processes a test started and has not seen end, each with whether it leads a process group of its own. */
const running = new Map<ChildProcess, boolean>();

/**
 * Kills `child` (with its process group, when it was started `detached`) if it is still running when this process
 * exits: a test that fails before it stops a worker or `npm start` leaves nothing behind to load the machine or hold a
 * port. Free of vitest, like the spawn helpers that use it.
 */
export function reapOnExit<T extends ChildProcess>(child: T, { group = false }: { group?: boolean } = {}): T {
  if (running.size === 0) process.once('exit', () => [...running.keys()].forEach(killNow));
  running.set(child, group);
  child.once('exit', () => running.delete(child));
  return child;
}

/** SIGKILL for a child `reapOnExit` holds, now: its whole process group if it leads one. Gone already is fine. */
export function killNow(child: ChildProcess): void {
  try {
    if (running.get(child)) process.kill(-child.pid!, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // Gone already.
  }
}
