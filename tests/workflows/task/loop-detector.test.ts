import { expect, test } from 'vitest';
import { LoopDetector } from '../../../src/workflows/task/loop-detector.js';

const call = (name: string, input: unknown = {}) => ({ name, input });

test('the same call three times in a row', () => {
  const detector = new LoopDetector();
  expect(detector.observe([call('run_command', { command: 'ls' })])).toBeUndefined();
  expect(detector.observe([call('run_command', { command: 'ls' })])).toBeUndefined();
  expect(detector.observe([call('run_command', { command: 'ls' })])).toMatchObject({ kind: 'repeat' });
});

test('an A/B cycle over six calls', () => {
  const detector = new LoopDetector();
  const a = call('edit_file', { path: 'a', edits: [] });
  const b = call('run_tests');
  for (let n = 0; n < 5; n++) expect(detector.observe([n % 2 ? b : a])).toBeUndefined();
  expect(detector.observe([b])).toMatchObject({ kind: 'cycle' });
});

test('five read-only calls in a row, then ten', () => {
  const detector = new LoopDetector();
  const findings = Array.from({ length: 10 }, (_, n) => detector.observe([call('read_file', { path: `f${n}` })]));
  expect(findings.map((finding) => finding?.kind)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    'read-only',
    undefined,
    undefined,
    undefined,
    undefined,
    'read-only',
  ]);
});

test('a write breaks the read-only streak; varied work is no loop', () => {
  const detector = new LoopDetector();
  for (let n = 0; n < 4; n++) detector.observe([call('read_file', { path: `f${n}` })]);
  detector.observe([call('edit_file', { path: 'x' })]);
  for (let n = 0; n < 4; n++) expect(detector.observe([call('read_file', { path: `g${n}` })])).toBeUndefined();
});

test('calls within one turn count in order, and the state carries across runs', () => {
  const detector = new LoopDetector();
  detector.observe([call('list_files'), call('list_files')]);
  expect(new LoopDetector(detector.carry()).observe([call('list_files')])).toMatchObject({ kind: 'repeat' });
});
