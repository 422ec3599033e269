import { appendFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { procCpuSeconds } from './proc-cpu.js';

/**
 * Each test file's own CPU time, for finding what `npm test` spends (`CODELOOP_TEST_CPU_LOG=<file> npx vitest run`).
 * The four test processes run file after file, so the process's CPU time before and after a file is that file's: its
 * own work and its in-process workers (`process.cpuUsage`), and its child processes once they ended (`/proc`'s
 * cutime + cstime). One JSON line per file is appended to the log.
 */
const log = process.env.CODELOOP_TEST_CPU_LOG;

if (log) {
  // Setup files run again before each test file is imported: its imports count as its own.
  const start = process.cpuUsage();
  const startChildren = procCpuSeconds('self', 'children');
  const startWall = Date.now();
  afterAll(() => {
    const own = process.cpuUsage(start);
    const file = expect.getState().testPath ?? 'unknown';
    const line = {
      file: file.slice(file.indexOf('/tests/') + 1),
      pid: process.pid,
      ownCpu: (own.user + own.system) / 1e6,
      childrenCpu: procCpuSeconds('self', 'children') - startChildren,
      wall: (Date.now() - startWall) / 1000,
    };
    appendFileSync(log, JSON.stringify(line) + '\n');
  });
}
