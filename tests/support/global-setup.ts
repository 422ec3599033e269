import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import { freePort } from './free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

export const testOutputDir = path.resolve('.test-output');

/**
 * One real Temporal dev server for the whole run, and one workflow bundle. Bundling here also proves that the
 * workflow code imports nothing the sandbox forbids: a bad import fails the whole run at once.
 */
export default async function setup(project: TestProject) {
  mkdirSync(testOutputDir, { recursive: true });
  const [server, bundle] = await Promise.all([
    startDevServer({ port: await freePort(), stdio: 'ignore' }) as Promise<DevServer>,
    bundleWorkflowCode({ workflowsPath: path.resolve('src/workflows/index.ts'), logger: quietLogger }),
  ]);
  const bundlePath = path.join(testOutputDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  return async () => server.stop();
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
