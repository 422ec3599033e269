import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
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

/** A published project and two scripted sessions on it: correct changes, and a change that breaks a test. */
export interface RealRepoScenario {
  project: PublishedProject;
  /** The file both sessions edit. */
  file: string;
  /** The correct changes, made one after the other in one task (an `edit_file` turn each). */
  correct: Change[];
  bug: Change & { newFailure: string };
  /** Test ids that fail on the checkout as published, on this machine, before anything changes. */
  failingBefore: string[];
  /** The gates the checkout has; each must end no worse than it started. */
  gates: string[];
  /** What lint-on-edit says about the first correct change: the linter, and whether the file had findings already. */
  lint?: { linter: string; preExisting: boolean };
  /** A codeloop.json the user put in the checkout, or none. */
  config?: Record<string, unknown>;
  /** A session's time limit, when the project's suite needs more than the default. */
  timeoutMs?: number;
}

/** Directories test runs leave behind: not the agent's changes, and not tracked. */
const RUN_LEFTOVERS =
  /^(\.pytest_cache|__pycache__|\.nyc_output|coverage|node_modules|\.hypothesis|target)\/|\/__pycache__\/|^Cargo\.lock$/;

/** A session runs the project's suite up to four times (before, run_tests, the final gates twice); zod's takes 15 s a run. */
const SESSION_TIMEOUT_MS = 300_000;

/**
 * Appended, in branch mode, to the checkout's own copy of a Python project's edited module when its `.venv` has the
 * project installed editable (pointing at the checkout's path): a test run that imports the user's checkout instead of
 * the task's worktree fails at once, so the baseline could not pass and the bug edit could not be seen.
 */
const CHECKOUT_MARKER = '\nraise ImportError("imported the user\'s checkout, not the task\'s worktree")\n';

/** Both ways a task can work: on a branch of its own in a worktree (the default), and in the checkout itself. */
const MODES = ['branch', 'in-place'] as const;

const textOf = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1)!.content);
const toolResult = (request: RecordedRequest) => JSON.parse(textOf(request)) as { content: string }[];
const edit = (file: string, change: Change): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_file', input: { path: file, edits: [{ search: change.search, replace: change.replace }] } }],
});
const runTests: ScriptedTurn = { toolCalls: [{ name: 'run_tests', input: {} }] };

/**
 * The innermost name of a test id, as a runner's failure report shows it: `test_b` of `t.py::test_b`, `TestAll`,
 * `adds`; jest's whole test title (`suite › should add`), which its `●` heading repeats.
 */
const innermost = (id: string) => {
  const last = id.split(/::| > | › /).pop()!;
  return id.includes(' › ') ? last : last.split(' ')[0]!;
};

/**
 * The two sessions of a scenario through the real worker, against a real Temporal server, on a fresh checkout each,
 * in both git modes: the correct changes complete verified, with gates no worse than the start, and change exactly
 * the edited lines (on the task's branch, the checkout untouched; or in the checkout). The broken change sees its own
 * new failure first in `run_tests`, beside the ones that failed before; said to be done, it is sent back by the gates
 * (or, where a gate could not run, the result would say `unverified`), never completed as verified; its revert
 * completes. A Python project with a `.venv` is tested by that venv's Python; in branch mode its checkout's own copy of
 * the edited module carries `CHECKOUT_MARKER`, so a test run that imported the user's checkout would fail.
 */
