import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { createCodeloopWorkers, type CodeloopWorkers } from '../../src/create-workers.js';
import { startDevServer, type DevServer } from '../../src/server/dev-server.js';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn, startFakeMessagesApi, type FakeMessagesApi } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import { modelEnv } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';
import { eventually } from '../support/polling.js';

/**
 * The Web UI, in a real browser: Debian's chromium driven by playwright-core. CI installs chromium and sets
 * CODELOOP_REQUIRE_BROWSER=1, so there this test cannot be skipped.
 */
const CHROMIUM = process.env.CODELOOP_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const required = process.env.CODELOOP_REQUIRE_BROWSER === '1';
if (!available && !required) console.warn(`Web UI browser check skipped: no ${CHROMIUM} (apt-get install chromium)`);

const screenshots = path.resolve('.test-output/screenshots');
let server: DevServer;
let fake: FakeMessagesApi;
let nativeConnection: NativeConnection;
let connection: Connection;
let workers: CodeloopWorkers;
let running: Promise<void>;
let browser: Browser;

beforeAll(async () => {
  if (!available && !required) return;
  expect(available, `CODELOOP_REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`).toBe(true);
  server = await startDevServer({ port: await freePort(), uiPort: await freePort() });
  fake = await startFakeMessagesApi();
  nativeConnection = await NativeConnection.connect({ address: server.address });
  connection = await Connection.connect({ address: server.address });
  workers = await createCodeloopWorkers({
    connection: nativeConnection,
    taskQueue: 'ui',
    hostId: 'ui-host',
    workflowBundlePath: inject('workflowBundlePath'),
    env: modelEnv(fake),
  });
  running = workers.run();
  browser = await chromium.launch({
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
});

afterAll(async () => {
  await browser?.close();
  workers?.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await fake?.close();
  await server?.stop();
});

test.runIf(available || required)(
  'filter blocked tasks, open one, read its activity summaries and current details',
  async () => {
    fake.setResponder(
      byTask({
        'Deploy script': byTurn([
          { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
          { toolCalls: [{ name: 'raise_blocker', input: { question: 'Which region should we deploy to?' } }] },
        ]),
        'Release notes': () => ({ text: 'Release notes written.' }),
      }),
    );
    const client = new Client({ connection });
    const startTask = (workflowId: string, title: string) =>
      client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
        taskQueue: 'ui',
        workflowId,
        args: [{ title, description: title, workspace: makeWorkspace({ 'a.txt': 'a\n' }) }],
        staticSummary: title,
      });
    // A task that is not blocked: the filter must leave it out.
    const completedId = `ui-completed-${Date.now()}`;
    await (await startTask(completedId, 'Release notes')).result();
    const workflowId = `ui-task-${Date.now()}`;
    const handle = await startTask(workflowId, 'Deploy script');
    await waitForBlockers(handle);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
    const link = (id: string) => page.getByRole('link', { name: id });
    // Unfiltered, both are listed: so the completed task's absence below is the filter's doing.
    await page.goto(`${server.uiUrl}/namespaces/default/workflows`);
    await link(completedId).first().waitFor({ timeout: 30_000 });
    await link(workflowId).first().waitFor({ timeout: 30_000 });

    const query = encodeURIComponent('CodeloopStatus="blocked"');
    await page.goto(`${server.uiUrl}/namespaces/default/workflows?query=${query}`);
    await link(workflowId).first().waitFor({ timeout: 30_000 });
    await expect(link(completedId).count()).resolves.toBe(0);
    await page.screenshot({ path: path.join(screenshots, 'web-ui-blocked-filter.png') });

    await page.getByRole('link', { name: workflowId }).first().click();
    await page.getByText('callModel • model turn 1/30').first().waitFor({ timeout: 30_000 });
    for (const summary of [
      'bindWorkspace • bind workspace',
      'describeWorkspace • describe workspace on ui-host',
      'readFile • read a.txt',
      'callModel • model turn 2/30',
    ]) {
      await expect(page.getByText(summary).first().isVisible()).resolves.toBe(true);
    }
    await page.screenshot({ path: path.join(screenshots, 'web-ui-timeline.png'), fullPage: true });

    await page.getByText('User Metadata').first().click();
    // The UI renders current details (markdown) in a frame of its own; read the text of every frame.
    const allText = async () => (await Promise.all(page.frames().map((frame) => frame.innerText('body').catch(() => '')))).join('\n');
    let details: string;
    try {
      details = await eventually(
        allText,
        (text) => text.includes('Which region should we deploy to?'),
        'the Web UI never showed the blocker in current details',
        {
          timeoutMs: 30_000,
          intervalMs: 500,
        },
      );
    } finally {
      await page.screenshot({ path: path.join(screenshots, 'web-ui-current-details.png'), fullPage: true });
    }
    expect(details).toContain('Which region should we deploy to?');
    expect(details).toContain('Waiting for a human: blocker b1');
    expect(details).toContain(`npx codeloop blockers answer ${workflowId} --blocker b1`);
    expect(details).toContain('Status: blocked');
    expect(details).toContain('Deploy script');
    await page.close();
  },
  120_000,
);
