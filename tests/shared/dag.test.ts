import { describe, expect, test } from 'vitest';
import { criticalPath, dagProblems, findCycle, transitiveDependents } from '../../src/shared/dag.js';
import { readyTasks, reviveForRetry, skipDependents } from '../../src/workflows/batch/scheduler.js';
import type { BatchTaskState } from '../../src/shared/batch-state.js';

const node = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });

describe('dagProblems', () => {
  test('a valid DAG has none', () => {
    expect(dagProblems([node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c')])).toEqual([]);
  });
  test('each kind of problem is named', () => {
    expect(dagProblems([node('a'), node('a')])).toEqual(['duplicate task id: a']);
    expect(dagProblems([node('a', 'x')])).toEqual(['task a depends on unknown task x']);
    expect(dagProblems([node('a', 'a')])).toEqual(['task a depends on itself']);
    expect(dagProblems([node('a', 'b'), node('b', 'a')])).toEqual(['cycle: a → b → a']);
    expect(dagProblems([node('x'), node('a', 'c', 'x'), node('b', 'a'), node('c', 'b')])).toEqual(['cycle: a → b → c → a']);
  });
  test('a long chain does not look like a cycle', () => {
    const chain = Array.from({ length: 500 }, (_, i) => node(`t${i}`, ...(i ? [`t${i - 1}`] : [])));
    expect(findCycle(chain)).toBeUndefined();
  });
});

test('transitive dependents and the critical path', () => {
  const nodes = [node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c'), node('e')];
  expect(transitiveDependents(nodes, 'a').sort()).toEqual(['b', 'c', 'd']);
  const durations: Record<string, number> = { a: 1, b: 5, c: 2, d: 1, e: 6 };
  expect(criticalPath(nodes, (id) => durations[id])).toEqual({ ids: ['a', 'b', 'd'], durationMs: 7 });
});

describe('scheduler', () => {
  const states = (): BatchTaskState[] =>
    [node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c')].map((n) => ({ ...n, title: n.id, status: 'pending', childWorkflowId: n.id, attempts: 0 }));
  const status = (list: BatchTaskState[]) => Object.fromEntries(list.map((t) => [t.id, t.status]));

  test('ready means every dependency completed; "continue" accepts any settled one', () => {
    const list = states();
    expect(readyTasks(list, 'skip-dependents').map((t) => t.id)).toEqual(['a']);
    list[0].status = 'failed';
    expect(readyTasks(list, 'skip-dependents')).toEqual([]);
    expect(readyTasks(list, 'continue').map((t) => t.id)).toEqual(['b', 'c']);
  });

  test('a failure skips its transitive dependents; retry brings them back', () => {
    const list = states();
    list[0].status = 'failed';
    expect(skipDependents(list, 'a').sort()).toEqual(['b', 'c', 'd']);
    expect(status(list)).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', d: 'skipped' });
    expect(reviveForRetry(list, 'b')).toBe('task b is skipped, not failed');
    expect(reviveForRetry(list, 'a')).toBeUndefined();
    expect(status(list)).toEqual({ a: 'pending', b: 'pending', c: 'pending', d: 'pending' });
  });
});
