import { ApplicationFailure } from '@temporalio/common';
import { expect, test } from 'vitest';
import { parseTaskInput } from '../../src/shared/task-input.js';

test('defaults are filled and the title comes from the description when missing', () => {
  const input = parseTaskInput({ description: 'Add a delete command\nwith confirmation', workspace: '/tmp/x' });
  expect(input).toMatchObject({ title: 'Add a delete command', maxIterations: 30, workspace: '/tmp/x' });
});

test('bad input fails non-retryably, naming every bad field', () => {
  let caught: unknown;
  try {
    parseTaskInput({ description: '', workspace: 'rel', maxIterations: 0 });
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ApplicationFailure);
  const failure = caught as ApplicationFailure;
  expect(failure.nonRetryable).toBe(true);
  expect(failure.type).toBe('InvalidInput');
  expect(failure.message).toMatch(/description: must describe the task/);
  expect(failure.message).toMatch(/workspace: must be an absolute path/);
  expect(failure.message).toMatch(/maxIterations:/);
});
