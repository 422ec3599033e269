import { execFile } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { checkTypes } from '../src/activities/verification/type-check.js';
import { generateProject } from './lint-per-edit.js';
import { stamp, table, writeSection, type BenchEnv } from './harness.js';

const run = promisify(execFile);
const MODULES = 1_200;

/**
 * A cold type check of a large TypeScript project while another task runs commands, on the worker's own process:
 * the check runs in a child process of its own, so the worker's event loop (which answers heartbeats and runs every
 * other activity) must stay free. Measured: the check's time, the loop's delay while it ran, and the commands run
 * meanwhile (`node -e 1`, one after the other, as another task's would).
 */
export async function benchTypeCheckLoad(_env: BenchEnv): Promise<void> {
  const workspace = generateProject(MODULES);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let checking = true;
  const commands: number[] = [];
  const otherTask = (async () => {
    while (checking) {
      const at = performance.now();
      await run(process.execPath, ['-e', '1']);
      commands.push(performance.now() - at);
    }
  })();
  loop.enable();
  const started = performance.now();
  // Past its limit the checker gives up (the edit is told so); that is a result here too.
  const outcome = await checkTypes(workspace, 'src/m7.ts', async () => undefined).then(
    (result): string => `${result.introduced.length} new diagnostic(s), ${result.preExisting} there before`,
    (error: Error) => `not run: ${error.message}`,
  );
  const checkMs = performance.now() - started;
  loop.disable();
  checking = false;
  await otherTask;
  const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e6);
  writeSection(
    '67-type-check-load',
    `## A cold type check beside another task's commands

\`npm run bench -- type-check-load\`, ${stamp()}. A generated project of ${MODULES.toLocaleString('en-US')} TypeScript
modules; the first type check of one edited file (cold: the checker builds the whole program), in its own child
process with a 2 GB heap and a 120 s limit, while the same process runs \`node -e 1\` commands one after the other. The
event loop's delay is what a heartbeat would wait; an activity's heartbeat times out after tens of seconds.

${table(
  ['cold check', 'its result', 'event loop delay p50 / p99 / max', 'commands meanwhile'],
  [
    [
      `${(checkMs / 1000).toFixed(1)} s`,
      outcome,
      `${ms(loop.percentile(50))} / ${ms(loop.percentile(99))} / ${ms(loop.max)} ms`,
      `${commands.length}, ${Math.round(commands.reduce((a, b) => a + b, 0) / Math.max(1, commands.length))} ms each on average`,
    ],
  ],
)}
`,
  );
}
