import { expect, test } from 'vitest';
import { answeredQuestions, type Blocker } from '../../src/shared/blockers.js';

const blocker = (id: string, origin: Blocker['origin'], status: Blocker['status'], answer?: string): Blocker => ({
  id,
  origin,
  status,
  answer,
  question: `question ${id}`,
  askedAt: '2026-11-22T00:00:00Z',
});

test('only answers to questions about the task reach the prompt, not approvals, budgets or retries', () => {
  const blockers = [
    blocker('b1', 'agent', 'answered', 'PostgreSQL 16'),
    blocker('b2', 'approval', 'answered', 'approve'),
    blocker('b3', 'budget', 'answered', 'continue'),
    blocker('b4', 'final-question', 'answered', 'Keep the flag'),
    blocker('b5', 'credentials', 'answered', 'retry'),
    blocker('b6', 'agent', 'timed-out'),
    blocker('b7', 'agent', 'open'),
  ];
  expect(answeredQuestions(blockers)).toEqual([
    { question: 'question b1', answer: 'PostgreSQL 16' },
    { question: 'question b4', answer: 'Keep the flag' },
  ]);
});
