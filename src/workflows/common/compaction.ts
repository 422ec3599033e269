import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../../shared/conversation.js';
import { estimateTokens } from './pricing.js';
import { truncateMiddle } from '../../text/truncate.js';

/** Compact at 85% of the model's context window. */
export const COMPACT_AT_WINDOW_SHARE = 0.85;
/**
 * Also compact before a model call's input (the whole conversation) nears Temporal's 512 KB payload warning: a
 * 200K-token window is ~800 KB of text, so the window alone would not keep payloads small.
 */
export const COMPACT_AT_PAYLOAD_BYTES = 384 * 1024;
/** The last exchanges (assistant turn + its results) are never compacted. */
export const KEEP_EXCHANGES = 5;
/** Compaction goes tier by tier until the conversation is below this share of either limit. */
const TARGET_SHARE = 0.5;
/** The tools' definitions, sent with every request. */
const TOOL_DEFINITION_TOKENS = 2_500;

export interface ConversationSize {
  tokens: number;
  bytes: number;
}

export function measure(system: string, messages: Message[]): ConversationSize {
  const text = JSON.stringify(messages);
  return { tokens: estimateTokens(system) + estimateTokens(text) + TOOL_DEFINITION_TOKENS, bytes: text.length + system.length };
}

export function needsCompaction(size: ConversationSize, contextWindow: number): boolean {
  return size.tokens > contextWindow * COMPACT_AT_WINDOW_SHARE || size.bytes > COMPACT_AT_PAYLOAD_BYTES;
}

export function isSmallEnough(size: ConversationSize, contextWindow: number): boolean {
  return size.tokens <= contextWindow * COMPACT_AT_WINDOW_SHARE * TARGET_SHARE && size.bytes <= COMPACT_AT_PAYLOAD_BYTES * TARGET_SHARE;
}

/** How many exchanges (assistant turns) the conversation holds. */
export const exchangeCount = (messages: Message[]) => messages.filter((message) => message.role === 'assistant').length;

/**
 * Index of the first message that must be kept whole: the assistant turn that opens the last `keep` exchanges. With
 * `keep` or fewer exchanges in all, only the first counts as older, so what the model just read is never masked.
 * `keepLatest: false` is how runs that compacted a short conversation before this rule decided (everything older).
 */
export function recentStart(messages: Message[], keep = KEEP_EXCHANGES, keepLatest = true): number {
  const assistantIndexes = messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []));
  if (assistantIndexes.length > keep) return assistantIndexes[assistantIndexes.length - keep];
  if (!keepLatest || assistantIndexes.length === 0) return messages.length;
  return assistantIndexes[Math.min(1, assistantIndexes.length - 1)];
}

interface CallInfo {
  use: ToolUseBlock;
  messageIndex: number;
  result?: ToolResultBlock;
}

/** Every tool call in order, with its result. */
function toolCalls(messages: Message[]): CallInfo[] {
  const calls = new Map<string, CallInfo>();
  messages.forEach((message, messageIndex) => {
    for (const block of message.content) {
      if (block.type === 'tool_use') calls.set(block.id, { use: block, messageIndex });
      if (block.type === 'tool_result' && calls.has(block.tool_use_id)) calls.get(block.tool_use_id)!.result = block;
    }
  });
  return [...calls.values()];
}

const targetOf = (call: CallInfo) => {
  const input = call.use.input as { path?: string; command?: string; test_path?: string };
  return input.path ?? input.command ?? input.test_path ?? '';
};

/**
 * An error stays until something later shows it fixed: a later successful call of the same tool on the same target
 * (or any later passing test run, for test and command failures).
 */
function unresolvedErrors(calls: CallInfo[]): Set<string> {
  const open = new Set<string>();
  calls.forEach((call, index) => {
    if (!call.result?.is_error) return;
    const later = calls.slice(index + 1).filter((other) => other.result && !other.result.is_error);
    const fixed = later.some(
      (other) =>
        (other.use.name === call.use.name && targetOf(other) === targetOf(call)) ||
        (['run_tests', 'run_command'].includes(call.use.name) && other.use.name === 'run_tests'),
    );
    if (!fixed) open.add(call.use.id);
  });
  return open;
}

/**
 * Rewrites the content of chosen tool results and tool inputs, leaving every tool_use/tool_result pair intact.
 * Before `dropThinkingBefore`, assistant turns lose their thinking blocks: the API needs only the latest turn's.
 */
function rewrite(messages: Message[], results: Map<string, string>, inputs: Map<string, unknown>, dropThinkingBefore = 0): Message[] {
  const thinking = (block: ContentBlock) => block.type === 'thinking' || block.type === 'redacted_thinking';
  return messages.map((message, index) => ({
    ...message,
    content: (index < dropThinkingBefore && message.content.some((block) => !thinking(block))
      ? message.content.filter((block) => !thinking(block))
      : message.content
    ).map((block) => {
      if (block.type === 'tool_result' && results.has(block.tool_use_id)) return { ...block, content: results.get(block.tool_use_id)! };
      if (block.type === 'tool_use' && inputs.has(block.id)) return { ...block, input: inputs.get(block.id) };
      return block;
    }),
  }));
}

const LARGE = 300;

/**
 * Tier 1: outside the last 5 exchanges, masks tool outputs and the bulky inputs of writes (file contents, edit
 * blocks), keeping a one-line stub of what was there. Unresolved errors stay whole.
 */
