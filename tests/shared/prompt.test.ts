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
    prd: 'P'.repeat(6_000),
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
  expect(prompt).toContain(`${'P'.repeat(5_000)}\n… [truncated: 1000 more characters]`);
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
