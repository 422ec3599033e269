import './quiet-runtime.js';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { createCodeloopWorkers, type CodeloopWorkers } from '../../src/create-workers.js';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import { startFakeMessagesApi, type FakeMessagesApi } from './fake-messages-api.js';
import { freePort } from './free-port.js';
import { modelEnv } from './temporal.js';

const CHROMIUM = process.env.CODELOOP_CHROMIUM ?? '/usr/bin/chromium';
const required = process.env.CODELOOP_REQUIRE_BROWSER === '1';

/** Whether the Web UI checks run here: Debian's chromium is installed, or CI requires it (then a missing one fails). */
export const browserAvailable = existsSync(CHROMIUM) || required;
if (!browserAvailable) console.warn(`Web UI browser checks skipped: no ${CHROMIUM} (apt-get install chromium)`);

export const screenshots = path.resolve('.test-output/screenshots');

export interface UiStack {
  server: DevServer;
  fake: FakeMessagesApi;
  connection: Connection;
  workers: CodeloopWorkers;
  browser: Browser;
  stop(): Promise<void>;
}

/**
 * A dev server with its Web UI on a port of its own, codeloop's workers on `taskQueue` against it, and Debian's
 * chromium driven by playwright-core.
 */
export async function startUiStack(options: {
  taskQueue: string;
  hostId: string;
  env?: NodeJS.ProcessEnv;
  uiPort?: number;
  uiCodecEndpoint?: string;
}): Promise<UiStack> {
  expect(existsSync(CHROMIUM), `CODELOOP_REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`).toBe(true);
  const server = await startDevServer({
    port: await freePort(),
    uiPort: options.uiPort ?? (await freePort()),
    uiCodecEndpoint: options.uiCodecEndpoint,
  });
  const fake = await startFakeMessagesApi();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const workers = await createCodeloopWorkers({
    connection: nativeConnection,
    taskQueue: options.taskQueue,
    hostId: options.hostId,
    workflowBundlePath: inject('workflowBundlePath'),
    env: modelEnv(fake, options.env),
  });
  const running = workers.run();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(screenshots, { recursive: true });
  return {
    server,
    fake,
    connection,
    workers,
    browser,
    async stop() {
      await browser.close();
      workers.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await fake.close();
      await server.stop();
    },
  };
}

/** The text of the page and of every frame in it (the UI renders markdown in frames of its own). */
export const pageText = async (page: Page) =>
  (await Promise.all(page.frames().map((frame) => frame.innerText('body').catch(() => '')))).join('\n');
