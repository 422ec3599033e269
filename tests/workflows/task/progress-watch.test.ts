import { expect, test } from 'vitest';
import { fileCountOf, ProgressWatch, readTurnBudget } from '../../../src/workflows/task/progress-watch.js';

const read = (path: string) => ({ name: 'read_file', input: { path } });
const edit = (path: string) => ({ name: 'edit_file', input: { path, edits: [] } });

test('12 reads in parallel over three turns are exploration: nothing to say', () => {
  const watch = new ProgressWatch();
  const turns = [
    [1, 2, 3, 4, 5],
    [6, 7, 8, 9],
    [10, 11, 12],
  ].map((files) => files.map((n) => read(`src/f${n}.py`)));
  expect(turns.map((calls) => watch.observe(calls, readTurnBudget(20)))).toEqual([undefined, undefined, undefined]);
});

test('turns that only repeat reads already made, with nothing changed since: a finding at the 3rd, and at the 6th', () => {
  const watch = new ProgressWatch();
  const calls = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'].map(read);
  const findings = calls.map((call) => watch.observe([call], 20));
  expect(findings.map((finding) => finding?.kind)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    'read-only',
    undefined,
    undefined,
    'read-only',
  ]);
  expect(findings[5]?.message).toBe('your last 3 turns only repeated reads you had already made, and nothing changed since');
});

test('a read after a change is new again', () => {
  const watch = new ProgressWatch();
  for (const call of [read('a'), read('b'), edit('a'), read('a'), read('b'), edit('b'), read('a'), read('b')]) {
    expect(watch.observe([call], 8)).toBeUndefined();
  }
});

test('reading new things for more turns than the repository explains: a finding at the budget and at twice it', () => {
  const watch = new ProgressWatch();
  const findings = Array.from({ length: 16 }, (_, n) => watch.observe([read(`f${n}`)], 8));
  expect(findings.flatMap((finding, index) => (finding ? [[index + 1, finding.message]] : []))).toEqual([
    [8, 'you have only read for 8 turns in a row'],
    [16, 'you have only read for 16 turns in a row'],
  ]);
});

test('the read budget grows with the repository', () => {
  expect(readTurnBudget(10)).toBe(8);
  expect(readTurnBudget(400)).toBe(28);
  expect(readTurnBudget(100_000)).toBe(40);
  expect(fileCountOf('a\nb\nsrc/\n… 147 more')).toBe(150);
  expect(fileCountOf('')).toBe(0);
});

test('the same call 3 times in a row, and an A/B cycle, still count as loops', () => {
  const repeat = new ProgressWatch();
  const ls = { name: 'run_command', input: { command: 'ls' } };
  expect([repeat.observe([ls], 8), repeat.observe([ls], 8), repeat.observe([ls], 8)].map((finding) => finding?.kind)).toEqual([
    undefined,
    undefined,
    'repeat',
  ]);
  const cycle = new ProgressWatch();
  const a = edit('x');
  const b = { name: 'run_tests', input: {} };
  const findings = [a, b, a, b, a, b].map((call) => cycle.observe([call], 8));
  expect(findings.at(-1)).toMatchObject({ kind: 'cycle' });
});

test('the state carries across continue-as-new', () => {
  const watch = new ProgressWatch();
  watch.observe([read('a')], 8);
  watch.observe([read('b')], 8);
  const next = new ProgressWatch(watch.carry());
  expect([next.observe([read('a')], 8), next.observe([read('b')], 8)]).toEqual([undefined, undefined]);
  expect(next.observe([read('a')], 8)).toMatchObject({ kind: 'read-only' });
});
