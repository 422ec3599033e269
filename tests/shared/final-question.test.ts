import { describe, expect, test } from 'vitest';
import { classifyFinalQuestion, questionsIn } from '../../src/workflows/task/final-question.js';

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
