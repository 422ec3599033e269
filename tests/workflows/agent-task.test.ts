import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { waitForBlockers } from '../support/blockers.js';
import { startFakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { activityAttempts, scheduledActivities } from '../support/history.js';
import { recordHistory } from '../support/record-history.js';
import { modelEnv, startWorkers, uniqueName } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('agent-task');
const start = (input: Record<string, unknown>) => harness.start(input);

const EPHEMERAL = { type: 'ephemeral' };

/** Everything a request sent as its prompt, cached or not. */
const promptTokens = ({ usage }: RecordedRequest) =>
  usage!.input_tokens + usage!.cache_read_input_tokens + usage!.cache_creation_input_tokens;

/** The `CodeloopPhase` values the workflow upserted, in order. */
async function upsertedPhases(handle: WorkflowHandle): Promise<string[]> {
  return ((await handle.fetchHistory()).events ?? [])
    .map((event) => event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[SEARCH_ATTRIBUTES.phase])
    .filter((payload) => payload !== undefined && payload !== null)
    .map((payload) => defaultPayloadConverter.fromPayload<string | string[]>(payload))
    .map((value) => (Array.isArray(value) ? value[0] : value));
}

describe('agentTaskWorkflow', () => {
  test('a scripted session creates and edits files, and history reads like a transcript', async () => {
    const workspace = makeWorkspace({ 'app.py': 'def greet(name):\n    return "hi " + name\n', 'README.md': '# demo\n' });
    harness.fake.enqueue(
      {
        toolCalls: [
          { name: 'list_files', input: {} },
          { name: 'read_file', input: { path: 'app.py' } },
        ],
      },
      { toolCalls: [{ name: 'create_file', input: { path: 'src/hello.py', content: 'print("hello")\n' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: 'app.py', edits: [{ search: '    return "hi " + name', replace: '    return f"hello {name}"' }] },
          },
        ],
      },
      { toolCalls: [{ name: 'run_command', input: { command: 'cat app.py' } }] },
      { text: 'Added src/hello.py and switched greet to an f-string.' },
    );
    const before = harness.fake.requests.length;
    const handle = await start({ title: 'Greeting', description: 'Use f-strings', workspace });
    const result = await handle.result();

    expect(readFileSync(path.join(workspace, 'app.py'), 'utf8')).toBe('def greet(name):\n    return f"hello {name}"\n');
    expect(readFileSync(path.join(workspace, 'src/hello.py'), 'utf8')).toBe('print("hello")\n');
    expect(result).toMatchObject({
      status: 'completed',
      summary: 'Added src/hello.py and switched greet to an f-string.',
      iterations: 5,
      filesChanged: ['app.py', 'src/hello.py'],
      runs: 1,
    });
    expect(result.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(result.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.elapsedMs).toBeGreaterThan(0);

    // The tool results went back to the model: the run_command output reached the final request.
    const last = harness.fake.requests[harness.fake.requests.length - 1].body.messages.at(-1)!;
    expect(JSON.stringify(last.content)).toContain('return f\\"hello {name}\\"');

    const requests = harness.fake.requests.slice(before);
    expect(requests).toHaveLength(5);
    for (const [index, { body, stream, usage }] of requests.entries()) {
      expect(stream).toBe(true);
      // Breakpoints on the last tool, the system prompt and the conversation's last block, and nowhere else.
      expect(body.tools!.map((tool) => tool.cache_control)).toEqual([...body.tools!.slice(1).map(() => undefined), EPHEMERAL]);
      expect(body.system).toEqual([expect.objectContaining({ cache_control: EPHEMERAL })]);
      const blocks = body.messages.flatMap((message) => message.content as Record<string, unknown>[]);
      expect(blocks.map((block) => block.cache_control)).toEqual([...blocks.slice(1).map(() => undefined), EPHEMERAL]);
      // So each request reads back the whole prompt the one before it sent.
      if (index > 0) expect(usage!.cache_read_input_tokens).toBe(promptTokens(requests[index - 1]));
    }

    // `cat app.py` is not a test command, so the task stays in editing until it verifies.
    expect(await upsertedPhases(handle)).toEqual(['starting', 'exploring', 'creating', 'editing', 'verifying', 'done']);

    const steps = scheduledActivities(await handle.fetchHistory());
    expect(steps.map((step) => [step.activityType, step.summary])).toEqual([
      ['openWorkspace', `open workspace ${workspace}`],
      ['surveySandbox', 'survey the sandbox on test-host'],
      ['callModel', 'model turn 1/30'],
      ['listFiles', 'list . (depth 3)'],
      ['readFile', 'read app.py'],
      ['callModel', 'model turn 2/30'],
      ['createFile', 'create src/hello.py'],
      ['callModel', 'model turn 3/30'],
      ['editFile', 'edit app.py (1 edit)'],
      ['callModel', 'model turn 4/30'],
      ['runCommand', 'run: cat app.py'],
      ['callModel', 'model turn 5/30'],
      ['detectGates', 'detect verification gates'],
    ]);
    // The two read-only calls of the first turn were scheduled together, before either finished.
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduledAt = (type: string) =>
      events.findIndex((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === type);
    const firstCompletion = events.findIndex(
      (event, index) => index > scheduledAt('listFiles') && event.activityTaskCompletedEventAttributes,
    );
    expect(scheduledAt('readFile')).toBeLessThan(firstCompletion);
    const toolSteps = steps.filter((step) => !['callModel', 'openWorkspace'].includes(step.activityType));
    expect(result.gates).toEqual([]);
    expect(result.verification).toBe('unverified');
    expect(new Set(toolSteps.map((step) => step.taskQueue))).toEqual(new Set([`${harness.taskQueue}@test-host`]));
    await recordHistory('task-scripted-session', handle);
  });

  test('an exhausted iteration budget asks first; "stop" ends the task as failed with reason budget_exhausted', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'a\n' });
    harness.fake.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
    );
    const handle = await start({ description: 'loop forever', workspace, maxIterations: 2 });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ origin: 'budget', options: ['continue', 'stop'] });
    expect(blocker.question).toContain('The iteration budget of 2 is used up');
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const error = await handle.result().catch((caught) => caught);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('BudgetExhausted');
    expect(cause.message).toBe('iteration budget of 2 exhausted');
    const result = cause.details?.[0] as TaskResult;
    expect(result).toMatchObject({ status: 'failed', reason: 'budget_exhausted', iterations: 2 });
    await recordHistory('task-budget-exhausted', handle);
  });

  test("the model's thinking goes back unchanged with its tool results", async () => {
    harness.fake.enqueue(
      { thinking: 'I should look at the file first.', toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      (request) => {
        const last = request.body.messages.at(-2)!.content as { type: string; thinking?: string }[];
        expect(last[0]).toMatchObject({ type: 'thinking', thinking: 'I should look at the file first.' });
        return { thinking: 'Done.', text: 'read it' };
      },
    );
    const handle = await start({ description: 'think', workspace: makeWorkspace({ 'a.txt': 'a\n' }) });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'read it' });
    await recordHistory('task-thinking-returned', handle);
  });

  test('invalid input fails at once with a message naming the field', async () => {
    const handle = await start({ description: 'x', workspace: 'relative/path', maxIterations: 'many' });
    const error = await handle.result().catch((caught) => caught);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidInput');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toContain('workspace: must be an absolute path');
    expect(cause.message).toContain('maxIterations:');
    const history = await handle.fetchHistory();
    expect(history.events?.filter((event) => event.workflowTaskFailedEventAttributes)).toHaveLength(0);
    await recordHistory('task-invalid-input', handle);
  });

  test('a 429 is retried after its retry-after, then succeeds', async () => {
    const workspace = makeWorkspace();
    harness.fake.enqueue(
      { error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfterSeconds: 3 } },
      { text: 'done' },
    );
    const before = harness.fake.requests.length;
    const handle = await start({ description: 'rate limited', workspace });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'done' });
    const [first, second] = harness.fake.requests.slice(before);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2_900);
    // openWorkspace, surveySandbox, then the model call that took two attempts.
    expect(activityAttempts(await handle.fetchHistory()).slice(2, 3)).toEqual([2]);
    await recordHistory('task-rate-limited', handle);
  });
});

