import { describe, expect, test } from 'vitest';
import { agentRequests, cacheableText, identicalPrefixShare } from '../../bench/request-prefix.js';
import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal, getStateQuery } from '../../src/shared/messages.js';
import { waitForBlockers, waitForState } from '../support/blockers.js';
import {
  withSummaries,
  type MessagesBody,
  type RecordedRequest,
  type Responder,
  type ScriptedError,
  type ScriptedTurn,
} from '../support/fake-messages-api.js';
import { payloadSizes } from '../support/history.js';
import { recordHistory } from '../support/record-history.js';
import { chunkFiles, cyclingSession, largeOutputSession } from '../support/sessions.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('compaction');
const ITERATIONS = 200;
const PAYLOAD_WARNING = 512 * 1024;
const WINDOW_TOKENS = 200_000;

test('200 iterations with 5 KB outputs: the conversation stays under the window and every payload under 512 KB', async () => {
  harness.fake.setResponder(withSummaries(largeOutputSession(ITERATIONS)));
  const before = harness.fake.requests.length;
  try {
    const handle = await harness.start({
      description: 'read everything',
      workspace: makeWorkspace(chunkFiles(5_000)),
      maxIterations: ITERATIONS,
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', iterations: ITERATIONS });
    const state = await handle.query(getStateQuery);
    expect(state.compactions).toBeGreaterThanOrEqual(1);

    const requests = harness.fake.requests.slice(before);
    const largestRequest = Math.max(...requests.map((request) => JSON.stringify(request.body).length));
    expect(largestRequest).toBeLessThan(PAYLOAD_WARNING);
    expect(largestRequest / 4).toBeLessThan(WINDOW_TOKENS * 0.85);

    let runs = 0;
    for await (const execution of harness.temporal.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
      const history = await harness.temporal.client.workflow.getHandle(handle.workflowId, execution.runId).fetchHistory();
      expect(Math.max(...(history.events ?? []).flatMap((event) => payloadSizes(event)))).toBeLessThan(PAYLOAD_WARNING);
      runs += 1;
    }
    expect(runs).toBe(result.runs);
  } finally {
    harness.fake.setResponder(undefined);
  }
}, 300_000);

/** The request body's messages from `start` as cacheable text (the tools and system are the same in every request). */
const messagesText = (body: MessagesBody, start: number, end?: number) =>
  cacheableText({ ...body, tools: [], system: [], messages: body.messages.slice(start, end) });

test('without a compaction, each request is the previous one plus new turns, byte for byte', async () => {
  harness.fake.setResponder(cyclingSession(10));
  const before = harness.fake.requests.length;
  try {
    const handle = await harness.start({
      description: 'flip the value',
      workspace: makeWorkspace({ 'app.py': 'value = 1\nprint(value)\n' }),
    });
    expect(await handle.result()).toMatchObject({ status: 'completed', iterations: 10, runs: 1 });
    const requests = agentRequests(harness.fake.requests.slice(before));
    expect(requests).toHaveLength(10);
    const texts = requests.map((request) => cacheableText(request.body));
    for (let index = 1; index < texts.length; index++) {
      const share = identicalPrefixShare(texts[index - 1], texts[index]);
      expect(
        texts[index].startsWith(texts[index - 1]),
        `request ${index + 1} shares only ${(share * 100).toFixed(1)}% with the one before`,
      ).toBe(true);
      expect(requests[index].usage!.cache_read_input_tokens).toBeGreaterThan(0);
    }
  } finally {
    harness.fake.setResponder(undefined);
  }
});

/**
 * A session whose turns carry ~2,000 chars of reasoning, which no tier but the summary can shrink, and a small
 * command. Each turn says "step N:", and the next follows the last step in the request, so the script stays in order
 * after a compaction.
 */
function reasoningSession(iterations: number): Responder {
  return (request) => {
    const steps = request.body.messages
      .filter((message) => message.role === 'assistant')
      .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
      .map((block) => /^step (\d+):/.exec(String(block.text ?? ''))?.[1])
      .filter((step): step is string => step !== undefined);
    const index = steps.length ? Number(steps[steps.length - 1]) + 1 : 0;
    if (index >= iterations - 1) return { text: 'done' };
    const reasoning = Array.from({ length: 40 }, (_, line) => `weighing option ${line} for step ${index}: it keeps the API stable.`).join(
      ' ',
    );
    return { text: `step ${index}: ${reasoning}`, toolCalls: [{ name: 'run_command', input: { command: `echo checked ${index}` } }] };
  };
}

test('a 20K-token window: tier 3 at 85% keeps the kickoff and the last 5 exchanges, and requests stay under the window', async () => {
  const window = 20_000;
  const iterations = 50;
  harness.fake.setResponder(withSummaries(reasoningSession(iterations), '- ran the checks; nothing is unresolved'));
  const before = harness.fake.requests.length;
  try {
    const handle = await harness.start({
      description: 'think it through',
      workspace: makeWorkspace(),
      contextWindow: window,
      maxIterations: iterations,
      models: { summary: 'claude-summary-test' },
    });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', iterations });
    const { compactionLog } = await handle.query(getStateQuery);
    // Summaries go to the summary model, and their usage is reported apart from the agent's own.
    const summaries = harness.fake.requests.slice(before).filter((request) => !request.body.tools?.length);
    expect(summaries.map((request) => request.body.model)).toEqual(compactionLog.map(() => 'claude-summary-test'));
    expect(result.spendByPurpose?.summary?.calls).toBe(compactionLog.length);
    expect(result.spendByPurpose?.default?.calls).toBe(iterations);
    expect(result.spendByPurpose!.default!.costUsd + result.spendByPurpose!.summary!.costUsd).toBeCloseTo(result.costUsd);
    expect(compactionLog.length).toBeGreaterThanOrEqual(2);
    expect(result.runs).toBe(compactionLog.length + 1);
    for (const record of compactionLog) {
      expect(record).toMatchObject({ tier: 3 });
      expect(record.tokensBefore).toBeGreaterThan(window * 0.85);
      expect(record.tokensAfter).toBeLessThan(window * 0.85 * 0.5);
    }

    const requests = agentRequests(harness.fake.requests.slice(before));
    expect(requests).toHaveLength(iterations);
    expect(new Set(requests.map((request) => request.body.model))).toEqual(new Set(['claude-test']));
    for (const request of requests) expect(JSON.stringify(request.body).length / 4).toBeLessThan(window);
    const kickoff = (requests[0].body.messages[0].content as { text: string }[])[0].text;
    const compactedAt: number[] = [];
    for (let index = 1; index < requests.length; index++) {
      const [previous, current] = [requests[index - 1].body, requests[index].body];
      if (cacheableText(current).startsWith(cacheableText(previous))) continue;
      compactedAt.push(index);
      const opening = (current.messages[0].content as { text: string }[])[0].text;
      expect(opening).toBe(`${kickoff}\n\nSummary of the work so far:\n- ran the checks; nothing is unresolved`);
      // The summary message, then 5 exchanges: the 4 the previous request ended with, and the latest one.
      expect(current.messages).toHaveLength(11);
      expect(messagesText(current, 1, 9)).toBe(messagesText(previous, -8));
    }
    // The prefix changed at each compaction and nowhere else.
    expect(compactedAt).toHaveLength(compactionLog.length);
    expect(compactedAt).toEqual(compactionLog.map((record) => record.iteration));
  } finally {
    harness.fake.setResponder(undefined);
  }
}, 120_000);

test('the summary call is checked against the spend caps too: a cap it would cross asks first, and "stop" means no summary', async () => {
  // Every model call's cap check asks, and is answered with exactly enough; turn 1's long text needs compacting after
  // turn 2 (the first exchange is summarised, the latest kept) and makes the summary's own call the one that would
  // cross the cap.
  const run = (text: string): ScriptedTurn => ({ text, toolCalls: [{ name: 'run_command', input: { command: `echo ${text.length}` } }] });
  harness.fake.enqueue(run(`plan ${'p'.repeat(56_000)}`), run('a'));
  const before = harness.fake.requests.length;
  const handle = await harness.start({
    description: 'capped summary',
    workspace: makeWorkspace(),
    contextWindow: 20_000,
    maxTotalTokens: 1,
  });
  const asked: string[] = [];
  for (let answered = 0; !asked.at(-1)?.startsWith('Before summarising'); answered++) {
    const state = await waitForState(
      handle,
      (current) => current.openBlockers.length === 1 && current.answeredBlockers.length === answered,
    );
    const [blocker] = state.openBlockers;
    asked.push(blocker.question);
    const [spent, next] = /: ([\d,]+) spent, the next call may use up to ([\d,]+)/
      .exec(blocker.question)!
      .slice(1)
      .map((count) => Number(count.replace(/,/g, '')));
    const answer = blocker.question.startsWith('Before the next model call') ? `raise to ${spent + next}` : 'stop';
    await handle.signal(answerBlockerSignal, { blockerId: blocker.id, answer });
  }
  expect(asked.slice(0, -1)).toHaveLength(2);
  for (const question of asked.slice(0, -1))
    expect(question).toMatch(/^Before the next model call: the token cap of [\d,]+ would be exceeded/);
  expect(asked.at(-1)).toMatch(
    /^Before summarising the conversation: the token cap of [\d,]+ would be exceeded: [\d,]+ spent, the next call may use up to [\d,]+/,
  );

  const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
  expect((error.cause as ApplicationFailure).details?.[0]).toMatchObject({ status: 'failed', reason: 'tokens_cap', iterations: 2 });
  // The 2 agent turns and no summary request.
  const requests = harness.fake.requests.slice(before);
  expect(requests).toHaveLength(2);
  expect(agentRequests(requests)).toHaveLength(2);
});

describe('a summary model that cannot be used', () => {
  const run = (text: string): ScriptedTurn => ({ text, toolCalls: [{ name: 'run_command', input: { command: `echo ${text.length}` } }] });
  const unusable = (request: RecordedRequest): ScriptedError => {
    expect(request.body.model).toBe('claude-summary-unusable');
    expect(request.body.tools ?? []).toEqual([]);
    return { error: { status: 404, type: 'not_found_error', message: 'model: claude-summary-unusable' } };
  };
  const start = () =>
    harness.start({
      description: 'summary model gone',
      workspace: makeWorkspace(),
      contextWindow: 20_000,
      models: { summary: 'claude-summary-unusable' },
    });

  test("falls back to the task's default model, and the task goes on", async () => {
    harness.fake.enqueue(
      run(`plan ${'p'.repeat(56_000)}`),
      run('a'),
      unusable,
      (request) => {
        expect(request.body.model).toBe('claude-test');
        expect(request.body.tools ?? []).toEqual([]);
        return { text: '- planned; nothing is unresolved' };
      },
      { text: 'done' },
    );
    const handle = await start();
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', summary: 'done' });
    expect(result.spendByPurpose?.summary?.calls).toBe(1);
    expect((await handle.query(getStateQuery)).compactions).toBe(1);
    await recordHistory('task-summary-falls-back', handle);
  });

  test('when the default model fails too, a human is asked, naming both; "stop" fails the task', async () => {
    harness.fake.enqueue(run(`plan ${'p'.repeat(56_000)}`), run('a'), unusable, () => ({
      error: { status: 404, type: 'not_found_error', message: 'model: claude-test' },
    }));
    const handle = await start();
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.origin).toBe('model-unavailable');
    expect(blocker.question).toContain('A summary call failed on claude-summary-unusable:');
    expect(blocker.question).toContain("and on the task's default model, the worker's default model (CODELOOP_MODEL):");
    expect(blocker.question).toContain('model: claude-test');
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect((error.cause as ApplicationFailure).details?.[0]).toMatchObject({ status: 'failed', reason: 'model_unavailable' });
  });
});
