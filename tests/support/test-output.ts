import path from 'node:path';

/** What the global setup builds for the run: the workflow bundle, and the CLI bundle `runCli` runs. */
export const testOutputDir = path.resolve('.test-output');

/** The CLI compiled once for the run; `runCli` runs `codeloop.mjs` in it (see `buildEntryPoints` in the global setup). */
export const cliBundleDir = path.join(testOutputDir, 'cli');

/** `src/worker.ts` compiled once for the run; `spawnWorker` runs it. */
export const workerBundlePath = path.join(testOutputDir, 'worker', 'worker.js');

/** An `npx` that runs `npx codeloop …` from the CLI bundle; `runShell` puts it first on the README commands' PATH. */
export const npxShimDir = path.join(testOutputDir, 'npx');