describe('streaming', () => {
  test('a turn that streams for longer than the heartbeat timeout finishes in one attempt', async () => {
    const streamingMs = 20_000;
    harness.fake.enqueue({ text: 'slow but steady', stallMs: streamingMs });
    const before = harness.fake.requests.length;
    const handle = await start({ description: 'slow model', workspace: makeWorkspace() });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'slow but steady' });
    expect(harness.fake.requests.slice(before).map((request) => request.stream)).toEqual([true]);

    const history = await handle.fetchHistory();
    const scheduled = history.events!.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')!;
    const heartbeatTimeoutMs = Number(scheduled.activityTaskScheduledEventAttributes!.heartbeatTimeout!.seconds) * 1000;
    expect(heartbeatTimeoutMs).toBeGreaterThan(0);
    expect(streamingMs).toBeGreaterThan(heartbeatTimeoutMs);
    // Heartbeats kept the call alive: no timeout, no second attempt.
    expect(history.events!.some((event) => event.activityTaskTimedOutEventAttributes)).toBe(false);
    expect(activityAttempts(history)).toEqual([1, 1, 1, 1]);
  });
});

describe('credentials', () => {
  test('a 401 fails the model call without a retry and becomes a blocker naming the fix', async () => {
    const wrongKey = await startFakeMessagesApi({ apiKey: 'sk-the-right-key' });
    const queue = uniqueName('auth');
    const authWorkers = await startWorkers(harness.temporal, {
      taskQueue: queue,
      env: modelEnv(wrongKey, { ANTHROPIC_API_KEY: 'sk-wrong' }),
    });
    try {
      const handle = await harness.start({ description: 'x', workspace: makeWorkspace() }, queue);
      const [blocker] = await waitForBlockers(handle);
      expect(blocker.origin).toBe('credentials');
      expect(blocker.question).toContain('rejected the credentials (401 authentication_error');
      expect(blocker.question).toContain("Set ANTHROPIC_API_KEY on the worker, then answer 'retry'");
      expect(wrongKey.requests).toHaveLength(1);
      expect(activityAttempts(await handle.fetchHistory())).toEqual([1, 1, 1]);
      await handle.signal(answerBlockerSignal, { answer: 'stop' });
      const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
      expect((error.cause as ApplicationFailure).message).toContain('stopped by a human');
      expect(JSON.stringify(await handle.fetchHistory())).not.toContain('sk-wrong');
      await recordHistory('task-credentials-rejected', handle);
    } finally {
      await authWorkers.stop();
      await wrongKey.close();
    }
  });
});
