import type { Usage } from '../../shared/conversation.js';

/** USD per million tokens. Cache writes cost 1.25× input (5-minute TTL), cache reads 0.1×: Anthropic's price list. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

interface ModelEntry {
  pattern: RegExp;
  price: ModelPrice;
  contextWindow: number;
  /** Some models bill the whole request at a higher rate once the prompt passes a size. */
  longPrompt?: { aboveTokens: number; price: ModelPrice };
}

const price = (input: number, output: number): ModelPrice => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

/**
 * Published prices as of November 2026 (platform.claude.com model pages), first match wins. A model not listed is
 * priced as Sonnet 5.5, codeloop's default.
 */
const MODELS: ModelEntry[] = [
  { pattern: /fable/, price: price(10, 50), contextWindow: 1_000_000 },
  { pattern: /opus-5-5/, price: price(4, 20), contextWindow: 1_000_000 },
  { pattern: /opus-5/, price: price(5, 25), contextWindow: 1_000_000 },
  { pattern: /opus-4-[5-9]/, price: price(5, 25), contextWindow: 200_000 },
  { pattern: /opus/, price: price(15, 75), contextWindow: 200_000 },
  { pattern: /sonnet-5/, price: price(2, 10), contextWindow: 1_000_000 },
  { pattern: /sonnet/, price: price(3, 15), contextWindow: 200_000 },
  { pattern: /haiku-5/, price: price(0.1, 0.5), contextWindow: 1_000_000, longPrompt: { aboveTokens: 100_000, price: price(0.5, 2.5) } },
  { pattern: /haiku-4/, price: price(1, 5), contextWindow: 200_000 },
  { pattern: /3-5-haiku|haiku-3-5/, price: price(0.8, 4), contextWindow: 200_000 },
  { pattern: /haiku/, price: price(0.25, 1.25), contextWindow: 200_000 },
  { pattern: /./, price: price(2, 10), contextWindow: 1_000_000 },
];

const lookup = (model: string) => MODELS.find((entry) => entry.pattern.test(model))!;

/** The rates for a request of `promptTokens` (input, cache reads and writes together). */
export function priceOf(model: string, promptTokens = 0): ModelPrice {
  const entry = lookup(model);
  return entry.longPrompt && promptTokens > entry.longPrompt.aboveTokens ? entry.longPrompt.price : entry.price;
}

export function contextWindowOf(model: string): number {
  return lookup(model).contextWindow;
}

/** What a call's usage cost, cache reads and writes at their own rates. */
export function costOf(usage: Usage, model: string): number {
  const rates = priceOf(model, usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
  return (
    (usage.inputTokens * rates.input +
      usage.outputTokens * rates.output +
      usage.cacheWriteTokens * rates.cacheWrite +
      usage.cacheReadTokens * rates.cacheRead) /
    1_000_000
  );
}

/**
 * The most the next call can cost: every input token at the full input price (no cache hit assumed) and the whole
 * output allowance. Checking this before the call is what keeps a cap from being crossed by one call.
 */
export function projectedCost(inputTokens: number, maxOutputTokens: number, model: string): number {
  const rates = priceOf(model, inputTokens);
  return (inputTokens * rates.input + maxOutputTokens * rates.output) / 1_000_000;
}

/** Four characters a token: the usual estimate for English and code, used before a request is sent. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