export function describeRealRepo(scenario: RealRepoScenario): void {
  const { project, file } = scenario;
  const timeout = scenario.timeoutMs ?? SESSION_TIMEOUT_MS;
  for (const mode of MODES) {
    describe(`${project.id}, git: ${mode}`, () => {
      const harness = useTaskHarness(`real-${project.id}-${mode}`);
      // ruff is what lint-on-edit finds on the worker's PATH for Python files.
      process.env.PATH = `${ruffOnlyDirectory()}:${process.env.PATH}`;

      // The marker stays uncommitted in the checkout: the task's branch starts from the commit without it.
      const marked = mode === 'branch' && project.python?.editable === true;
      const checkout = async () => {
        const workspace = await checkoutOf(project, path.join(os.tmpdir(), 'codeloop-real', project.id));
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
        if (marked) appendFileSync(path.join(workspace, file), CHECKOUT_MARKER);
        return workspace;
      };
      const git = (workspace: string, ...args: string[]) => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' });
      const changedPaths = (workspace: string) =>
        git(workspace, 'status', '--porcelain', '--untracked-files=all')
          .split('\n')
          .filter(Boolean)
          .map((line) => line.slice(3))
          .filter((changed) => !RUN_LEFTOVERS.test(changed));
      /** What the task changed: its branch against where it started, or the checkout itself. */
      const changesOf = (workspace: string, result: TaskResult) => {
        if (mode === 'in-place') return { paths: changedPaths(workspace), text: () => readFileSync(path.join(workspace, file), 'utf8') };
        expect(result.git?.end, 'the task ended its branch').toBeDefined();
        expect(changedPaths(workspace), "the user's checkout is untouched").toEqual(marked ? [file] : []);
        const { base, branch } = result.git!;
        const paths = git(workspace, 'diff', '--name-only', base, branch).split('\n').filter(Boolean);
        return { paths, text: () => git(workspace, 'show', `${branch}:${file}`) };
      };
      const expectNoWorse = (result: TaskResult, workspace: string) => {
        const gates = result.gates;
        expect(gates.map((gate) => gate.name)).toEqual(scenario.gates);
        for (const gate of gates) expect(gate, gate.name).toMatchObject({ passed: true });
        expect(result.verification).toBe('verified');
        const tests = gates.find((gate) => gate.name === 'tests');
        // A Python project with a .venv is tested by the venv's Python, at the checkout's path (the task's tree there).
        if (project.python) expect(tests?.command).toContain(`${path.join(workspace, '.venv/bin/python')} -m `);
        if (tests && scenario.failingBefore.length) {
          expect(tests.baseline?.failures).toEqual(scenario.failingBefore);
          expect(tests.newFailures).toEqual([]);
        }
      };

      test(
        `${scenario.correct.length} correct changes complete verified, with gates no worse than the start, and only the edited lines change`,
        async () => {
          const workspace = await checkout();
          const original = git(workspace, 'show', `HEAD:${file}`);
          const seen: { kickoff?: string; edit?: string; tests?: string } = {};
          const [first, ...rest] = scenario.correct;
          harness.fake.enqueue(
            (request) => {
              seen.kickoff = textOf(request);
              return edit(file, first!);
            },
            ...rest.map((change, index) => (request: RecordedRequest) => {
              if (index === 0) seen.edit = toolResult(request)[0].content;
              return edit(file, change);
            }),
            (request) => {
              if (rest.length === 0) seen.edit = toolResult(request)[0].content;
              return runTests;
            },
            (request) => {
              seen.tests = toolResult(request)[0].content;
              return { text: 'Changed as asked.' };
            },
          );
          const handle = await harness.start({ description: `a small change to ${file}`, workspace, git: mode });
          const result = (await handle.result()) as TaskResult;

          expect(result.status).toBe('completed');
          expectNoWorse(result, workspace);
          if (scenario.failingBefore.length) expect(seen.kickoff).toContain('Before you changed anything, these checks already failed');
          expect(seen.edit).not.toContain('LINT ERRORS');
          if (scenario.lint) {
            const before = new RegExp(
              `${scenario.lint.linter}: nothing new\\. \\d+ other findings? of ${scenario.lint.linter} in this file`,
            );
            if (scenario.lint.preExisting) expect(seen.edit).toMatch(before);
            else expect(seen.edit).not.toMatch(before);
          }
          if (scenario.failingBefore.length) expect(seen.tests).toContain('No new failures');
          // The file is the original with the replacements, and nothing else changed.
          const changes = changesOf(workspace, result);
          expect(changes.paths).toEqual([file]);
          expect(changes.text()).toBe(scenario.correct.reduce((text, change) => text.replace(change.search, change.replace), original));
        },
        timeout,
      );

      test(
        'a change that breaks a test sees its own failure first, is sent back by the gates when called done, and its revert completes',
        async () => {
          const workspace = await checkout();
          const seen: { tests?: string; sentBack?: string } = {};
          harness.fake.enqueue(
            edit(file, scenario.bug),
            runTests,
            (request) => {
              seen.tests = toolResult(request)[0].content;
              return { text: 'Done: changed as asked.' };
            },
            (request) => {
              seen.sentBack = textOf(request);
              return edit(file, { search: scenario.bug.replace, replace: scenario.bug.search });
            },
            { text: 'Reverted my change.' },
          );
          const handle = await harness.start({ description: `a change to ${file} that turns out wrong`, workspace, git: mode });
          const result = (await handle.result()) as TaskResult;

          const heading = scenario.failingBefore.length ? 'New failures, since the task started' : 'Failing tests';
          const listed = seen.tests!.slice(seen.tests!.indexOf(heading)).split('\n');
          expect(listed[0]).toMatch(new RegExp(`^${heading} \\(\\d+\\):$`));
          expect(listed[1].trim()).toBe(scenario.bug.newFailure);
          if (scenario.failingBefore.length) {
            expect(seen.tests).toContain(`${scenario.failingBefore.length} other failing test(s) failed before the task too`);
            for (const id of scenario.failingBefore) expect(seen.tests!.slice(0, seen.tests!.indexOf('\n\n'))).not.toContain(id);
          }
          // Called done with the bug in, the work went back to the model with its failure: it did not complete.
          expect(seen.sentBack).toContain('Verification failed');
          expect(seen.sentBack).toContain(innermost(scenario.bug.newFailure));
          expect(result.status).toBe('completed');
          expectNoWorse(result, workspace);
          expect(changesOf(workspace, result).paths).toEqual([]);
        },
        timeout,
      );
    });
  }
}
