import { expect, test } from 'vitest';
import { extractOutline } from '../../src/workflows/task/outline.js';
import { iterationBudget } from '../../src/shared/task-input.js';

test('the outline is what the tags hold', () => {
  expect(extractOutline('Plan:\n<outline>\n1. a.py\n2. b.py\n</outline>\nGo.')).toBe('1. a.py\n2. b.py');
  expect(extractOutline('no plan')).toBeUndefined();
  expect(extractOutline('<outline>  </outline>')).toBeUndefined();
});

test("the adaptive iteration budget is CodeFRAME's, clamped to 15-100", () => {
  expect([1, 2, 3, 4, 5].map(iterationBudget)).toEqual([30, 45, 60, 75, 90]);
});
