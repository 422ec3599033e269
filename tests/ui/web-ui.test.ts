import path from 'node:path';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { agentTaskWorkflow } from '../../src/workflows/index.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { eventually } from '../support/polling.js';
import { browserAvailable, pageText, screenshots, startUiStack, type UiStack } from '../support/ui-stack.js';
import { makeWorkspace } from '../support/workspace.js';

/** The Web UI, in a real browser: Debian's chromium driven by playwright-core (CI requires it). */
let stack: UiStack;

beforeAll(async () => {
  if (browserAvailable) stack = await startUiStack({ taskQueue: 'ui', hostId: 'ui-host' });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

test.runIf(browserAvailable)(
  'filter blocked tasks, open one, read its activity summaries and current details',
  async () => {
    const { server, fake, connection, browser } = stack;
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
    for (const summary of ['openWorkspace • open workspace', 'readFile • read a.txt', 'callModel • model turn 2/30']) {
      await expect(page.getByText(summary).first().isVisible()).resolves.toBe(true);
    }
    await page.screenshot({ path: path.join(screenshots, 'web-ui-timeline.png'), fullPage: true });

    await page.getByText('User Metadata').first().click();
    // The UI renders current details (markdown) in a frame of its own; read the text of every frame.
    const allText = () => pageText(page);
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
