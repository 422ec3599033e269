import { describe, expect, test } from 'vitest';
import {
  cannotGoOn,
  classifyFinalQuestion,
  finalTurnBlocker,
  openQuestionsIn,
  questionsIn,
} from '../../src/workflows/task/final-question.js';

describe('blocking questions', () => {
  test.each([
    ['Should deleting a task also delete its subtasks, or keep them?', 'requirements'],
    ['The PRD is unclear here. Which format should the export use: CSV or JSON?', 'requirements'],
    ['Before I can continue: what is the expected behaviour for duplicate titles?', 'requirements'],
    ['I need an API key for the payments sandbox. Can you provide one?', 'access'],
    ['The tests need the staging database. What are the credentials?', 'access'],
    ['Which endpoint does the billing service live at?', 'external-service'],
    ['The inventory service is unreachable from here. Is it down?', 'external-service'],
  ])('%s', (text, category) => {
    expect(classifyFinalQuestion(text)).toBe(category);
  });
});

describe('questions that let the task complete', () => {
  test.each([
    'Added the delete command and its tests; all pass.',
    'Done. Would you like me to add a --force flag too?',
    'Implemented. Let me know if you want any changes?',
    'I named the helper remove_task; is that function name OK?',
    'Shall I also update the README?',
    'Finished. Anything else?',
  ])('%s', (text) => {
    expect(classifyFinalQuestion(text)).toBeUndefined();
  });
});

test('questionsIn finds each question sentence', () => {
  expect(questionsIn('Done. Which one? And why? No.')).toEqual(['Which one?', 'And why?']);
  expect(questionsIn('No questions here.')).toEqual([]);
});

describe('statements that the work cannot go on', () => {
  test.each([
    ['I cannot proceed without the API key.', 'I cannot proceed without the API key.', 'access'],
    [
      "Wrote the parser. I'm unable to continue until the PRD says which date format to use.",
      "I'm unable to continue until the PRD says which date format to use.",
      'requirements',
    ],
    [
      'Blocked on the billing service: its endpoint is unreachable from here.',
      'Blocked on the billing service: its endpoint is unreachable from here.',
      'external-service',
    ],
    [
      "We can't go further: the spec contradicts itself on refunds.",
      "We can't go further: the spec contradicts itself on refunds.",
      'requirements',
    ],
  ])('%s', (text, statement, category) => {
    expect(cannotGoOn(text)).toEqual({ statement, category });
  });

  test.each([
    'Added the delete command and its tests; all pass.',
    'Could not reproduce the crash the issue describes, so I added a regression test for it instead.',
    'The old code could not continue after an error; now it retries.',
    'Fixed: users were unable to proceed past the login page.',
    'Can I proceed with the migration?',
  ])('not: %s', (text) => {
    expect(cannotGoOn(text)).toBeUndefined();
  });
});

test('a file name or a version inside a sentence does not cut it: only a stop followed by a space or the end does', () => {
  const text = 'Added b.txt next to a.txt. Should b.txt follow the same format as v1.2?';
  expect(questionsIn(text)).toEqual(['Should b.txt follow the same format as v1.2?']);
  // As runs from before the rule read it, for their replays.
  expect(questionsIn(text, 'legacy')).toEqual(['2?']);
});

describe('a final turn is a blocker only while the work is not done', () => {
  const closing = 'Added the delete command. Should the confirmation also be skippable with --yes?';
  test.each([
    [{ changed: true, gatesFailing: false }, undefined],
    [{ changed: false, gatesFailing: false }, 'requirements'],
    [{ changed: true, gatesFailing: true }, 'requirements'],
  ])('%o', (work, category) => {
    expect(finalTurnBlocker(closing, work)?.category).toBe(category);
  });
  test('what it asks, and what it says it lacks, stay open', () => {
    expect(openQuestionsIn(`${closing} I cannot proceed with the deployment without the API key.`)).toEqual([
      'Should the confirmation also be skippable with --yes?',
      'I cannot proceed with the deployment without the API key.',
    ]);
  });
});
