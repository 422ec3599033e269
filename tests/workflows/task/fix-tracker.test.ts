import { expect, test } from 'vitest';
import { FixTracker } from '../../../src/workflows/task/fix-tracker.js';

const failure = (iteration: number, error: string, file?: string) => ({ iteration, source: 'run_tests', file, error });

test('the same error 3 times escalates, whatever the line numbers and paths', () => {
  const tracker = new FixTracker();
  expect(tracker.record(failure(1, 'AssertionError at /tmp/a/test_x.py:10: expected 2 got 3'))).toBeUndefined();
  expect(tracker.record(failure(2, 'AssertionError at /tmp/b/test_x.py:14: expected 2 got 3'))).toBeUndefined();
  expect(tracker.record(failure(3, 'AssertionError at /var/c/test_x.py:99: expected 2 got 3'))).toBe('the same error 3 times (run_tests)');
  expect(tracker.history()).toContain('1. iteration 1, run_tests: AssertionError at /tmp/a/test_x.py:10');
  expect(tracker.history().split('\n')).toHaveLength(3);
});

test('the same file 3 times escalates, even with different errors', () => {
  const tracker = new FixTracker();
  tracker.record(failure(1, 'no match for block A', 'src/app.ts'));
  tracker.record(failure(2, 'unexpected token', 'src/app.ts'));
  expect(tracker.record(failure(3, 'type error', 'src/app.ts'))).toBe('3 failures in src/app.ts');
});

test('5 different failures in all escalate; a reset starts the count again', () => {
  const tracker = new FixTracker();
  for (let n = 1; n <= 4; n++) expect(tracker.record(failure(n, `distinct problem ${'abcd'[n - 1]}`, `f${n}.ts`))).toBeUndefined();
  expect(tracker.record(failure(5, 'distinct problem e', 'f5.ts'))).toBe('5 failures since the last green run');
  tracker.reset();
  expect(tracker.record(failure(6, 'distinct problem e', 'f5.ts'))).toBeUndefined();
});

test('the count survives continue-as-new through its carry', () => {
  const tracker = new FixTracker();
  tracker.record(failure(1, 'boom'));
  tracker.record(failure(2, 'boom'));
  expect(new FixTracker(tracker.carry()).record(failure(3, 'boom'))).toBe('the same error 3 times (run_tests)');
});
