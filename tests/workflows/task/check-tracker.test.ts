import { expect, test } from 'vitest';
import { CheckTracker } from '../../../src/workflows/task/check-tracker.js';

const fail = (tracker: CheckTracker, iteration: number, check: string, error: string, file?: string) =>
  tracker.record({ iteration, check, error, file });

test('five failing exploratory commands are five checks failing once each: no escalation', () => {
  const tracker = new CheckTracker();
  const commands = ['grep -rn TODO src', 'python3 -c "import tracker"', 'ls build', 'python3 -m pytest tests/test_cli.py', 'cat setup.cfg'];
  expect(commands.map((command, index) => fail(tracker, index + 1, `command:${command}`, `exit code 1: ${command} failed`))).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test('the same check failing the same way after each change escalates at the third', () => {
  const tracker = new CheckTracker();
  const verdicts = [1, 2, 3].map((iteration) => {
    tracker.changed();
    return fail(tracker, iteration, 'tests', `AssertionError at /tmp/run${iteration}/test_x.py:1${iteration}: expected 2 got 3`);
  });
  expect(verdicts).toEqual([undefined, undefined, 'the same error 3 times (tests)']);
  expect(tracker.history()).toContain('3. iteration 3, tests: AssertionError');
});

test('a check failing again with nothing changed is the same observation, not an attempt', () => {
  const tracker = new CheckTracker();
  tracker.changed();
  for (let iteration = 1; iteration <= 5; iteration++) expect(fail(tracker, iteration, 'tests', 'boom')).toBeUndefined();
  expect(tracker.history().split('\n')).toHaveLength(1);
});

test("a gate's failures always count: finishing is an attempt", () => {
  const tracker = new CheckTracker();
  const verdicts = [1, 2, 3].map((iteration) =>
    tracker.record({ iteration, check: 'gate:marker', error: 'DONE is missing', always: true }),
  );
  expect(verdicts[2]).toBe('the same error 3 times (gate:marker)');
});

test("one file's lint failing 3 times after changes escalates, whatever the errors; a clean lint starts it again", () => {
  const tracker = new CheckTracker();
  const lint = (iteration: number, error: string) => {
    tracker.changed();
    return fail(tracker, iteration, 'lint:src/app.ts', error, 'src/app.ts');
  };
  expect([lint(1, 'unexpected token'), lint(2, 'missing semicolon')]).toEqual([undefined, undefined]);
  tracker.passed('lint:src/app.ts');
  expect(lint(3, 'type error')).toBeUndefined();
  expect(lint(4, 'unused variable')).toBeUndefined();
  expect(lint(5, 'another one')).toBe('3 failures in src/app.ts');
});

test('five different failures of one check after changes escalate', () => {
  const tracker = new CheckTracker();
  const verdicts = ['a', 'b', 'c', 'd', 'e'].map((letter, index) => {
    tracker.changed();
    return fail(tracker, index + 1, 'tests', `distinct problem ${letter}`);
  });
  expect(verdicts.at(-1)).toBe('5 failures of tests since it last passed');
});

test('the count survives continue-as-new through its carry', () => {
  const tracker = new CheckTracker();
  tracker.changed();
  fail(tracker, 1, 'tests', 'boom');
  tracker.changed();
  fail(tracker, 2, 'tests', 'boom');
  const next = new CheckTracker(tracker.carry());
  next.changed();
  expect(fail(next, 3, 'tests', 'boom')).toBe('the same error 3 times (tests)');
});
