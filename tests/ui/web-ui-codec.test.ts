import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCodecServer, type CodecServer } from '../../src/payloads/codec-server.js';
import { payloadCodecsFor, type PayloadCodecs } from '../../src/payloads/codecs.js';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { byTurn } from '../support/fake-messages-api.js';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/polling.js';
import { browserAvailable, pageText, screenshots, startUiStack, type UiStack } from '../support/ui-stack.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * The Web UI of a server whose payloads are stored and encrypted: with the codec server it was started with, a
 * task's input and its tool results read as written; with that codec server gone, the same page shows only encoded
 * data. Debian's chromium, as in the other Web UI check (CI requires it).
 */
const settings = {
  CODELOOP_PAYLOAD_STORE: `file://${mkdtempSync(path.join(os.tmpdir(), 'codeloop-ui-store-'))}`,
  CODELOOP_PAYLOAD_KEYS: `ui:${randomBytes(32).toString('base64')}`,
};
const marker = `ui-marker-${randomBytes(6).toString('hex')}`;

let payloads: PayloadCodecs;
let codec: CodecServer;
let stack: UiStack;

beforeAll(async () => {
  if (!browserAvailable) return;
  payloads = payloadCodecsFor(loadConfig(settings).payloads, settings);
  const uiPort = await freePort();
  codec = await startCodecServer({
    codecs: payloads.codecs,
    port: 0,
    origins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`],
  });
  stack = await startUiStack({ taskQueue: 'ui-codec', hostId: 'ui-codec-host', env: settings, uiPort, uiCodecEndpoint: codec.url });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await codec?.close();
  await payloads?.close();
});

test.runIf(browserAvailable)(
  "with the codec server, the Web UI shows a task's input and tool result as written; without it, only encoded data",
  async () => {
    const { server, fake, connection, browser } = stack;
    fake.setResponder(byTurn([{ toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] }, { text: 'read it' }]));
    const client = new Client({ connection, dataConverter: payloads.dataConverter });
    const workflowId = `ui-codec-${Date.now()}`;
    const handle = await client.workflow.start<typeof agentTaskWorkflow>('agentTaskWorkflow', {
      taskQueue: 'ui-codec',
      workflowId,
      args: [
        {
          title: 'Read notes',
          description: `Read the notes about ${marker}`,
          workspace: makeWorkspace({ 'notes.txt': `file says ${marker}-file\n` }),
        },
      ],
    });

    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    await handle.result();
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}/${handle.firstExecutionRunId}/history`);
    /** The page's text once it shows `needle`, polled up to 30 s; `screenshot` names the picture taken either way. */
    const pageShowing = (needle: string, never: string, screenshot?: string) =>
      eventually(
        () => pageText(page),
        (text) => text.includes(needle),
        never,
        { timeoutMs: 30_000, intervalMs: 500 },
      ).finally(() => screenshot && page.screenshot({ path: path.join(screenshots, screenshot), fullPage: true }));
    const decoded = await pageShowing(`Read the notes about ${marker}`, 'the Web UI never showed the decoded input');
    expect(decoded).toContain(`Read the notes about ${marker}`);
    // The event table cuts a result after its first 60 characters or so: the file's line shows, the rest not.
    const withResult = await pageShowing(
      '1 | file says ui-marker-',
      "the Web UI never showed the tool's decoded result",
      'web-ui-codec-decoded.png',
    );
    expect(withResult).toContain('"content":"notes.txt (1 lines):');

    await codec.close();
    await page.reload();
    // The page says so once its request to the closed codec server has failed: a few seconds, more on a busy machine.
    const encoded = await pageShowing(
      'Codec Server could not connect',
      'the Web UI never said that the codec server could not be reached',
      'web-ui-codec-encoded.png',
    );
    expect(encoded).not.toContain(marker);
    expect(encoded).not.toContain('file says');
    expect(encoded).toContain('Codec Server could not connect');
    expect(encoded).not.toContain('Read the notes about');
    await page.close();
  },
  120_000,
);
