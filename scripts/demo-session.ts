import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { byTurn, type Responder } from '../tests/support/fake-messages-api.js';

/** The demo's scratch project: a tiny task list in plain Node, tested with `node --test`. */
const files: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'demo-tasks', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'AGENTS.md': '# Conventions\n- Plain ES modules, no dependencies.\n- Every exported function has a test in test/.\n',
  'src/tasks.mjs': [
    'const tasks = [];',
    '',
    'export function addTask(title) {',
    '  const task = { id: tasks.length + 1, title };',
    '  tasks.push(task);',
    '  return task;',
    '}',
    '',
    'export function listTasks() {',
    '  return [...tasks];',
    '}',
    '',
  ].join('\n'),
  'test/tasks.test.mjs': [
    "import test from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { addTask, listTasks } from '../src/tasks.mjs';",
    '',
    "test('addTask adds a task', () => {",
    "  addTask('write docs');",
    "  assert.deepEqual(listTasks().map((task) => task.title), ['write docs']);",
    '});',
    '',
  ].join('\n'),
};

export function makeDemoWorkspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-demo-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

/** The scripted model: explore, edit the code, add a test, run the tests, summarise. */
export function demoResponder(): Responder {
  return byTurn([
    {
      text: "I'll look at the project first.",
      toolCalls: [
        { name: 'list_files', input: {} },
        { name: 'read_file', input: { path: 'src/tasks.mjs' } },
        { name: 'read_file', input: { path: 'test/tasks.test.mjs' } },
      ],
    },
    {
      text: 'Adding removeTask next to the other functions.',
      toolCalls: [
        {
          name: 'edit_file',
          input: {
            path: 'src/tasks.mjs',
            edits: [
              {
                search: 'export function listTasks() {\n  return [...tasks];\n}',
                replace:
                  'export function listTasks() {\n  return [...tasks];\n}\n\nexport function removeTask(id) {\n  const index = tasks.findIndex((task) => task.id === id);\n  if (index === -1) return false;\n  tasks.splice(index, 1);\n  return true;\n}',
              },
            ],
          },
        },
      ],
    },
    {
      text: 'Now a test for it.',
      toolCalls: [
        {
          name: 'edit_file',
          input: {
            path: 'test/tasks.test.mjs',
            edits: [
              {
                search: "import { addTask, listTasks } from '../src/tasks.mjs';",
                replace: "import { addTask, listTasks, removeTask } from '../src/tasks.mjs';",
              },
              {
                search: "  assert.deepEqual(listTasks().map((task) => task.title), ['write docs']);\n});",
                replace:
                  "  assert.deepEqual(listTasks().map((task) => task.title), ['write docs']);\n});\n\ntest('removeTask removes a task by id', () => {\n  const task = addTask('temporary');\n  assert.equal(removeTask(task.id), true);\n  assert.equal(removeTask(task.id), false);\n  assert.ok(!listTasks().some((t) => t.id === task.id));\n});",
              },
            ],
          },
        },
      ],
    },
    { text: 'Running the tests.', toolCalls: [{ name: 'run_tests', input: {} }] },
    { text: 'Added removeTask(id) to src/tasks.mjs (returns false for an unknown id) and a test for it; `npm test` passes.' },
  ]);
}
