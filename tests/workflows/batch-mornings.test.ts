import { execFileSync } from 'node:child_process';
import { WorkflowFailedError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMorningActivities } from '../../src/activities/mornings/index.js';
import { buildReport } from '../../src/client/report.js';
import { parseBatchInput } from '../../src/shared/batch-input.js';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { PublishedBranch } from '../../src/shared/mornings.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import type { batchConductorWorkflow } from '../../src/workflows/index.js';
import { waitForBatch } from '../support/batch.js';
import { byTask, byTurn, type Responder } from '../support/fake-messages-api.js';
import { startFakeGitHubApi, type FakeGitHubApi } from '../support/fake-github-api.js';
import { makeGitRemote } from '../support/git-remote.js';
import { startMailReceiver, startWebhookReceiver, type MailReceiver, type WebhookReceiver } from '../support/morning-receivers.js';
import { eventually } from '../support/polling.js';
import { recordHistory } from '../support/record-history.js';
import { scheduledRuns } from '../support/schedules.js';
import { useTaskHarness } from '../support/task-harness.js';
import { modelEnv, startWorkers, uniqueName } from '../support/temporal.js';
import { spawnWorker } from '../support/worker-process.js';
import { fileOnBranch } from '../support/workspace.js';

let github: FakeGitHubApi;
let mail: MailReceiver;
let hooks: WebhookReceiver;
const UI = 'http://ui.example:8233';

beforeAll(async () => {
  github = await startFakeGitHubApi();
  mail = await startMailReceiver();
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await github?.close();
  await mail?.close();
  await hooks?.close();
});

/** What a worker that publishes has: the forge's token and address, SMTP, the Web UI's address. */
const publishingEnv = (): NodeJS.ProcessEnv => ({
  GITHUB_TOKEN: github.token,
  GITHUB_API_URL: github.url,
  CODELOOP_SMTP_URL: mail.url,
  CODELOOP_UI_URL: UI,
});

const harness = useTaskHarness('batch-mornings', publishingEnv);

const startBatch = (input: Record<string, unknown>) =>
  harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
    args: [input],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('batch-mornings'),
  });

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });
const creates = (file: string): Responder =>
  byTurn([{ toolCalls: [{ name: 'create_file', input: { path: file, content: `${file}\n` } }] }, { text: `created ${file}` }]);

