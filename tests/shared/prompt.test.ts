import { expect, test } from 'vitest';
import { buildSystemPrompt, wantsOutline } from '../../src/workflows/task/prompt.js';
import { parseTaskInput } from '../../src/shared/task-input.js';

const project = {
  instructions: [{ file: 'AGENTS.md', content: 'Use tabs. Every command needs a test.' }],
  techStack: ['Python', 'pytest'],
  fileTree: 'app.py\ntests/\ntests/test_app.py',
  greenfield: false,
};

test('the prompt has three layers: base rules, the project, the task', () => {
  const task = parseTaskInput({
    title: 'Delete command',
    description: 'Add a delete command with confirmation',
    workspace: '/w',
    prd: 'P'.repeat(21_000),
  });
  const prompt = buildSystemPrompt(task, project, [{ question: 'Soft delete?', answer: 'No, hard delete.' }]);
  const [rules, projectLayer, taskLayer] = [prompt.indexOf('You are codeloop'), prompt.indexOf('# Project'), prompt.indexOf('# Task')];
  expect(rules).toBe(0);
  expect(projectLayer).toBeGreaterThan(rules);
  expect(taskLayer).toBeGreaterThan(projectLayer);
  expect(prompt).toContain('## Instructions from AGENTS.md\nUse tabs. Every command needs a test.');
  expect(prompt).toContain('## Tech stack\nPython, pytest');
  expect(prompt).toContain('tests/test_app.py');
  expect(prompt).toContain('## Delete command\n\nAdd a delete command with confirmation');
  expect(prompt).toContain('## Requirements document (truncated;');
  expect(prompt).toContain(`${'P'.repeat(20_000)}\n… [truncated: 1000 more characters]`);
  expect(prompt).toContain('## Questions already answered by a human\nQ: Soft delete?\nA: No, hard delete.');
  expect(prompt).not.toContain('<outline>');
});

test('answers from an earlier run go into the task layer; complex and greenfield tasks are asked for an outline', () => {
  const task = parseTaskInput({
    description: 'Build it',
    workspace: '/w',
    answers: [{ question: 'Which DB?', answer: 'SQLite' }],
    complexity: 3,
  });
  const prompt = buildSystemPrompt(task, project);
  expect(prompt).toContain('Q: Which DB?\nA: SQLite');
  expect(prompt).toContain('<outline></outline>');
  expect(wantsOutline(parseTaskInput({ description: 'x', workspace: '/w' }), { ...project, greenfield: true })).toBe(true);
  expect(wantsOutline(parseTaskInput({ description: 'x', workspace: '/w' }), project)).toBe(false);
});

test('the same input gives the same bytes: the prompt cache depends on it', () => {
  const task = parseTaskInput({ description: 'x', workspace: '/w' });
  expect(buildSystemPrompt(task, project)).toBe(buildSystemPrompt(task, project));
});

test('with a survey of the sandbox, the prompt says what is true there: network, tools, imports, gates and budget', () => {
  const surveyed = {
    ...project,
    gates: [{ name: 'tests', command: 'PYTHONPATH=src python3 -m pytest -q', timeoutSeconds: 300 }],
    sandbox: {
      tools: [
        { name: 'python3', version: '3.11.7' },
        { name: 'pytest', version: '9.2.0' },
      ],
      missing: ['ruff', 'mypy'],
      imports: ['the tests import `humble` from src/humble/, in this workspace'],
    },
  };
  const prompt = buildSystemPrompt(parseTaskInput({ description: 'x', workspace: '/w', maxIterations: 25 }), surveyed);
  expect(prompt.indexOf('# Where your commands run')).toBeGreaterThan(prompt.indexOf('# Project'));
  expect(prompt.indexOf('# Where your commands run')).toBeLessThan(prompt.indexOf('# Task'));
  expect(prompt).toContain('## Network: off\nCommands reach no network');
  expect(prompt).toContain('Installed: python3 3.11.7, pytest 9.2.0.');
  expect(prompt).toContain("Not installed, though the project's configuration names them: ruff, mypy.");
  expect(prompt).toContain('The tests import `humble` from src/humble/, in this workspace.');
  expect(prompt).toContain('- tests: `PYTHONPATH=src python3 -m pytest -q`');
  expect(prompt).toContain('## Budget\n25 iterations');
  const online = buildSystemPrompt(parseTaskInput({ description: 'x', workspace: '/w', network: 'on' }), { ...surveyed, gates: [] });
  expect(online).toContain('## Network: on\n');
  expect(online).toContain('## Checks when you finish\nNone: nothing checks the work');
  expect(buildSystemPrompt(parseTaskInput({ description: 'x', workspace: '/w' }), project)).not.toContain('# Where your commands run');
});
