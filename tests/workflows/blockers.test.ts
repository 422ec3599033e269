import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal, answerBlockerUpdate, getStateQuery } from '../../src/shared/messages.js';
import { waitForBlockers, waitForState } from '../support/blockers.js';
import type { RecordedRequest } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { recordHistory } from '../support/record-history.js';
import { modelEnv, startWorkers, uniqueName } from '../support/temporal.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('blockers');
const start = (input: Record<string, unknown>, queue?: string) =>
  harness.start({ description: 'a task that needs a human', workspace: makeWorkspace({ 'a.txt': 'a\n' }), ...input }, queue);

/** The tool results (or user text) of the last message of a request. */
const lastUserContent = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1)!.content);

describe('raise_blocker', () => {
  test('waits with every worker stopped; the answer signalled meanwhile reaches the next model request', async () => {
    harness.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'toolu_which_database',
            name: 'raise_blocker',
            input: { question: 'Which database should the app use?', context: 'PRD is silent' },
          },
        ],
      },
      (request) => {
        // The answer is the raise_blocker call's own result, not text the agent has to match up.
        expect(request.body.messages.at(-1)!.content).toEqual([
          expect.objectContaining({
            type: 'tool_result',
            tool_use_id: 'toolu_which_database',
            content: 'Answer from a human: PostgreSQL 16',
          }),
        ]);
        return { text: 'Used PostgreSQL 16 as asked.' };
      },
    );
    const handle = await start({});
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ id: 'b1', question: 'Which database should the app use?', context: 'PRD is silent', origin: 'agent' });
    const listed = await handle.describe();
    expect(listed.searchAttributes.CodeloopStatus).toEqual(['blocked']);
    expect(listed.searchAttributes.CodeloopPhase).toEqual(['blocked']);

    await harness.stopWorkers();
    await handle.signal(answerBlockerSignal, { answer: 'PostgreSQL 16' });
    await harness.restartWorkers();

    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'Used PostgreSQL 16 as asked.' });
    const state = await handle.query(getStateQuery);
    expect(state.openBlockers).toEqual([]);
    expect(state.answeredBlockers).toMatchObject([{ id: 'b1', answer: 'PostgreSQL 16', status: 'answered' }]);
    await recordHistory('task-blocked-then-answered', handle);
  });

  test('two blockers open in one turn are answered by id, in either order', async () => {
    harness.fake.enqueue(
      {
        toolCalls: [
          { name: 'raise_blocker', input: { question: 'Staging URL?' } },
          { name: 'raise_blocker', input: { question: 'Which region?' } },
        ],
      },
      (request) => {
        const results = request.body.messages.at(-1)!.content as { content: string }[];
        expect(results.map((result) => result.content)).toEqual([
          'Answer from a human: https://staging.example',
          'Answer from a human: eu-west-1',
        ]);
        return { text: 'done' };
      },
    );
    const handle = await start({});
    const open = await waitForBlockers(handle, 2);
    expect(open.map((blocker) => blocker.question)).toEqual(['Staging URL?', 'Which region?']);
    const second = await handle.executeUpdate(answerBlockerUpdate, { args: [{ blockerId: open[1].id, answer: 'eu-west-1' }] });
    expect(second).toMatchObject({ blockerId: open[1].id, question: 'Which region?', answer: 'eu-west-1' });
    await handle.signal(answerBlockerSignal, { blockerId: open[0].id, answer: 'https://staging.example' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    await recordHistory('task-two-blockers', handle);
  });

  test('bad answers are refused by the update and recorded, not fatal, for the signal', async () => {
    harness.fake.enqueue(
      {
        toolCalls: [
          { name: 'raise_blocker', input: { question: 'A?' } },
          { name: 'raise_blocker', input: { question: 'B?' } },
        ],
      },
      { text: 'done' },
    );
    const handle = await start({});
    const [first, second] = await waitForBlockers(handle, 2);
    const rejection = async (answer: Record<string, unknown>) => {
      const error = await handle.executeUpdate(answerBlockerUpdate, { args: [answer as never] }).catch((caught) => caught);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      return (error as WorkflowUpdateFailedError).cause?.message;
    };
    expect(await rejection({ answer: 'yes' })).toBe(`2 blockers are open (${first.id}, ${second.id}); name one with blockerId`);
    expect(await rejection({ blockerId: 'b99', answer: 'yes' })).toBe(`no blocker b99; open: ${first.id}, ${second.id}`);
    expect(await rejection({ blockerId: first.id, answer: '   ' })).toBe('the answer is empty');

    await handle.signal(answerBlockerSignal, { answer: 'ambiguous' });
    await handle.signal(answerBlockerSignal, { blockerId: 'nope', answer: 'x' });
    await handle.signal(answerBlockerSignal, { blockerId: first.id, answer: '' });
    await handle.signal(answerBlockerSignal, 'not even an object' as never);
    const state = await waitForState(handle, (current) => current.rejectedAnswers.length === 4);
    expect(state.rejectedAnswers.map((rejected) => rejected.reason)).toEqual([
      `2 blockers are open (${first.id}, ${second.id}); name one with blockerId`,
      `no blocker nope; open: ${first.id}, ${second.id}`,
      'the answer is empty',
      'the payload must be {"blockerId"?: string, "answer": string}',
    ]);
    expect(state.status).toBe('blocked');

    await handle.signal(answerBlockerSignal, { blockerId: first.id, answer: 'one' });
    await waitForState(handle, (current) => current.openBlockers.length === 1);
    // The second blocker keeps the task waiting, so this is refused for the answer already given, not for the end.
    expect(await rejection({ blockerId: first.id, answer: 'again' })).toBe(`blocker ${first.id} is already answered`);
    await handle.signal(answerBlockerSignal, { answer: 'two' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await handle.query(getStateQuery)).answeredBlockers.map((blocker) => blocker.answer)).toEqual(['one', 'two']);
  });
});