export function maskOldToolOutputs(messages: Message[], keepLatest = true): Message[] {
  const cut = recentStart(messages, KEEP_EXCHANGES, keepLatest);
  const calls = toolCalls(messages);
  const keep = unresolvedErrors(calls);
  const results = new Map<string, string>();
  const inputs = new Map<string, unknown>();
  for (const call of calls) {
    if (call.messageIndex >= cut) continue;
    const content = call.result?.content ?? '';
    if (call.result && !keep.has(call.use.id) && content.length > LARGE && !content.startsWith('[')) {
      results.set(
        call.use.id,
        `[output omitted to save context: ${content.length} chars from ${call.use.name} ${targetOf(call)}; call the tool again if you need it]`,
      );
    }
    const input = call.use.input as Record<string, unknown>;
    const bulky = Object.entries(input).filter(([, value]) => JSON.stringify(value).length > LARGE);
    if (bulky.length > 0) {
      inputs.set(call.use.id, {
        ...input,
        ...Object.fromEntries(bulky.map(([key, value]) => [key, `[omitted: ${JSON.stringify(value).length} chars]`])),
      });
    }
  }
  return rewrite(messages, results, inputs, cut);
}

/**
 * Tier 2, anywhere but the latest exchange: reads made stale by a later read or write of the same file, and the
 * output of test runs that passed.
 */
export function dropSupersededOutputs(messages: Message[], keepLatest = true): Message[] {
  const calls = toolCalls(messages);
  const lastExchange = recentStart(messages, 1, keepLatest);
  const results = new Map<string, string>();
  calls.forEach((call, index) => {
    if (!call.result || call.messageIndex >= lastExchange || call.result.content.startsWith('[')) return;
    const target = targetOf(call);
    if (call.use.name === 'read_file') {
      const later = calls
        .slice(index + 1)
        .find((other) => ['read_file', 'edit_file', 'create_file'].includes(other.use.name) && targetOf(other) === target);
      if (later) results.set(call.use.id, `[superseded by a later ${later.use.name} of ${target}]`);
    }
    if (call.use.name === 'run_tests' && !call.result.is_error) results.set(call.use.id, '[tests passed; output dropped]');
  });
  return rewrite(messages, results, new Map());
}

/**
 * Tier 3 splits the conversation: the older part goes to a summarising model call, the recent part (starting with
 * an assistant turn, so roles still alternate after the summary's user message) stays as it is.
 */
export function splitForSummary(messages: Message[], keepLatest = true): { older: Message[]; recent: Message[] } | undefined {
  const cut = recentStart(messages, KEEP_EXCHANGES, keepLatest);
  if (cut <= 1 || cut >= messages.length) return undefined;
  return { older: messages.slice(0, cut), recent: messages.slice(cut) };
}

/** Opens the message that replaces the older turns at tier 3; what comes before it is the task's kickoff. */
export const SUMMARY_HEADING = 'Summary of the work so far:';
/** An unresolved error kept verbatim is cut to this many chars (both ends kept: what failed, and how it ended). */
const UNRESOLVED_ERROR_CHARS = 2_000;
/** All unresolved errors kept verbatim at one compaction, the latest first to stay. */
const UNRESOLVED_ERRORS_TOTAL_CHARS = 8_000;

/**
 * The outputs of unresolved errors among the first `before` messages, verbatim. Tier 3 appends them to the summary,
 * so the exact message the agent still has to fix survives, not only the summariser's paraphrase of it.
 */
export function unresolvedErrorOutputs(messages: Message[], before: number): string {
  const calls = toolCalls(messages);
  const open = unresolvedErrors(calls);
  const sections: string[] = [];
  let total = 0;
  for (const call of calls.filter((candidate) => candidate.messageIndex < before && open.has(candidate.use.id)).reverse()) {
    const section = `### ${[call.use.name, targetOf(call)].filter(Boolean).join(' ')}\n${truncateMiddle(call.result!.content, UNRESOLVED_ERROR_CHARS)}`;
    if (total + section.length > UNRESOLVED_ERRORS_TOTAL_CHARS) break;
    sections.unshift(section);
    total += section.length;
  }
  return sections.length ? `\n\nErrors not resolved yet, verbatim:\n\n${sections.join('\n\n')}` : '';
}

/** The older turns as plain text for the summariser, outputs cut short. */
export function transcript(messages: Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text') lines.push(`${message.role}: ${block.text}`);
      if (block.type === 'thinking') lines.push(`${message.role} (thinking): ${block.thinking.slice(0, 300)}`);
      if (block.type === 'tool_use') lines.push(`tool call ${block.name}: ${JSON.stringify(block.input).slice(0, 300)}`);
      if (block.type === 'tool_result') lines.push(`result${block.is_error ? ' (error)' : ''}: ${block.content.slice(0, 600)}`);
    }
  }
  return lines.join('\n');
}

/** The summariser's output allowance. */
export const SUMMARY_MAX_TOKENS = 2_048;

/** A turn's text blocks, joined: the summary, or a final answer. */
export function finalText(content: readonly ContentBlock[]): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n')
    .trim();
}

export const SUMMARY_SYSTEM =
  "You summarise the earlier part of a coding agent's session so it can continue without it. Keep: what the task is, " +
  'decisions made, files created or changed and why, what was verified, errors still unresolved, and the next step. ' +
  'Be concise; use short bullet points.';
