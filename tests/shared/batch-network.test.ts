import { expect, test } from 'vitest';
import { parseBatchInput } from '../../src/shared/batch-input.js';
import { TaskInputSchema } from '../../src/shared/task-input.js';
import { childInput } from '../../src/workflows/batch/child-input.js';

/**
 * A batch's network list reaches each task's input (and through it the task's proxy), a task's own list replaces it,
 * and the child's input is one the task workflow accepts as it is.
 */

const where = { workspace: '/repo/.codeloop-worktrees/night/a', hostQueue: 'codeloop@host' };

test("a batch's network list is each task's unless the task names its own; both are valid task input", () => {
  const batch = parseBatchInput({
    workspace: '/repo',
    network: ['registry.npmjs.org', 'pypi.org:443'],
    tasks: [
      { id: 'a', title: 'A', description: 'a' },
      { id: 'b', title: 'B', description: 'b', network: ['files.pythonhosted.org'] },
      { id: 'c', title: 'C', description: 'c', network: 'off' },
    ],
  });
  const inputs = batch.tasks.map((task) => childInput(batch, task, { status: 'pending' } as never, where));
  expect(inputs.map((input) => input.network)).toEqual([['registry.npmjs.org', 'pypi.org:443'], ['files.pythonhosted.org'], 'off']);
  for (const input of inputs) expect(TaskInputSchema.parse(input).network).toEqual(input.network);
});

test('a network list with a scheme or a path is refused, naming the entry', () => {
  expect(() =>
    parseBatchInput({ workspace: '/repo', network: ['https://registry.npmjs.org/'], tasks: [{ id: 'a', title: 'A', description: 'a' }] }),
  ).toThrow(/registry\.npmjs\.org/);
});
