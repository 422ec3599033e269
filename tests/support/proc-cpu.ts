import { readFileSync } from 'node:fs';

/**
 * CPU-seconds of a process from `/proc/<pid>/stat` (stat(5)): its own (utime + stime) or its ended children's
 * (cutime + cstime, the children it waited for and theirs). Zero once the process is gone.
 */
export function procCpuSeconds(pid: number | 'self', which: 'own' | 'children'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields from the third on, after the command name in parentheses: utime is field 14 of stat(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const first = which === 'own' ? 11 : 13;
    return (Number(fields[first]) + Number(fields[first + 1])) / 100;
  } catch {
    return 0;
  }
}
