import { appendFileSync, chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode } from '@temporalio/worker';
import { build } from 'esbuild';
import { compileOptions } from '../../bin/compiled.js';
import { findExecutable } from '../../src/activities/process/find-executable.js';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import { workflowBundlerOptions } from '../../src/workflow-bundle.js';
import { freePort } from './free-port.js';
import { procCpuSeconds } from './proc-cpu.js';
import { cliBundleDir, npxShimDir, testOutputDir, workerBundlePath } from './test-output.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

/**
 * The run's dev server collects garbage when its heap has grown by 400% over what it kept (`GOGC`), not Go's 100%: the same
 * 300-task batch cost the server 8-12% fewer CPU-seconds (42.6 against 48.5 at 400, 45.6 against 49.7 at 800), for a
 * larger heap that a test run can spare. The server is otherwise as users run it.
 */
const DEV_SERVER_GOGC = '400';

/**
 * One real Temporal dev server for the whole run, one workflow bundle, and the CLI and the worker bundled. Bundling here also proves
 * that the workflow code imports nothing the sandbox forbids: a bad import fails the whole run at once.
 */
export default async function setup(project: TestProject) {
  mkdirSync(testOutputDir, { recursive: true });
  const [server, bundle] = await Promise.all([
    startDevServer({ port: await freePort(), stdio: 'ignore', env: { GOGC: DEV_SERVER_GOGC } }) as Promise<DevServer>,
    bundleWorkflowCode({ ...workflowBundlerOptions, logger: quietLogger }),
    buildEntryPoints(),
  ]);
  const bundlePath = path.join(testOutputDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  const serverCpuAtStart = procCpuSeconds(server.process.pid!, 'own');
  return async () => {
    const log = process.env.CODELOOP_TEST_CPU_LOG;
    if (log)
      appendFileSync(
        log,
        JSON.stringify({ file: 'temporal dev server', ownCpu: procCpuSeconds(server.process.pid!, 'own') - serverCpuAtStart }) + '\n',
      );
    await server.stop();
  };
}

/**
 * The CLI and the worker compiled once, for the tests that run them as processes (about 120 `codeloop` runs and 30
 * worker processes). Through tsx's loader, which compiles each module as it imports it, a worker took 5.5-6
 * CPU-seconds before it did anything; from this bundle, about 3. The CLI keeps each command's module a chunk of its
 * own, loaded only when that command runs, as in `main.ts`, and as `bin/codeloop.js` compiles it for users (see
 * `bin/compiled.js`); the README walkthroughs, the configuration tests and `follow` run `bin/codeloop.js` itself. The
 * entry points as users start them, through tsx, are still run: `src/worker.ts` by the sandbox test,
 * `src/server/start.ts` by `npm start`'s tests and the configuration test of its port.
 */
async function buildEntryPoints(): Promise<void> {
  rmSync(cliBundleDir, { recursive: true, force: true });
  // As `bin/codeloop.js` compiles the CLI for users, with esbuild's warnings shown.
  const common = { ...compileOptions, logLevel: 'warning' } as const;
  await Promise.all([
    build({ ...common, entryPoints: ['src/client/main.ts'], splitting: true, outdir: cliBundleDir }),
    build({ ...common, entryPoints: ['src/worker.ts'], outfile: workerBundlePath }),
  ]);
  writeFileSync(path.join(cliBundleDir, 'codeloop.mjs'), "const { main } = await import('./main.js');\nawait main();\n");
  writeNpxShim();
}

/**
 * The README's commands say `npx codeloop …`. npx itself costs about 2 CPU-seconds a run before the CLI starts (it
 * loads npm and resolves the package): this `npx` runs the CLI bundle straight away, and hands anything else to the
 * real npx. The README tests that pass `realNpx` run the real one, so `npx codeloop` is still shown to reach this
 * checkout.
 */
function writeNpxShim(): void {
  const realNpx = findExecutable('npx');
  if (!realNpx) throw new Error('npx is not on PATH: the README commands need it');
  rmSync(npxShimDir, { recursive: true, force: true });
  mkdirSync(npxShimDir, { recursive: true });
  const shim = path.join(npxShimDir, 'npx');
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    shim,
    [
      '#!/bin/sh',
      `if [ "$1" = codeloop ]; then shift; exec ${quote(process.execPath)} ${quote(path.join(cliBundleDir, 'codeloop.mjs'))} "$@"; fi`,
      `exec ${quote(realNpx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
}

const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn(message: string) {
    console.warn(message);
  },
  error(message: string) {
    console.error(message);
  },
};