describe('blocker timeout', () => {
  test('"fail" ends the task as failed with reason blocker_timeout', async () => {
    harness.fake.enqueue({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Anyone there?' } }] });
    const handle = await start({ blockerTimeout: '2s', onBlockerTimeout: 'fail' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    const cause = error.cause as ApplicationFailure;
    expect(cause.message).toBe('blocker b1 got no answer within 2s: Anyone there?');
    expect(cause.details?.[0]).toMatchObject({ status: 'failed', reason: 'blocker_timeout' });
  });

  test('"continue" tells the agent to use its best judgement', async () => {
    harness.fake.enqueue({ toolCalls: [{ name: 'raise_blocker', input: { question: 'Anyone there?' } }] }, (request) => {
      expect(lastUserContent(request)).toContain('No answer came within 2s. Use your best judgement');
      return { text: 'Went ahead with the default.' };
    });
    const handle = await start({ blockerTimeout: '2s', onBlockerTimeout: 'continue' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect((await handle.query(getStateQuery)).openBlockers).toEqual([]);
    await recordHistory('task-blocker-timeout-continue', handle);
  });
});

describe('blockers the workflow raises', () => {
  test('a missing API key becomes a blocker naming the fix; "retry" after setting it finishes the task', async () => {
    const env = modelEnv(harness.fake, { ANTHROPIC_API_KEY: '' });
    const queue = uniqueName('no-key');
    const keyless = await startWorkers(harness.temporal, { taskQueue: queue, env });
    try {
      harness.fake.enqueue({ text: 'done once the key was set' });
      const handle = await start({}, queue);
      const [blocker] = await waitForBlockers(handle);
      expect(blocker.origin).toBe('credentials');
      expect(blocker.question).toContain('ANTHROPIC_API_KEY is not set on worker test-host');
      expect(blocker.question).toContain("Set ANTHROPIC_API_KEY on the worker, then answer 'retry'");
      env.ANTHROPIC_API_KEY = harness.fake.apiKey;
      await handle.signal(answerBlockerSignal, { answer: 'retry' });
      expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'done once the key was set' });
      expect(JSON.stringify(await handle.fetchHistory())).not.toContain(harness.fake.apiKey);
      await recordHistory('task-credentials-blocker', handle);
    } finally {
      await keyless.stop();
    }
  });

  test('a final turn that asks about requirements becomes a blocker; the answer continues the conversation', async () => {
    harness.fake.enqueue(
      { text: 'I can add the delete command. Should deleting a task also delete its subtasks, or keep them?' },
      (request) => {
        expect(lastUserContent(request)).toContain('A human answered your question: delete them too');
        return { text: 'Delete removes subtasks too.' };
      },
    );
    const handle = await start({});
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ origin: 'final-question', question: 'Should deleting a task also delete its subtasks, or keep them?' });
    await handle.executeUpdate(answerBlockerUpdate, { args: [{ answer: 'delete them too' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'Delete removes subtasks too.', iterations: 2 });
    await recordHistory('task-final-question', handle);
  });

  test('a final turn that says it cannot go on becomes a blocker too, though it asks nothing', async () => {
    harness.fake.enqueue({ text: 'Wrote the client. I cannot proceed without the API key for the payments sandbox.' }, (request) => {
      expect(lastUserContent(request)).toContain('You said you cannot go on. A human answered: use the test key in .env.example');
      return { text: 'Used the test key; the client works.' };
    });
    const handle = await start({});
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({
      origin: 'final-question',
      question: 'I cannot proceed without the API key for the payments sandbox.',
      context: 'access: the agent says it cannot go on, and nothing has changed yet',
    });
    await handle.executeUpdate(answerBlockerUpdate, { args: [{ answer: 'use the test key in .env.example' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'Used the test key; the client works.', iterations: 2 });
  });

  test('a tactical question at the end does not block', async () => {
    harness.fake.enqueue({ text: 'Added remove_task and its test. Would you like me to add a --force flag too?' });
    const result = (await (await start({})).result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', iterations: 1 });
  });
});

describe('approval', () => {
  test('a risky command waits for "approve" and then runs', async () => {
    const workspace = makeWorkspace({ 'notes.txt': 'old' });
    harness.fake.enqueue({ toolCalls: [{ name: 'run_command', input: { command: 'rm notes.txt' } }] }, (request) => {
      expect(lastUserContent(request)).toContain('exit code 0');
      return { text: 'removed' };
    });
    const handle = await start({ workspace, approval: 'risky' });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ origin: 'approval', options: ['approve', 'deny'] });
    expect(blocker.question).toContain('    rm notes.txt');
    expect(existsSync(path.join(workspace, 'notes.txt'))).toBe(true);
    await handle.signal(answerBlockerSignal, { answer: 'approve' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(workspace, 'notes.txt'))).toBe(false);
    await recordHistory('task-approval-approved', handle);
  });

  test('"deny" keeps the command from running and tells the agent', async () => {
    const workspace = makeWorkspace();
    harness.fake.enqueue({ toolCalls: [{ name: 'run_command', input: { command: 'touch created.txt' } }] }, (request) => {
      const result = (request.body.messages.at(-1)!.content as { content: string; is_error?: boolean }[])[0];
      expect(result).toMatchObject({
        is_error: true,
        content: 'A human denied running `touch created.txt`; it did not run. The human said: no, use mkdir',
      });
      return { text: 'ok, not creating it' };
    });
    const handle = await start({ workspace, approval: 'always' });
    await waitForBlockers(handle);
    await handle.executeUpdate(answerBlockerUpdate, { args: [{ answer: 'no, use mkdir' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(workspace, 'created.txt'))).toBe(false);
  });

  test('a safe command under "risky" runs without asking', async () => {
    harness.fake.enqueue({ toolCalls: [{ name: 'run_command', input: { command: 'ls' } }] }, { text: 'listed' });
    const handle = await start({ approval: 'risky' });
    expect(await handle.result()).toMatchObject({ status: 'completed', iterations: 2 });
    expect((await handle.query(getStateQuery)).answeredBlockers).toEqual([]);
  });
});

describe('closing questions on finished work', () => {
  test.each([
    'Should the confirmation also be skippable with --yes?',
    'Is the rounding behaviour what you expect?',
    'Does the output match, or would you prefer JSON?',
  ])('"%s" after a change whose gates pass: completed, the question kept open', async (question) => {
    harness.fake.enqueue(
      { toolCalls: [{ name: 'create_file', input: { path: 'delete.py', content: 'def delete(task):\n    return task\n' } }] },
      {
        text: `Added the delete command, with a confirmation prompt. ${question}`,
      },
    );
    const handle = await start({});
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', openQuestions: [question] });
    const state = await handle.query(getStateQuery);
    expect(state).toMatchObject({ openQuestions: [question], answeredBlockers: [] });
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toContain(`Open questions:\n- ${question}`);
  });

  test('the same question with nothing changed asks a human', async () => {
    harness.fake.enqueue({ text: 'Should the confirmation also be skippable with --yes?' }, { text: 'Left it as it is.' });
    const handle = await start({});
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ origin: 'final-question', context: 'requirements question, and nothing has changed yet' });
    await handle.signal(answerBlockerSignal, { answer: 'no' });
    expect(await handle.result()).toMatchObject({ status: 'completed', openQuestions: [] });
    await recordHistory('task-final-question-nothing-changed', handle);
  });
});
