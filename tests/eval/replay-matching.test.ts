import { describe, expect, test } from 'vitest';
import { describeDivergence, findDivergence, indexExchange } from '../../src/eval/divergence.js';
import { normaliseRequest, normaliseText, requestKey, type ApiRequest } from '../../src/eval/normalise.js';

/** A request as codeloop sends it: the tools, the system prompt, a conversation of `messages`. */
const request = (messages: ApiRequest['messages'], system = 'You are codeloop.\n\n# Task\n\n## Fix it\n'): ApiRequest => ({
  model: 'claude-test',
  max_tokens: 16384,
  system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
  tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
  messages,
});
const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text', text }] });
const call = (id: string, path: string) => ({
  role: 'assistant' as const,
  content: [{ type: 'tool_use', id, name: 'read_file', input: { path } }],
});
const result = (id: string, content: string) => ({ role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: id, content }] });

describe('what a replay lets differ between runs', () => {
  test.each([
    ['the path of the eval copy', 'rootdir: /tmp/codeloop-eval-Ab12Cd/py-bugfix', 'rootdir: <eval-dir>/py-bugfix'],
    ['a --workdir copy', 'File "/srv/evals/codeloop-eval-x9YzQ1/case/app.py", line 3', 'File "<eval-dir>/case/app.py", line 3'],
    ['durations', '$ npm test\nexit code 0 in 0.4s\n2 passed in 0.01s', '$ npm test\nexit code 0 in <duration>\n2 passed in <duration>'],
    ['node:test timings', '# duration_ms 458.80855', '# duration_ms <duration>'],
    ['timestamps and clock times', 'at 2026-05-01T02:03:04.567Z (Start at 09:31:54)', 'at <timestamp> (Start at <time>)'],
  ])('%s', (_, text, normal) => expect(normaliseText(text)).toBe(normal));

  test('and nothing else: code, counts and line numbers stay as they are', () => {
    const text = 'def median(values):\n    return ordered[len(ordered) // 2]  # 3 items, line 12\nexit code 1';
    expect(normaliseText(text)).toBe(text);
  });

  test('tool_use ids are renumbered in order of appearance, in calls and their results alike', () => {
    const normal = normaliseRequest(request([user('go'), call('toolu_abc', 'a.py'), result('toolu_abc', 'x')]));
    expect(normal.messages[1].content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.py' } }]);
    expect(normal.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }]);
  });

  test('two runs of one session have the same key; a different conversation does not', () => {
    const first = request([user('go'), call('toolu_1a', 'a.py'), result('toolu_1a', 'exit code 0 in 0.3s at /tmp/codeloop-eval-AAAAAA/c')]);
    const second = request([
      user('go'),
      call('toolu_9z', 'a.py'),
      result('toolu_9z', 'exit code 0 in 1.7s at /tmp/codeloop-eval-BBBBBB/c'),
    ]);
    expect(requestKey({ ...second, stream: true })).toBe(requestKey(first));
    expect(requestKey(request([user('go'), call('toolu_1a', 'b.py'), result('toolu_1a', 'x')]))).not.toBe(requestKey(first));
  });
});

describe('where a request parted from its recording', () => {
  const recorded = [
    request([user('go')]),
    request([user('go'), call('t1', 'a.py'), result('t1', 'one line')]),
    request([user('go'), call('t1', 'a.py'), result('t1', 'one line'), call('t2', 'b.py'), result('t2', 'b')]),
  ].map((body, index) => indexExchange('/r/case.jsonl', index, body));

  test('a tool result that differs: the request it should have been, and the message, recorded against now', () => {
    const divergence = findDivergence(request([user('go'), call('t1', 'a.py'), result('t1', 'two lines')]), recorded)!;
    expect(divergence).toMatchObject({ request: 2, file: 'case.jsonl', where: 'message 3 (user: tool_result)' });
    expect(describeDivergence(divergence)).toBe(
      'diverged at request 2 of case.jsonl: first differing message: message 3 (user: tool_result): ' +
        'recorded "[tool_result] one line", now "[tool_result] two lines"',
    );
  });

  test('a conversation longer than any recorded one: the message the recording never had', () => {
    const longer = request([
      user('go'),
      call('t1', 'a.py'),
      result('t1', 'one line'),
      call('t2', 'b.py'),
      result('t2', 'b'),
      call('t3', 'c.py'),
      result('t3', 'c'),
    ]);
    expect(findDivergence(longer, recorded)).toMatchObject({
      request: 3,
      where: 'message 6 (assistant: tool_use)',
      recorded: '(none: the recorded request ended before it)',
      now: '[tool_use read_file {"path":"c.py"}]',
    });
  });

  test('another system prompt is named as such, at the first character that differs', () => {
    expect(findDivergence(request([user('go')], 'You are codeloop.\n\n# Task\n\n## Fix that\n'), recorded)).toMatchObject({
      request: 1,
      where: 'the system prompt',
      recorded: expect.stringContaining('## Fix it'),
      now: expect.stringContaining('## Fix that'),
    });
  });
});
