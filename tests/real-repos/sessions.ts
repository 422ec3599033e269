import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { GateResult } from '../../src/shared/gates.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import type { RecordedRequest, ScriptedTurn } from '../support/fake-messages-api.js';
import { ruffOnlyDirectory } from '../support/ruff.js';
import { useTaskHarness } from '../support/task-harness.js';
import { checkoutOf, type PublishedProject } from './fetch-project.js';

/** One replacement in one file, as `edit_file` takes it. */
export interface Change {
  search: string;
  replace: string;
}

/** A published project and two scripted sessions on it: a correct change, and a change that breaks a test. */
export interface RealRepoScenario {
  project: PublishedProject;
  /** The file both sessions edit. */
  file: string;
  correct: Change;
  bug: Change & { newFailure: string };
  /** Test ids that fail on the checkout as published, on this machine, before anything changes. */
  failingBefore: string[];
  /** The gates the checkout has; each must end no worse than it started. */
  gates: string[];
  /** What lint-on-edit says about the correct change: the linter, and whether the file had findings already. */
  lint?: { linter: string; preExisting: boolean };
  /** A codeloop.json the user put in the checkout, or none. */
  config?: Record<string, unknown>;
}

/** Directories test runs leave behind: not the agent's changes, and not tracked. */
const RUN_LEFTOVERS = /^(\.pytest_cache|__pycache__|\.nyc_output|coverage|node_modules|\.hypothesis)\/|\/__pycache__\//;

/** A session runs the project's suite up to three times (before, run_tests, the final gate); zod's takes 15 s a run. */
const SESSION_TIMEOUT_MS = 240_000;

const textOf = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1)!.content);
const toolResult = (request: RecordedRequest) => JSON.parse(textOf(request)) as { content: string }[];
const edit = (file: string, change: Change): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_file', input: { path: file, edits: [{ search: change.search, replace: change.replace }] } }],
});
const runTests: ScriptedTurn = { toolCalls: [{ name: 'run_tests', input: {} }] };

/**
 * The two sessions of a scenario through the real worker, against a real Temporal server, on a fresh checkout each:
 * the correct change completes with gates no worse than the start and changes exactly the edited lines; the broken
 * change sees its own new failure first in `run_tests`, beside the ones that failed before, and its revert completes.
 */
export function describeRealRepo(scenario: RealRepoScenario): void {
  const { project, file } = scenario;
  describe(project.id, () => {
    const harness = useTaskHarness(`real-${project.id}`);
    // ruff is what lint-on-edit finds on the worker's PATH for Python files.
    process.env.PATH = `${ruffOnlyDirectory()}:${process.env.PATH}`;

    const checkout = async () => {
      const workspace = await checkoutOf(project);
      if (scenario.config) {
        execFileSync(
          'sh',
          ['-c', `cat > codeloop.json && git add codeloop.json && git -c user.name=u -c user.email=u@x commit -qm config`],
          {
            cwd: workspace,
            input: JSON.stringify(scenario.config),
          },
        );
      }
      return workspace;
    };
    const git = (workspace: string, ...args: string[]) => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' });
    const changedPaths = (workspace: string) =>
      git(workspace, 'status', '--porcelain', '--untracked-files=all')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(3))
        .filter((changed) => !RUN_LEFTOVERS.test(changed));
    const expectNoWorse = (gates: GateResult[]) => {
      expect(gates.map((gate) => gate.name)).toEqual(scenario.gates);
      for (const gate of gates) expect(gate, gate.name).toMatchObject({ passed: true });
      const tests = gates.find((gate) => gate.name === 'tests');
      if (tests && scenario.failingBefore.length) {
        expect(tests.baseline?.failures).toEqual(scenario.failingBefore);
        expect(tests.newFailures).toEqual([]);
      }
    };

    test(
      'a correct change completes with gates no worse than the start, and only the edited lines change',
      async () => {
        const workspace = await checkout();
        const original = readFileSync(path.join(workspace, file), 'utf8');
        const seen: { kickoff?: string; edit?: string; tests?: string } = {};
        harness.fake.enqueue(
          (request) => {
            seen.kickoff = textOf(request);
            return edit(file, scenario.correct);
          },
          (request) => {
            seen.edit = toolResult(request)[0].content;
            return runTests;
          },
          (request) => {
            seen.tests = toolResult(request)[0].content;
            return { text: 'Changed as asked.' };
          },
        );
        const handle = await harness.start({ description: `a small change to ${file}`, workspace, git: 'in-place' });
        const result = (await handle.result()) as TaskResult;

        expect(result.status).toBe('completed');
        expectNoWorse(result.gates);
        if (scenario.failingBefore.length) expect(seen.kickoff).toContain('Before you changed anything, these checks already failed');
        expect(seen.edit).not.toContain('LINT ERRORS');
        if (scenario.lint) {
          const before = new RegExp(`${scenario.lint.linter}: nothing new\\. \\d+ other findings? of ${scenario.lint.linter} in this file`);
          if (scenario.lint.preExisting) expect(seen.edit).toMatch(before);
          else expect(seen.edit).not.toMatch(before);
        }
        if (scenario.failingBefore.length) expect(seen.tests).toContain('No new failures');
        // The file is the original with the one replacement, and nothing else in the checkout changed.
        expect(readFileSync(path.join(workspace, file), 'utf8')).toBe(original.replace(scenario.correct.search, scenario.correct.replace));
        expect(changedPaths(workspace)).toEqual([file]);
      },
      SESSION_TIMEOUT_MS,
    );

    test(
      'a change that breaks a test sees its own failure first, then its revert completes',
      async () => {
        const workspace = await checkout();
        const seen: { tests?: string } = {};
        harness.fake.enqueue(
          edit(file, scenario.bug),
          runTests,
          (request) => {
            seen.tests = toolResult(request)[0].content;
            return edit(file, { search: scenario.bug.replace, replace: scenario.bug.search });
          },
          { text: 'Reverted my change.' },
        );
        const handle = await harness.start({ description: `a change to ${file} that turns out wrong`, workspace, git: 'in-place' });
        const result = (await handle.result()) as TaskResult;

        const heading = scenario.failingBefore.length ? 'New failures, since the task started' : 'Failing tests';
        const listed = seen.tests!.slice(seen.tests!.indexOf(heading)).split('\n');
        expect(listed[0]).toMatch(new RegExp(`^${heading} \\(\\d+\\):$`));
        expect(listed[1].trim()).toBe(scenario.bug.newFailure);
        if (scenario.failingBefore.length) {
          expect(seen.tests).toContain(`${scenario.failingBefore.length} other failing test(s) failed before the task too`);
          for (const id of scenario.failingBefore) expect(seen.tests!.slice(0, seen.tests!.indexOf('\n\n'))).not.toContain(id);
        }
        expect(result.status).toBe('completed');
        expectNoWorse(result.gates);
        expect(changedPaths(workspace)).toEqual([]);
      },
      SESSION_TIMEOUT_MS,
    );
  });
}
