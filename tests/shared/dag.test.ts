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
  test('a long chain does not look like a cycle, in either order, far deeper than the call stack goes', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => node(`t${i}`, ...(i ? [`t${i - 1}`] : [])));
    expect(findCycle(chain)).toBeUndefined();
    expect(dagProblems([...chain].reverse())).toEqual([]);
  });
  test('a cycle closing a long chain is still found, named from the first task listed', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => node(`t${i}`, i ? `t${i - 1}` : 't49999'));
    const [problem] = dagProblems(chain.reverse());
    expect(problem.startsWith('cycle: t49999 → t0 → t1 → ')).toBe(true);
    expect(problem.endsWith(' → t49998 → t49999')).toBe(true);
    expect(problem.split(' → ')).toHaveLength(50_001);
  });
});

test('transitive dependents and the critical path', () => {
  const nodes = [node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c'), node('e')];
  expect(transitiveDependents(nodes, 'a').sort()).toEqual(['b', 'c', 'd']);
  const durations: Record<string, number> = { a: 1, b: 5, c: 2, d: 1, e: 6 };
  expect(criticalPath(nodes, (id) => durations[id])).toEqual({ ids: ['a', 'b', 'd'], durationMs: 7 });
});

describe('criticalPath', () => {
  test('ties go to the first dependency and the first task listed', () => {
    const nodes = [node('a'), node('b'), node('c', 'a', 'b'), node('d', 'b')];
    expect(criticalPath(nodes, () => 1)).toEqual({ ids: ['a', 'c'], durationMs: 2 });
  });
  test('tasks that did not run (0 ms) are left off the ends of the path', () => {
    const durations: Record<string, number> = { a: 0, b: 3, c: 0 };
    expect(criticalPath([node('a'), node('b', 'a'), node('c', 'b')], (id) => durations[id])).toEqual({ ids: ['b'], durationMs: 3 });
    expect(criticalPath([node('a'), node('b', 'a')], () => 0)).toEqual({ ids: [], durationMs: 0 });
  });
  test('a chain of 50,000 listed in reverse is walked whole', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => node(`t${i}`, ...(i ? [`t${i - 1}`] : [])));
    const path = criticalPath([...chain].reverse(), () => 2);
    expect(path.durationMs).toBe(100_000);
    expect(path.ids).toEqual(chain.map((n) => n.id));
  });
  test('a cycle (never validated in) ends the walk instead of looping', () => {
    expect(criticalPath([node('a', 'b'), node('b', 'a')], () => 1)).toEqual({ ids: ['b', 'a'], durationMs: 2 });
  });
});

test('transitive dependents of a wide fan-out, nearest first', () => {
  const fan = [node('root'), ...Array.from({ length: 20_000 }, (_, i) => node(`leaf${i}`, 'root')), node('tail', 'leaf7')];
  const dependents = transitiveDependents(fan, 'root');
  expect(dependents).toHaveLength(20_001);
  expect(dependents.at(-1)).toBe('tail');
});

describe('scheduler', () => {
  const states = (): BatchTaskState[] =>
    [node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c')].map((n) => ({
      ...n,
      title: n.id,
      status: 'pending',
      childWorkflowId: n.id,
      attempts: 0,
    }));
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
