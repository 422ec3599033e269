import { describe, expect, test } from 'vitest';
import { checkPlan, planTree, type Plan } from '../../src/shared/plan.js';
import { reviewVerdict } from '../../src/workflows/plan/review.js';

const task = (id: string, dependsOn: string[] = [], files: string[] = []) => ({
  id,
  title: `T ${id}`,
  description: `do ${id}`,
  dependsOn,
  complexity: 2,
  acceptance: [`${id} done`],
  files,
});

const planOf = (raw: unknown, maxTasks = 12): Plan => {
  const checked = checkPlan(raw, maxTasks);
  if (!('plan' in checked)) throw new Error(checked.problems.join('; '));
  return checked.plan;
};

describe('checkPlan', () => {
  test('names every problem the batch would, plus the task limit and missing fields', () => {
    expect(checkPlan({ tasks: [task('a', ['b']), task('b', ['a'])] }, 12)).toEqual({ problems: ['cycle: a → b → a'] });
    expect(checkPlan({ tasks: [task('a'), task('a'), task('c', ['zz'])] }, 12)).toEqual({
      problems: ['duplicate task id: a', 'task c depends on unknown task zz'],
    });
    expect(checkPlan({ tasks: [task('a'), task('b'), task('c')] }, 2)).toEqual({
      problems: ['3 tasks is more than the 2 allowed; merge the smallest ones'],
    });
    const missing = checkPlan({ tasks: [{ id: 'a', title: 'A', description: 'x', complexity: 1 }] }, 12);
    expect(missing).toEqual({ problems: [expect.stringContaining('tasks.0.acceptance')] });
    expect(checkPlan({ tasks: [{ ...task('a'), owner: 'me' }] }, 12)).toEqual({
      problems: [expect.stringContaining('unknown key "owner"')],
    });
  });

  test('tasks that share a file and have no path between them are ordered, and the plan says so; connected ones are left', () => {
    const plan = planOf([task('a', [], ['x.py']), task('b', [], ['x.py', 'y.py']), task('c', ['b'], ['y.py']), task('d', [], ['z.py'])]);
    expect(plan.tasks.map((t) => [t.id, t.dependsOn])).toEqual([
      ['a', []],
      ['b', ['a']],
      ['c', ['b']],
      ['d', []],
    ]);
    expect(plan.orderingNotes).toEqual(['b now waits for a: both change x.py']);
  });

  test('the tree nests each task under its first dependency and names the others', () => {
    const plan = planOf([task('a'), task('b', ['a']), task('c', ['a']), task('d', ['b', 'c'])]);
    expect(planTree(plan)).toBe(
      [
        '- a: T a (complexity 2)',
        '  - b: T b (complexity 2)',
        '    - d: T d (complexity 2, also after c)',
        '  - c: T c (complexity 2)',
      ].join('\n'),
    );
  });
});

describe('reviewVerdict', () => {
  test('approve, reject with and without a reason', () => {
    expect(reviewVerdict(' Approve ', 12)).toEqual({ kind: 'approve' });
    expect(reviewVerdict('approved.', 12)).toEqual({ kind: 'approve' });
    expect(reviewVerdict('reject: too coarse', 12)).toEqual({ kind: 'reject', reason: 'too coarse' });
    expect(reviewVerdict('REJECT', 12)).toEqual({ kind: 'reject', reason: 'no reason given' });
  });

  test('a fenced YAML plan is checked and used; prose and broken plans are unclear and say why', () => {
    const yaml = '```yaml\n- id: a\n  title: A\n  description: do a\n  complexity: 1\n  acceptance: [works]\n```';
    expect(reviewVerdict(yaml, 12)).toMatchObject({ kind: 'revised', plan: { tasks: [{ id: 'a', dependsOn: [] }] } });
    expect(reviewVerdict('looks good to me', 12)).toEqual({
      kind: 'unclear',
      problem: "the answer is neither 'approve', 'reject <why>' nor a plan in YAML",
    });
    expect(reviewVerdict('- id: a\n  dependsOn: [a]\n  title: A\n  description: d\n  complexity: 1\n  acceptance: [x]', 12)).toEqual({
      kind: 'unclear',
      problem: 'task a depends on itself',
    });
    expect(reviewVerdict('tasks: [', 12)).toMatchObject({ kind: 'unclear', problem: expect.stringContaining('nor a plan in YAML (') });
  });
});
