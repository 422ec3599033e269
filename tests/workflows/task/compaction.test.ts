import { describe, expect, test } from 'vitest';
import type { Message } from '../../../src/shared/conversation.js';
import { dropSupersededOutputs, maskOldToolOutputs, recentStart, splitForSummary } from '../../../src/workflows/common/compaction.js';
import { checkConversation } from '../../support/fake-messages-api.js';

/** A conversation of `turns` exchanges, each one tool call and its result. */
function conversation(calls: { name: string; input: Record<string, unknown>; result: string; isError?: boolean }[]): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'start' }] }];
  calls.forEach((call, index) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${index}`, name: call.name, input: call.input }] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: call.result, ...(call.isError ? { is_error: true } : {}) }],
    });
  });
  return messages;
}

const big = (label: string) => `${label} ${'x'.repeat(5_000)}`;
const resultOf = (messages: Message[], id: string) =>
  messages.flatMap((message) => message.content).find((block) => block.type === 'tool_result' && block.tool_use_id === id) as {
    content: string;
  };
const valid = (messages: Message[]) => checkConversation({ model: 'm', max_tokens: 1, messages: messages as never });

describe('tier 1: masking old tool outputs', () => {
  test('masks outputs and bulky inputs older than the last 5 exchanges, keeping pairs valid', () => {
    const calls = Array.from({ length: 8 }, (_, n) => ({ name: 'read_file', input: { path: `f${n}` }, result: big(`file ${n}`) }));
    calls[1] = { name: 'create_file', input: { path: 'new.ts', content: big('content') }, result: 'created new.ts' } as never;
    const masked = maskOldToolOutputs(conversation(calls));
    expect(resultOf(masked, 't0').content).toBe(
      '[output omitted to save context: 5007 chars from read_file f0; call the tool again if you need it]',
    );
    expect(JSON.stringify(masked[3])).toMatch(/\[omitted: 50\d\d chars\]/);
    for (const id of ['t3', 't4', 't5', 't6', 't7']) expect(resultOf(masked, id).content).toMatch(/^file \d x+$/);
    expect(valid(masked)).toBeUndefined();
  });

  test('with 5 or fewer exchanges in all, only the first is masked: what the model just read stays', () => {
    const reads = (count: number) =>
      conversation(Array.from({ length: count }, (_, n) => ({ name: 'read_file', input: { path: `f${n}` }, result: big(`file ${n}`) })));
    const masked = maskOldToolOutputs(reads(3));
    expect(resultOf(masked, 't0').content).toMatch(/^\[output omitted to save context/);
    for (const id of ['t1', 't2']) expect(resultOf(masked, id).content).toMatch(/^file \d x+$/);
    expect(recentStart(reads(5))).toBe(3);
    expect(resultOf(maskOldToolOutputs(reads(1)), 't0').content).toMatch(/^file 0 x+$/);
    expect(
      resultOf(
        dropSupersededOutputs(
          conversation([
            { name: 'read_file', input: { path: 'a' }, result: 'a' },
            { name: 'read_file', input: { path: 'a' }, result: 'a' },
          ]),
        ),
        't0',
      ).content,
    ).toMatch(/^\[superseded/);
    // Runs that compacted a short conversation under the old rule replay with it: everything was older.
    expect(recentStart(reads(3), 5, false)).toBe(7);
    expect(resultOf(maskOldToolOutputs(reads(3), false), 't2').content).toMatch(/^\[output omitted/);
  });

  test('unresolved errors stay whole; resolved ones are masked', () => {
    const calls = [
      { name: 'run_tests', input: {}, result: big('FAILED test_a'), isError: true },
      { name: 'edit_file', input: { path: 'a.py' }, result: big('no match'), isError: true },
      { name: 'edit_file', input: { path: 'a.py' }, result: 'edited a.py' },
      ...Array.from({ length: 5 }, (_, n) => ({ name: 'read_file', input: { path: `r${n}` }, result: 'short' })),
    ];
    const masked = maskOldToolOutputs(conversation(calls));
    expect(resultOf(masked, 't0').content).toMatch(/^FAILED test_a/);
    expect(resultOf(masked, 't1').content).toMatch(/^\[output omitted/);
  });
});

describe('tier 2: superseded reads and passing tests', () => {
  test('drops a read made stale by a later edit, and passing test output, but not the latest exchange', () => {
    const calls = [
      { name: 'read_file', input: { path: 'a.py' }, result: 'old a' },
      { name: 'edit_file', input: { path: 'a.py' }, result: 'edited' },
      { name: 'run_tests', input: {}, result: '5 passed' },
      { name: 'read_file', input: { path: 'b.py' }, result: 'b' },
      { name: 'run_tests', input: {}, result: '6 passed' },
    ];
    const dropped = dropSupersededOutputs(conversation(calls));
    expect(resultOf(dropped, 't0').content).toBe('[superseded by a later edit_file of a.py]');
    expect(resultOf(dropped, 't2').content).toBe('[tests passed; output dropped]');
    expect(resultOf(dropped, 't3').content).toBe('b');
    expect(resultOf(dropped, 't4').content).toBe('6 passed');
  });
});

describe('tier 3: the split for a summary', () => {
  test('the recent part starts with an assistant turn and keeps the last 5 exchanges', () => {
    const messages = conversation(Array.from({ length: 9 }, (_, n) => ({ name: 'list_files', input: { n }, result: 'x' })));
    const split = splitForSummary(messages)!;
    expect(split.recent[0].role).toBe('assistant');
    expect(split.recent).toHaveLength(10);
    expect(split.older).toHaveLength(9);
    expect(recentStart(messages)).toBe(9);
  });

  test('a short conversation has nothing to summarise', () => {
    expect(splitForSummary(conversation([{ name: 'list_files', input: {}, result: 'x' }]))).toBeUndefined();
  });
});