/** A mail's text as sent: quoted-printable soft breaks joined and escapes decoded. */
const mailText = (raw: string) =>
  Buffer.from(
    raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

describe('a fresh base', () => {
  test('a batch with a remote builds on what the team pushed after the worker checked out', async () => {
    const remote = makeGitRemote();
    remote.push('tonight.txt', 'pushed after the checkout\n');
    harness.fake.setResponder(byTask({ 'Task a': creates('a.txt') }));
    const handle = await startBatch({ workspace: remote.checkout, remote: 'origin', baseBranch: 'main', tasks: [task('a')] });
    const result = (await handle.result()) as BatchResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(remote.checkout, result.integrationBranch!, 'tonight.txt')).toBe('pushed after the checkout\n');
    expect(fileOnBranch(remote.checkout, result.integrationBranch!, 'a.txt')).toBe('a.txt\n');
    // The worker's own checkout was not moved.
    expect(fileOnBranch(remote.checkout, 'main', 'tonight.txt')).toBeUndefined();
    await recordHistory('batch-fresh-base', handle);
  }, 120_000);

  test('a single task in branch mode with a remote cuts its branch from what the remote has now', async () => {
    const remote = makeGitRemote();
    remote.push('tonight.txt', 'pushed after the checkout\n');
    harness.fake.setResponder(creates('t.txt'));
    const handle = await harness.start({ title: 'Task t', description: 'do t', workspace: remote.checkout, remote: 'origin' });
    const result = (await handle.result()) as TaskResult;
    expect(result.git?.branch).toMatch(/^codeloop\/task\//);
    expect(fileOnBranch(remote.checkout, result.git!.branch, 'tonight.txt')).toBe('pushed after the checkout\n');
    expect(fileOnBranch(remote.checkout, result.git!.branch, 't.txt')).toBe('t.txt\n');
    expect(fileOnBranch(remote.checkout, 'main', 'tonight.txt')).toBeUndefined();
  }, 120_000);

  test('a fetch that fails asks one question naming the remote and the error; stop ends the batch', async () => {
    const remote = makeGitRemote();
    const handle = await startBatch({ workspace: remote.checkout, remote: 'origin', baseBranch: 'gone', tasks: [task('a')] });
    const state = await waitForBatch(handle, (current) => current.openBlockers.length > 0);
    expect(state.status).toBe('blocked');
    expect(state.openBlockers).toHaveLength(1);
    expect(state.openBlockers[0]).toMatchObject({ origin: 'remote', options: ['retry', 'stop'] });
    expect(state.openBlockers[0].question).toContain('remote origin');
    expect(state.openBlockers[0].question).toContain("couldn't find remote ref refs/heads/gone");
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toContain('could not fetch from remote origin');
  }, 120_000);
});

describe('the night ends at a pull request and a message', () => {
  test('a scheduled batch of three tasks: one pull request with the described body, updated by a second publish; one webhook, one Slack post and one mail with the figures of codeloop report', async () => {
    const remote = makeGitRemote();
    remote.push('tonight.txt', 'pushed after the checkout\n');
    github.bareRepo = remote.bare;
    harness.fake.setResponder(byTask({ 'Task a': creates('a.txt'), 'Task b': creates('b.txt'), 'Task c': creates('c.txt') }));
    const scheduleId = uniqueName('nightly');
    const input = parseBatchInput({
      workspace: remote.checkout,
      remote: 'origin',
      baseBranch: 'main',
      tasks: [task('a'), task('b'), task('c', ['a', 'b'])],
      publish: { remote: 'origin', repository: 'acme/app', draft: true },
      notify: [
        { kind: 'slack', url: `${hooks.url}/slack/${scheduleId}` },
        { kind: 'webhook', url: `${hooks.url}/hook/${scheduleId}` },
        { kind: 'email', to: ['team@example.com'] },
        // Nothing listens here: the delivery is retried, then shown in the result; the batch still completes.
        { kind: 'webhook', url: 'http://127.0.0.1:9/unreachable' },
      ],
      deadline: '1h',
    });
    const schedule = await harness.temporal.client.schedule.create({
      scheduleId,
      spec: { cronExpressions: ['0 3 * * *'] },
      action: {
        type: 'startWorkflow',
        workflowType: 'batchConductorWorkflow',
        args: [input],
        taskQueue: harness.taskQueue,
        workflowId: scheduleId,
      },
    });
    try {
      await schedule.trigger();
      const [runId] = await eventually(
        () => scheduledRuns(harness.temporal.client, scheduleId),
        (ids) => ids.length === 1,
        'the schedule started no batch',
      );
      const handle = harness.temporal.client.workflow.getHandle(runId);
      const result = (await handle.result()) as BatchResult;
      expect(result.status).toBe('completed');

      // One pull request, from the pushed integration branch onto main, its body as described.
      expect(github.problems).toEqual([]);
      expect(github.pulls).toHaveLength(1);
      const pull = github.pulls[0];
      expect(pull).toMatchObject({ owner: 'acme', repo: 'app', head: result.integrationBranch, base: 'main', draft: true, state: 'open' });
      expect(result.published).toEqual([
        { branch: result.integrationBranch, remote: 'origin', pullRequest: { number: 1, url: pull.html_url, created: true } },
      ]);
      const local = execFileSync('git', ['rev-parse', result.integrationBranch!], { cwd: remote.checkout }).toString().trim();
      expect(remote.head(result.integrationBranch!)).toBe(local);
      expect(fileOnBranch(remote.bare, result.integrationBranch!, 'tonight.txt')).toBe('pushed after the checkout\n');
      for (const id of ['a', 'b', 'c']) {
        expect(pull.body).toContain(`- ${id} (Task ${id}): completed`);
        expect(pull.body).toContain(`created ${id}.txt`);
        expect(fileOnBranch(remote.bare, result.integrationBranch!, `${id}.txt`)).toBe(`${id}.txt\n`);
      }
      // No gates in this repository: each task is flagged unverified, with why.
      expect(pull.body).toContain('3/3 tasks completed (3 unverified), 0 failed, 0 skipped');
      expect(pull.body).toContain('- a (Task a): completed [UNVERIFIED]');
      expect(pull.body).toContain('not verified: no gates: nothing checked the work');
      expect(pull.body).toContain(' a.txt | 1 +\n b.txt | 1 +\n c.txt | 1 +\n 3 files changed, 3 insertions(+)');
      expect(pull.body).not.toContain('tonight.txt');
      expect(pull.body).toContain('## Open questions\n\nNone.');
      expect(pull.body).toContain(`Cost: $${result.totals.costUsd.toFixed(2)}`);
      expect(pull.body).toContain(`${UI}/namespaces/default/workflows/${encodeURIComponent(runId)}`);

      // The morning message: once per target, with the figures codeloop report gives for this batch.
      const report = await buildReport(harness.temporal.client, 3_600_000, harness.taskQueue);
      const row = report.rows.find((candidate) => candidate.workflowId === runId)!;
      expect(row.summary).toBe('3/3 tasks completed (3 unverified), 0 failed, 0 skipped');
      const slack = hooks.posts.filter((post) => post.path === `/slack/${scheduleId}`);
      const webhook = hooks.posts.filter((post) => post.path === `/hook/${scheduleId}`);
      const mails = mail.mails.filter((candidate) => mailText(candidate.raw).includes(result.batchId));
      expect([slack.length, webhook.length, mails.length]).toEqual([1, 1, 1]);
      // Each delivery carries a key of its own that a retry of it would repeat: the run and the activity.
      const keys = [slack[0].key, webhook[0].key, /^Message-ID:\s*<(.+)@codeloop>/im.exec(mails[0].raw.replace(/\r?\n[ \t]+/g, ' '))?.[1]];
      const ofThisRun = new RegExp(`^${runId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f-]{36}\\.\\d+$`);
      for (const key of keys) expect(key).toMatch(ofThisRun);
      expect(new Set(keys).size).toBe(3);
      expect(slack[0].body.text).toContain(row.summary);
      expect(slack[0].body.text).toContain(`cost $${row.costUsd.toFixed(2)}`);
      expect(slack[0].body.text).toContain(`Pull request: ${pull.html_url}`);
      expect(webhook[0].body).toMatchObject({ batchId: result.batchId, status: 'completed', summary: row.summary, costUsd: row.costUsd });
      expect(webhook[0].body.pullRequests).toEqual([pull.html_url]);
      expect(mails[0].to).toEqual(['team@example.com']);
      expect(mailText(mails[0].raw)).toContain(row.summary!);
      expect(mailText(mails[0].raw)).toContain(`cost $${row.costUsd.toFixed(2)}`);
      expect(result.notifications).toEqual([
        { target: `slack 127.0.0.1:${new URL(hooks.url).port}`, ok: true },
        { target: `webhook 127.0.0.1:${new URL(hooks.url).port}`, ok: true },
        { target: 'email to team@example.com', ok: true },
        { target: 'webhook 127.0.0.1:9', ok: false, error: expect.stringContaining('fetch failed') },
      ]);
      await recordHistory('batch-published-notified', handle);

      // A second run of the publish step updates the same pull request.
      const activities = createMorningActivities({ workerEnv: () => ({ ...process.env, ...publishingEnv() }) });
      const again: PublishedBranch = await new MockActivityEnvironment().run(activities.publishBranch, {
        repo: remote.checkout,
        branch: result.integrationBranch!,
        diffBase: 'refs/remotes/origin/main',
        publish: input.publish!,
        baseBranch: 'main',
        result: { ...result, status: 'failed' as const },
      });
      expect(again.pullRequest).toEqual({ number: 1, url: pull.html_url, created: false });
      expect(github.pulls).toHaveLength(1);
      expect(github.pulls[0].body).toContain('ended **failed**');
      expect(github.problems).toEqual([]);
    } finally {
      await schedule.delete();
    }
  }, 240_000);

  test('a worker SIGKILLed while it opens the pull request: a new worker finishes with one pull request and one message', async () => {
    const remote = makeGitRemote();
    github.bareRepo = remote.bare;
    const before = github.pulls.length;
    let created!: () => void;
    const opened = new Promise<void>((resolve) => (created = resolve));
    // The forge stores the pull request, and the worker dies before it hears back.
    github.onCreate = () => {
      created();
      return new Promise<void>(() => undefined);
    };
    harness.fake.setResponder(byTask({ 'Task a': creates('a.txt') }));
    const taskQueue = uniqueName('mornings-crash');
    const env = {
      ...modelEnv(harness.fake),
      ...publishingEnv(),
      CODELOOP_TASK_QUEUE: taskQueue,
      CODELOOP_HOST_ID: uniqueName('mornings-host'),
    };
    const first = await spawnWorker(env, { startTimeoutMs: 90_000 });
    let second: Awaited<ReturnType<typeof startWorkers>> | undefined;
    try {
      const handle = await harness.temporal.client.workflow.start<typeof batchConductorWorkflow>('batchConductorWorkflow', {
        args: [
          {
            workspace: remote.checkout,
            tasks: [task('a')],
            publish: { remote: 'origin', repository: 'acme/app' },
            notify: [{ kind: 'webhook', url: `${hooks.url}/crash/${taskQueue}` }],
          },
        ],
        taskQueue,
        workflowId: uniqueName('batch-mornings-crash'),
      });
      await opened;
      await first.kill();
      github.onCreate = undefined;
      // The replacement runs in this process: a worker like the killed one, without a second process to start.
      second = await startWorkers(harness.temporal, { taskQueue, env, hostId: env.CODELOOP_HOST_ID });
      const result = (await handle.result()) as BatchResult;
      expect(result.status).toBe('completed');
      expect(github.pulls.length - before).toBe(1);
      expect(result.published?.[0].pullRequest).toMatchObject({ number: github.pulls.at(-1)!.number, created: false });
      expect(hooks.posts.filter((post) => post.path === `/crash/${taskQueue}`)).toHaveLength(1);
      expect(github.problems).toEqual([]);
    } finally {
      github.onCreate = undefined;
      await first.kill().catch(() => undefined);
      await second?.stop();
    }
  }, 300_000);
});
