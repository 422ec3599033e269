import { describe, expect, test } from 'vitest';
import type { Blocker, BlockerOrigin } from '../../src/shared/blockers.js';
import { BlockerDesk } from '../../src/workflows/common/blocker-desk.js';

let asked = 0;
const blocker = (origin: BlockerOrigin, status: Blocker['status'] = 'answered'): Blocker => {
  asked += 1;
  return { id: `b${asked}`, question: `${origin} question ${asked}`, origin, askedAt: '2026-01-01T00:00:00.000Z', status, answer: 'yes' };
};
const carried = (blockers: Blocker[]) => new BlockerDesk({ blockers, rejected: [], nextId: asked + 1 }, () => undefined).carry().blockers;

describe('BlockerDesk.carry', () => {
  test('answered questions all survive however many operational blockers follow them', () => {
    const question = blocker('agent');
    const finalQuestion = blocker('final-question');
    const approvals = Array.from({ length: 60 }, () => blocker('approval'));
    const budgets = Array.from({ length: 10 }, () => blocker('budget'));
    const kept = carried([question, ...approvals, finalQuestion, ...budgets]);
    expect(kept[0]).toBe(question);
    expect(kept).toContain(finalQuestion);
    // Only the latest 50 operational ones travel: 40 approvals and the 10 budget answers.
    expect(kept.filter((entry) => entry.origin === 'approval')).toEqual(approvals.slice(-40));
    expect(kept.filter((entry) => entry.origin === 'budget')).toEqual(budgets);
    expect(kept).toHaveLength(52);
  });

  test('open blockers always travel; an unanswered agent question counts as operational once it timed out', () => {
    const open = blocker('agent', 'open');
    const timedOut = blocker('agent', 'timed-out');
    const retries = Array.from({ length: 50 }, () => blocker('credentials'));
    const kept = carried([open, timedOut, ...retries]);
    expect(kept).toEqual([open, ...retries]);
  });

  test('more than 50 answered questions are all kept, in the order asked', () => {
    const questions = Array.from({ length: 70 }, (_, index) => blocker(index % 2 ? 'agent' : 'final-question'));
    expect(carried(questions)).toEqual(questions);
  });
});
