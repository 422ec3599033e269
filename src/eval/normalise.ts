/**
 * What may differ between two runs of the same session without the session having changed, and nothing else.
 * Replay compares a request with its recording after both went through `normaliseRequest`:
 *
 * - the path of the eval's copy of the fixture, `<dir>/codeloop-eval-<random>` → `<eval-dir>` (it is in command
 *   output: pytest's rootdir, tracebacks, compiler errors);
 * - timestamps (`2026-05-01T02:03:04.567Z` → `<timestamp>`) and clock times (`02:03:04` → `<time>`);
 * - durations (`in 0.4s`, `12ms`, `duration_ms 3.2` → `<duration>`): every command result says how long it took;
 * - `tool_use` ids, renumbered in order of appearance (`toolu_1`, `toolu_2`, …): they are the model's own, so
 *   a recording made from another run's responses still lines up.
 *
 * Everything else (the model, the system prompt, the tools, every message, its order and its cache breakpoints) must
 * be byte-identical.
 */

/** A Messages API request body as codeloop sends it. */
export interface ApiRequest {
  model: string;
  max_tokens: number;
  system?: string | { type: 'text'; text: string; [field: string]: unknown }[];
  messages: { role: 'user' | 'assistant'; content: string | Record<string, any>[] }[];
  tools?: Record<string, unknown>[];
  [field: string]: unknown;
}

const RULES: [RegExp, string][] = [
  [/(?:\/[^\s/"'`\\:]+)*\/codeloop-eval-[A-Za-z0-9]+/g, '<eval-dir>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<timestamp>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, '<time>'],
  [/\bduration_ms:? \d+(?:\.\d+)?/g, 'duration_ms <duration>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, '<duration>'],
];

export function normaliseText(text: string): string {
  return RULES.reduce((result, [pattern, placeholder]) => result.replace(pattern, placeholder), text);
}

/** The request with what legitimately varies replaced (see above); `stream` is left out, since both ways answer alike. */
export function normaliseRequest(request: ApiRequest): ApiRequest {
  const { stream: _stream, ...rest } = request;
  const ids = new Map<string, string>();
  const renumber = (id: unknown) => {
    if (typeof id !== 'string') return id;
    if (!ids.has(id)) ids.set(id, `toolu_${ids.size + 1}`);
    return ids.get(id);
  };
  const messages = rest.messages.map((message) => ({
    ...message,
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => {
            if (block.type === 'tool_use') return { ...block, id: renumber(block.id) };
            if (block.type === 'tool_result') return { ...block, tool_use_id: renumber(block.tool_use_id) };
            return block;
          }),
  }));
  return mapStrings({ ...rest, messages }, normaliseText) as ApiRequest;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

/** JSON with object keys sorted, so two equal values always give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The key a request is looked up by: its normalised, canonical form. */
export const requestKey = (request: ApiRequest): string => canonicalJson(normaliseRequest(request));
