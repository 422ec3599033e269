import { ApplicationFailure } from '@temporalio/common';
import { expect, test } from 'vitest';
import { iterationBudget, parseTaskInput } from '../../src/shared/task-input.js';

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

test('the default budget scales with complexity: 30 × (1 + (c − 1) × 0.5)', () => {
  expect([1, 2, 3, 4, 5].map(iterationBudget)).toEqual([30, 45, 60, 75, 90]);
  expect(parseTaskInput({ description: 'x', workspace: '/tmp/x', complexity: 3 }).maxIterations).toBe(60);
});

test('an explicit maxIterations wins over complexity', () => {
  expect(parseTaskInput({ description: 'x', workspace: '/tmp/x', complexity: 5, maxIterations: 12 }).maxIterations).toBe(12);
});

test('the budget is clamped to 15–100', () => {
  expect(iterationBudget(0)).toBe(15);
  expect(iterationBudget(-3)).toBe(15);
  expect(iterationBudget(7)).toBe(100);
  expect(iterationBudget(20)).toBe(100);
});

test('complexity outside 1–5 is bad input', () => {
  expect(() => parseTaskInput({ description: 'x', workspace: '/tmp/x', complexity: 6 })).toThrow(/complexity/);
});

test('an unknown key is refused by name, with the known key it most likely meant', () => {
  expect(() => parseTaskInput({ description: 'x', workspace: '/tmp/x', aproval: 'always' })).toThrow(
    'invalid task input: unknown key "aproval" (did you mean "approval"?)',
  );
  expect(() => parseTaskInput({ description: 'x', workspace: '/tmp/x', max_iterations: 5 })).toThrow(
    'unknown key "max_iterations" (did you mean "maxIterations"?)',
  );
  expect(() => parseTaskInput({ description: 'x', workspace: '/tmp/x', colour: 'red' })).toThrow(/unknown key "colour"$/);
});

test.each([
  ['/', 'is the root of the file system'],
  ['//', '"//" (/) is the root of the file system'],
  ['/etc', 'is a system directory'],
  ['/etc/', '"/etc/" (/etc) is a system directory'],
  ['/usr/local/src/app', 'is inside the system directory /usr'],
  ['/tmp/../etc/nginx', 'is inside the system directory /etc'],
  ['/./proc/1/root', 'is inside the system directory /proc'],
  ['/lib64/x', 'is inside the system directory /lib64'],
  ['/tmp', 'is a system directory'],
  ['/tmp/a/..', '"/tmp/a/.." (/tmp) is a system directory'],
  ['/var/', 'is a system directory'],
  ['/home', 'is a system directory'],
  ['/root', 'is a home directory itself; pass the checkout inside it, e.g. /root/project'],
  ['/home/alice/', 'is a home directory itself; pass the checkout inside it, e.g. /home/alice/project'],
  ['/home//alice/src/..', '(/home/alice) is a home directory itself'],
])('workspace %s is refused, and the message says why and what to pass instead', (workspace, why) => {
  let message = '';
  try {
    parseTaskInput({ description: 'x', workspace });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain(`invalid task input: workspace: `);
  expect(message).toContain(why);
  expect(message).toMatch(/pass the checkout/);
});

test.each([
  '/tmp/x',
  '/home/alice/project',
  '/root/project',
  '/var/lib/builds/app',
  '/opt/app',
  '/srv/checkouts/app',
  '/workspace',
  '/tmp/.codeloop-worktrees/r/b/t',
])('workspace %s is a normal checkout', (workspace) => {
  expect(parseTaskInput({ description: 'x', workspace }).workspace).toBe(workspace);
});
