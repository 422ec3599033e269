import { expect, test } from 'vitest';
import { renderReport, type Report } from '../../src/client/report.js';
import { renderResult } from '../../src/client/task-view.js';
import { emptyUsage } from '../../src/shared/conversation.js';
import type { TaskResult } from '../../src/shared/task-state.js';

const unverifiedGate = {
  name: 'tests',
  command: 'python3 -m pytest -q',
  passed: false,
  unavailable: true,
  unverified: 'pytest is not installed where the gates run',
  timedOut: false,
  durationMs: 40,
  summary: 'not run',
};

test('the morning report shows an unverified task with why, and the open questions of finished work', () => {
  const report: Report = {
    since: '2026-11-26T00:00:00.000Z',
    taskQueue: 'codeloop',
    tasks: { completed: 2 },
    tokens: 0,
    costUsd: 0,
    spendByPurpose: {},
    rows: [
      {
        workflowId: 'delete-command',
        kind: 'task',
        status: 'completed',
        summary: 'Added the delete command.',
        verification: 'unverified',
        unverifiedBecause: ['tests: pytest is not installed where the gates run'],
        openQuestions: ['Should the confirmation also be skippable with --yes?'],
        tokens: 0,
        costUsd: 0,
      },
      {
        workflowId: 'median',
        kind: 'task',
        status: 'completed',
        summary: 'Fixed median.',
        verification: 'verified',
        tokens: 0,
        costUsd: 0,
      },
    ],
  };
  const text = renderReport(report);
  expect(text).toContain(
    [
      'completed:',
      '  delete-command  [unverified] Added the delete command.',
      '    not verified: tests: pytest is not installed where the gates run',
      '    open question: Should the confirmation also be skippable with --yes?',
      '  median  Fixed median.',
    ].join('\n'),
  );
});

test("task status shows the verification, each gate's verdict and the open questions", () => {
  const result: TaskResult = {
    status: 'completed',
    summary: 'Added the delete command.',
    iterations: 4,
    filesChanged: ['cli.py'],
    usage: emptyUsage(),
    costUsd: 0,
    gates: [unverifiedGate],
    verification: 'unverified',
    openQuestions: ['Should the confirmation also be skippable with --yes?'],
    elapsedMs: 1_000,
    runs: 1,
  };
  const lines = renderResult(result);
  expect(lines).toContain('  verification: unverified (tests: pytest is not installed where the gates run)');
  expect(lines).toContain('  open question: Should the confirmation also be skippable with --yes?');
  expect(lines).toContain('  gate tests: UNVERIFIED: pytest is not installed where the gates run (python3 -m pytest -q)');
});
