import { expect, test } from 'vitest';
import { contextWindowOf, costOf, priceOf, projectedCost } from '../../src/workflows/common/pricing.js';
import { Spend } from '../../src/workflows/common/spend.js';

test('prices per model family, cache reads and writes at their own rates', () => {
  const sonnet = priceOf('claude-sonnet-4-5');
  expect([sonnet.input, sonnet.output, sonnet.cacheWrite]).toEqual([3, 15, 3.75]);
  expect(sonnet.cacheRead).toBeCloseTo(0.3);
  expect(priceOf('claude-opus-4-1').input).toBe(15);
  expect(priceOf('claude-haiku-4-5').output).toBe(5);
  expect(priceOf('claude-sonnet-5-5')).toMatchObject({ input: 2, output: 10, cacheWrite: 2.5 });
  expect(priceOf('claude-opus-5-5')).toMatchObject({ input: 4, output: 20 });
  expect(contextWindowOf('claude-sonnet-5-5')).toBe(1_000_000);
  expect(contextWindowOf('claude-haiku-4-5')).toBe(200_000);
  expect(priceOf('some-future-model')).toEqual(priceOf('claude-sonnet-5-5'));
  const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
  expect(costOf(usage, 'claude-sonnet-4-5')).toBeCloseTo(3 + 15 + 0.3 + 3.75);
  expect(projectedCost(100_000, 8_192, 'claude-sonnet-4-5')).toBeCloseTo(0.3 + 0.12288);
});

test('a cap is judged before the call, and raised by an answer', () => {
  const spend = new Spend(undefined, { maxCostUsd: 0.2 });
  expect(spend.wouldExceed(10_000, 8_192, 'claude-sonnet-4-5')).toBeUndefined();
  spend.add(
    {
      content: [],
      stopReason: 'end_turn',
      model: 'claude-sonnet-4-5',
      usage: { inputTokens: 30_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    'default',
  );
  const hit = spend.wouldExceed(10_000, 8_192, 'claude-sonnet-4-5')!;
  expect(hit).toMatchObject({ cap: 'cost', message: expect.stringContaining('the cost cap of $0.20 would be exceeded') });
  expect(spend.raise(hit, 'no thanks')).toBe(false);
  expect(spend.raise(hit, 'raise to 1')).toBe(true);
  expect(spend.wouldExceed(10_000, 8_192, 'claude-sonnet-4-5')).toBeUndefined();
  expect(new Spend(spend.carry(), {}).costUsd).toBeCloseTo(0.09);
});

test("spend is kept by purpose, and a carry from before that counts as the agent's own", () => {
  const spend = new Spend(undefined, {});
  const turn = (model: string, inputTokens: number) => ({
    content: [],
    stopReason: 'end_turn',
    model,
    usage: { inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  spend.add(turn('claude-sonnet-4-5', 1_000_000), 'default');
  spend.add(turn('claude-sonnet-4-5', 1_000_000), 'default');
  spend.add(turn('claude-haiku-4-5', 1_000_000), 'summary');
  expect(spend.byPurpose.default).toMatchObject({ calls: 2, costUsd: 6, usage: { inputTokens: 2_000_000 } });
  expect(spend.byPurpose.summary).toMatchObject({ calls: 1, costUsd: 1 });
  expect(spend.costUsd).toBeCloseTo(7);
  const { byPurpose: _dropped, ...older } = spend.carry();
  expect(new Spend(older, {}).byPurpose).toEqual({ default: { calls: 0, usage: spend.usage, costUsd: spend.costUsd } });
});

test('a token cap counts every token kind', () => {
  const spend = new Spend(undefined, { maxTotalTokens: 11_000 });
  spend.add(
    {
      content: [],
      stopReason: null,
      model: 'm',
      usage: { inputTokens: 100, outputTokens: 100, cacheReadTokens: 900, cacheWriteTokens: 900 },
    },
    'summary',
  );
  expect(spend.wouldExceed(100, 8_192, 'm')).toBeUndefined();
  expect(spend.wouldExceed(100, 8_000 + 1_000, 'm')).toMatchObject({ cap: 'tokens' });
});

test('Haiku 5.5 bills a prompt over 100K tokens at its higher rate', () => {
  expect(priceOf('claude-haiku-5-5', 50_000).input).toBeCloseTo(0.1);
  expect(priceOf('claude-haiku-5-5', 150_000).input).toBeCloseTo(0.5);
  const small = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  expect(costOf(small, 'claude-haiku-5-5')).toBeCloseTo(0.5);
});
