import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A group of processes that cannot grow past its limit: a fork bomb ends in EAGAIN, the worker lives on. */
export interface ProcessLimit {
  /** Where the groups live, for the start-up line. */
  readonly location: string;
  /** `argv` started as the first member of a new group; `release()` removes the group once the command is over. */
  enter(argv: string[]): { argv: string[]; release(): Promise<void> };
}

/**
 * A process-count limit from the kernel's `pids` cgroup controller (v1 or v2), or `undefined` where the worker may
 * not create cgroups. `RLIMIT_NPROC` is no substitute: it counts per user, and the kernel exempts root from it.
 */
export function createProcessLimit(maxProcesses: number): ProcessLimit | undefined {
  const base = pidsHierarchy();
  if (!base) return undefined;
  try {
    mkdirSync(base.path, { recursive: true });
    if (base.version === 2) writeFileSync(path.join(base.path, 'cgroup.subtree_control'), '+pids');
    removeStaleGroups(base.path);
  } catch {
    return undefined;
  }
  return {
    location: base.path,
    enter(argv) {
      const group = path.join(base.path, `cmd-${process.pid}-${randomBytes(4).toString('hex')}`);
      mkdirSync(group);
      writeFileSync(path.join(group, 'pids.max'), String(maxProcesses));
      // The shell joins the group before it becomes the command, so every process the command starts is counted.
      const join = 'echo $$ > "$1" || exit 125; shift; exec "$@"';
      return { argv: ['/bin/sh', '-c', join, 'sh', path.join(group, 'cgroup.procs'), ...argv], release: () => removeGroup(group) };
    },
  };
}

/** codeloop's own directory in a writable `pids` hierarchy: cgroup v1's `pids` mount, or cgroup v2 with `pids`. */
function pidsHierarchy(): { path: string; version: 1 | 2 } | undefined {
  let mounts: string[];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n');
  } catch {
    return undefined;
  }
  for (const line of mounts) {
    const [, mountPoint, type, options = ''] = line.split(' ');
    if (type === 'cgroup' && options.split(',').includes('pids'))
      return { path: path.join(mountPoint, ownGroup('pids'), 'codeloop'), version: 1 };
    if (type === 'cgroup2' && controllers(mountPoint).includes('pids')) return { path: path.join(mountPoint, 'codeloop'), version: 2 };
  }
  return undefined;
}

function ownGroup(controller: string): string {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((entry) => entry.split(':')[1]?.split(',').includes(controller));
  return line?.split(':')[2] ?? '/';
}

function controllers(mountPoint: string): string[] {
  try {
    return readFileSync(path.join(mountPoint, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch {
    return [];
  }
}

/**
 * A worker that died mid-command leaves its empty groups behind. Only a dead worker's groups go: a live worker's
 * group is empty for a moment between its creation and its command joining it, and removing it then fails that
 * command (two workers on one host, or one starting while another runs).
 */
function removeStaleGroups(base: string) {
  for (const name of readdirSync(base)) {
    const owner = /^cmd-(\d+)-/.exec(name)?.[1];
    if (!owner || isAlive(Number(owner))) continue;
    try {
      rmdirSync(path.join(base, name));
    } catch {
      // The kernel refuses to remove a group with processes still in it.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The group empties as the kernel reaps the sandbox's processes, a moment after the command ends. */
async function removeGroup(group: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      rmdirSync(group);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
