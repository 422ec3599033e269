import { describe, expect, test } from 'vitest';
import type { Message } from '../../../src/shared/conversation.js';
import { SUMMARY_HEADING } from '../../../src/workflows/common/compaction.js';
import { compactIfNeeded } from '../../../src/workflows/common/compactor.js';

const KICKOFF = 'Start the task "Totals". Explore the workspace, make the change, verify it, then reply with a summary.';
const WINDOW = 20_000;

interface Exchange {
  text?: string;
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError?: boolean;
}

/** The kickoff, then one assistant turn (optional text, one tool call) and its result per exchange. */
function conversation(exchanges: Exchange[], opening = KICKOFF): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: opening }] }];
  exchanges.forEach(({ text, name, input, result, isError }, index) => {
    const said = text ? [{ type: 'text' as const, text }] : [];
    messages.push({ role: 'assistant', content: [...said, { type: 'tool_use', id: `t${index}`, name, input }] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: result, ...(isError ? { is_error: true } : {}) }],
    });
  });
  return messages;
}

/** Exchanges whose long reasoning no tier but the summary can shrink: 12 × ~1,500 tokens is past 85% of 20K. */
const chatter = (count: number): Exchange[] =>
  Array.from({ length: count }, (_, n) => ({
    text: `thinking aloud ${n} ${'z'.repeat(6_000)}`,
    name: 'list_files',
    input: { path: `d${n}` },
    result: 'a.py',
  }));

const firstText = (messages: Message[]) => (messages[0].content[0] as { text: string }).text;

describe('tier 3', () => {
  test('keeps the kickoff, the last 5 exchanges, and the output of unresolved errors verbatim', async () => {
    const failure = `FAILED tests/test_totals.py::test_sum - ${'assert 3 == 4 '.repeat(300)}end of the failure`;
    const messages = conversation([
      { name: 'run_tests', input: {}, result: failure, isError: true },
      { name: 'edit_file', input: { path: 'totals.py' }, result: 'no match for the search text in totals.py', isError: true },
      { name: 'edit_file', input: { path: 'totals.py' }, result: 'edited totals.py' },
      ...chatter(12),
    ]);
    const summarised: Message[][] = [];
    const compacted = await compactIfNeeded('', messages, WINDOW, async (older) => {
      summarised.push(older);
      return '- sum is still wrong';
    });

    expect(compacted?.report.tier).toBe(3);
    const text = firstText(compacted!.messages);
    expect(
      text.startsWith(`${KICKOFF}\n\n${SUMMARY_HEADING}\n- sum is still wrong\n\nErrors not resolved yet, verbatim:\n\n### run_tests\n`),
    ).toBe(true);
    // Cut to 2,000 chars, keeping both ends of the failure.
    expect(text).toContain(failure.slice(0, 1_000));
    expect(text).toContain(failure.slice(-1_000));
    expect(text).toContain(`[${failure.length - 2_000} characters omitted]`);
    expect(text).not.toContain('no match for the search text');
    expect(compacted!.messages.slice(1)).toEqual(messages.slice(-10));
    expect(summarised).toEqual([messages.slice(0, -10)]);
    expect(compacted!.report.after.tokens).toBeLessThan(WINDOW * 0.85);
  });

  test('an error fixed within the last 5 exchanges is not kept', async () => {
    const messages = conversation([
      { name: 'run_command', input: { command: 'python totals.py' }, result: 'NameError: name total is not defined', isError: true },
      ...chatter(10),
      { name: 'run_tests', input: {}, result: '3 passed' },
      ...chatter(2),
    ]);
    const compacted = await compactIfNeeded('', messages, WINDOW, async () => 'summary');
    expect(compacted?.report.tier).toBe(3);
    expect(firstText(compacted!.messages)).toBe(`${KICKOFF}\n\n${SUMMARY_HEADING}\nsummary`);
  });

  test('verbatim errors stay within 8,000 chars, the latest kept', async () => {
    const failures = Array.from({ length: 6 }, (_, n) => ({
      name: 'run_command',
      input: { command: `./check ${n}` },
      result: `check ${n} failed: ${'e'.repeat(1_980)}`,
      isError: true,
    }));
    const compacted = await compactIfNeeded('', conversation([...failures, ...chatter(12)]), WINDOW, async () => 'summary');
    const text = firstText(compacted!.messages);
    expect([0, 1, 2, 3, 4, 5].map((n) => text.includes(`### run_command ./check ${n}\ncheck ${n} failed`))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(text.length - text.indexOf('### run_command')).toBeLessThanOrEqual(8_000);
  });

  test('a second compaction keeps the kickoff once and gives the earlier summary to the summariser', async () => {
    const earlier = `${KICKOFF}\n\n${SUMMARY_HEADING}\n- first summary`;
    const messages = conversation(chatter(13), earlier);
    let transcriptStart = '';
    const compacted = await compactIfNeeded('', messages, WINDOW, async (older) => {
      transcriptStart = firstText(older);
      return '- second summary';
    });
    expect(transcriptStart).toBe(earlier);
    expect(firstText(compacted!.messages)).toBe(`${KICKOFF}\n\n${SUMMARY_HEADING}\n- second summary`);
  });

  test('below 85% of the window nothing is compacted', async () => {
    expect(await compactIfNeeded('', conversation(chatter(8)), WINDOW, async () => 'unused')).toBeUndefined();
  });
});
