import path from 'node:path';
import { canonicalJson, normaliseRequest, type ApiRequest } from './normalise.js';
import type { Recording } from './recording.js';

/**
 * Where a replayed request parted from its recording, told the way a reader debugs it: which recorded request it
 * should have been, and the first message that differs, recorded text against new text.
 */
export interface Divergence {
  /** 1-based position, in its recording, of the request this one should have matched. */
  request: number;
  file: string;
  /** What differs first: `message 4 (user: tool_result)`, `the system prompt`, … */
  where: string;
  recorded: string;
  now: string;
}

/** Normalised once per recorded request, for the search below. */
export interface IndexedExchange {
  file: string;
  index: number;
  system: string;
  tools: string;
  settings: string;
  messages: string[];
  rendered: string[];
  roles: string[];
}

export function indexExchange(file: string, index: number, request: ApiRequest): IndexedExchange {
  const normal = normaliseRequest(request);
  const { system, tools, messages, ...settings } = normal;
  return {
    file,
    index,
    system: systemText(system),
    tools: canonicalJson(tools ?? []),
    settings: canonicalJson(settings),
    messages: messages.map(canonicalJson),
    rendered: messages.map(renderMessage),
    roles: messages.map(describeRole),
  };
}

export const indexRecording = (recording: Recording): IndexedExchange[] =>
  recording.exchanges.map((exchange, index) => indexExchange(recording.file, index, exchange.request));

/**
 * The recorded request closest to `request`: the same system prompt and tools first, then the longest run of equal
 * leading messages, then the nearest number of messages (the request at the same point of the conversation).
 */
export function findDivergence(request: ApiRequest, recorded: IndexedExchange[]): Divergence | undefined {
  if (recorded.length === 0) return undefined;
  const now = indexExchange('', 0, request);
  const score = (entry: IndexedExchange) => {
    const prefix = commonPrefix(entry.messages, now.messages);
    return [
      entry.system === now.system ? 1 : 0,
      entry.tools === now.tools ? 1 : 0,
      prefix,
      -Math.abs(entry.messages.length - now.messages.length),
    ];
  };
  let best = recorded[0];
  let bestScore = score(best);
  for (const entry of recorded.slice(1)) {
    const candidate = score(entry);
    if (compareScores(candidate, bestScore) > 0) [best, bestScore] = [entry, candidate];
  }
  return { request: best.index + 1, file: path.basename(best.file), ...firstDifference(best, now) };
}

function firstDifference(recorded: IndexedExchange, now: IndexedExchange): Pick<Divergence, 'where' | 'recorded' | 'now'> {
  if (recorded.system !== now.system) return { where: 'the system prompt', ...excerpts(recorded.system, now.system) };
  if (recorded.tools !== now.tools) return { where: 'the tool definitions', ...excerpts(recorded.tools, now.tools) };
  if (recorded.settings !== now.settings) return { where: 'the model settings', ...excerpts(recorded.settings, now.settings) };
  const at = commonPrefix(recorded.messages, now.messages);
  const role = now.roles[at] ?? recorded.roles[at];
  const where = `message ${at + 1} (${role})`;
  if (at >= recorded.messages.length) {
    return { where, recorded: '(none: the recorded request ended before it)', now: clip(now.rendered[at]) };
  }
  if (at >= now.messages.length) return { where, recorded: clip(recorded.rendered[at]), now: '(none: this request ended before it)' };
  return { where, ...excerpts(recorded.rendered[at], now.rendered[at]) };
}

const EXCERPT_CHARS = 160;

/** Both texts around the first character where they differ. */
function excerpts(recorded: string, now: string): { recorded: string; now: string } {
  let at = 0;
  while (at < recorded.length && at < now.length && recorded[at] === now[at]) at++;
  const start = Math.max(0, at - EXCERPT_CHARS / 4);
  const cut = (text: string) =>
    `${start > 0 ? '…' : ''}${text.slice(start, start + EXCERPT_CHARS)}${text.length > start + EXCERPT_CHARS ? '…' : ''}`;
  return { recorded: cut(recorded), now: cut(now) };
}

const clip = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/** A message as a reader scans it: its text, tool calls and tool results, one after another. */
function renderMessage(message: ApiRequest['messages'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'tool_use') return `[tool_use ${block.name} ${JSON.stringify(block.input)}]`;
      if (block.type === 'tool_result') return `[tool_result${block.is_error ? ' (error)' : ''}] ${toolResultText(block.content)}`;
      return `[${block.type}]`;
    })
    .join('\n');
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : JSON.stringify(part))).join('\n');
  return JSON.stringify(content);
}

function describeRole(message: ApiRequest['messages'][number]): string {
  const kinds = typeof message.content === 'string' ? ['text'] : [...new Set(message.content.map((block) => String(block.type)))];
  return `${message.role}: ${kinds.join(', ')}`;
}

function systemText(system: ApiRequest['system']): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((block) => `${block.text}${block.cache_control ? ' [cache_control]' : ''}`).join('\n');
}

function commonPrefix(a: string[], b: string[]): number {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return at;
}

function compareScores(a: number[], b: number[]): number {
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return a[index] - b[index];
  return 0;
}

/** `diverged at request 3 of case.jsonl: first differing message: message 4 (user: tool_result): recorded "…", now "…"`. */
export function describeDivergence(divergence: Divergence): string {
  const lead = divergence.where.startsWith('message') ? 'first differing message' : 'first difference';
  return (
    `diverged at request ${divergence.request} of ${divergence.file}: ${lead}: ${divergence.where}: ` +
    `recorded ${JSON.stringify(divergence.recorded)}, now ${JSON.stringify(divergence.now)}`
  );
}
