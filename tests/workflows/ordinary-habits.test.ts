import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { getStateQuery } from '../../src/shared/messages.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import type { RecordedRequest, ScriptedTurn } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('habits');

const userText = (request: RecordedRequest) => JSON.stringify(request.body.messages.filter((message) => message.role === 'user'));
const read = (...paths: string[]): ScriptedTurn => ({ toolCalls: paths.map((file) => ({ name: 'read_file', input: { path: file } })) });
const run = (command: string): ScriptedTurn => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

/** A small Python library: twelve modules, one of them with the function the task renames the operands of. */
function library(): string {
  const modules = Object.fromEntries(
    Array.from({ length: 9 }, (_, n) => [`calc/unit${n + 1}.py`, `"""Unit ${n + 1}."""\n\nFACTOR = ${n + 1}\n`]),
  );
  return makeWorkspace({
    'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'calc/__init__.py': '"""Arithmetic helpers."""\n',
    'calc/ops.py': '"""Two-number operations."""\n\n\ndef add(a, b):\n    """The sum of two numbers."""\n    return a + b\n',
    'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    ...modules,
  });
}

describe("a capable model's ordinary habits", () => {
  test('12 reads over three turns, 5 failing exploratory commands, an edit with pasted line numbers and a closing question: completed, no blocker', async () => {
    const workspace = library();
    const units = Array.from({ length: 9 }, (_, n) => `calc/unit${n + 1}.py`);
    const question = 'Should subtract and multiply get named operands too?';
    harness.fake.enqueue(
      read('calc/ops.py', 'tests/test_ops.py', 'calc/__init__.py', 'pyproject.toml', units[0]!),
      read(...units.slice(1, 5)),
      read(...units.slice(5, 8)),
      run('grep -rn "first_operand" calc'),
      run('python3 -c "import tracker"'),
      run('ls build'),
      run('python3 -m pytest -q tests/test_missing.py'),
      run('cat setup.cfg'),
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: {
              path: 'calc/ops.py',
              edits: [
                {
                  search: '4 | def add(a, b):\n5 |     """The sum of two numbers."""\n6 |     return a + b',
                  replace:
                    '4 | def add(first_operand, second_operand):\n5 |     """The sum of two numbers."""\n6 |     return first_operand + second_operand',
                },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'run_tests', input: {} }] },
      (request) => {
        expect(userText(request)).not.toContain('Note from codeloop');
        expect(userText(request)).not.toContain('Escalating');
        // The five exploratory commands all failed, and went back to the model as errors.
        expect(userText(request).match(/"is_error":true/g)).toHaveLength(5);
        return { text: `Renamed add's operands to first_operand and second_operand; the tests pass. ${question}` };
      },
    );
    const handle = await harness.start({ title: 'Name the operands', description: 'Give add() descriptive operand names', workspace });
    const result = (await handle.result()) as TaskResult;

    expect(result).toMatchObject({ status: 'completed', verification: 'verified', openQuestions: [question], iterations: 11 });
    const ops = readFileSync(path.join(workspace, 'calc/ops.py'), 'utf8');
    expect(ops).toContain(
      'def add(first_operand, second_operand):\n    """The sum of two numbers."""\n    return first_operand + second_operand\n',
    );
    expect(ops).not.toMatch(/^\s*\d+ \| /m);
    const state = await handle.query(getStateQuery);
    expect(state.answeredBlockers).toEqual([]);
    expect(state.openBlockers).toEqual([]);
    expect(state.openQuestions).toEqual([question]);
    await recordHistory('task-ordinary-habits', handle);
  });

  test('a test that runs a console script which is not installed comes back as gate feedback; never reported as passed', async () => {
    const workspace = makeWorkspace({
      'pyproject.toml': '[project]\nname = "tracker"\nversion = "0.1.0"\n\n[project.scripts]\ntracker = "tracker.cli:main"\n',
      'tracker/__init__.py': '',
      'tracker/cli.py': 'import sys\n\n\ndef main():\n    print("added", " ".join(sys.argv[2:]))\n',
      'tracker/__main__.py': 'from tracker.cli import main\n\nmain()\n',
    });
    const test = (command: string) =>
      `import subprocess\n\n\ndef test_add():\n    done = subprocess.run(${command}, capture_output=True, text=True)\n    assert done.returncode == 0, done.stderr\n    assert "added milk" in done.stdout\n`;
    harness.fake.enqueue(
      { toolCalls: [{ name: 'create_file', input: { path: 'tests/test_cli.py', content: test('"tracker add milk", shell=True') } }] },
      { text: 'Added a CLI test.' },
      (request) => {
        const feedback = JSON.stringify(request.body.messages.at(-1)!.content);
        expect(feedback).toContain('Verification failed (correction round 1 of 5)');
        expect(feedback).toContain('## tests failed');
        expect(feedback).toContain('tracker: not found');
        expect(feedback).toMatch(/_+ test_add _+/);
        return {
          toolCalls: [
            {
              name: 'edit_file',
              input: {
                path: 'tests/test_cli.py',
                edits: [
                  { search: '"tracker add milk", shell=True', replace: '[sys.executable, "-m", "tracker", "add", "milk"]' },
                  { search: 'import subprocess\n', replace: 'import subprocess\nimport sys\n' },
                ],
              },
            },
          ],
        };
      },
      { text: 'The test runs the CLI through python -m, which needs no install.' },
    );
    const handle = await harness.start({ title: 'CLI test', description: 'Test the add command end to end', workspace });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', verification: 'verified' });
    expect(result.gates).toMatchObject([{ name: 'tests', passed: true }]);
    expect((await handle.query(getStateQuery)).correctionRounds).toBe(1);
  });
});
