import type { Usage } from './conversation.js';

/** USD per million tokens. Cache writes cost 1.25× input (5-minute TTL), cache reads 0.1×: Anthropic's price list. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const price = (input: number, output: number): ModelPrice => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

/** First match wins; an unknown model is priced as Sonnet, and its context window as 200K. */
const MODELS: { pattern: RegExp; price: ModelPrice; contextWindow: number }[] = [
  { pattern: /opus-4-[5-9]/, price: price(5, 25), contextWindow: 200_000 },
  { pattern: /opus/, price: price(15, 75), contextWindow: 200_000 },
  { pattern: /haiku-4/, price: price(1, 5), contextWindow: 200_000 },
  { pattern: /3-5-haiku|haiku-3-5/, price: price(0.8, 4), contextWindow: 200_000 },
  { pattern: /haiku/, price: price(0.25, 1.25), contextWindow: 200_000 },
  { pattern: /./, price: price(3, 15), contextWindow: 200_000 },
];

const lookup = (model: string) => MODELS.find((entry) => entry.pattern.test(model))!;

export function priceOf(model: string): ModelPrice {
  return lookup(model).price;
}

export function contextWindowOf(model: string): number {
  return lookup(model).contextWindow;
}

/** What a call's usage cost, cache reads and writes at their own rates. */
export function costOf(usage: Usage, model: string): number {
  const rates = priceOf(model);
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
  const rates = priceOf(model);
  return (inputTokens * rates.input + maxOutputTokens * rates.output) / 1_000_000;
}

/** Four characters a token: the usual estimate for English and code, used before a request is sent. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
