import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal, getStateQuery } from '../../src/shared/messages.js';
import { waitForBlockers, waitForState } from '../support/blockers.js';
import type { RecordedRequest, ScriptedTurn } from '../support/fake-messages-api.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('verify');

/** A Node project whose gate is `npm test` (node --test): always available where codeloop runs. */
const nodeProject = (
  code: string,
  test = "import test from 'node:test';\nimport assert from 'node:assert';\nimport { add } from './app.mjs';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
) =>
  makeWorkspace({
    'package.json': JSON.stringify({ name: 'p', type: 'module', scripts: { test: 'node --test' } }),
    'app.mjs': code,
    'app.test.mjs': test,
  });

const lastMessage = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1)!.content);
const edit = (file: string, search: string, replace: string): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_file', input: { path: file, edits: [{ search, replace }] } }],
});

describe('lint on every edit', () => {
  test('an edit that breaks the file gets its lint errors in the tool result; the fix makes the gates pass', async () => {
    const workspace = nodeProject('export function add(a, b) {\n  return a + b;\n}\n');
    harness.fake.enqueue(
      edit('app.mjs', '  return a + b;', '  return a + b +;'),
      (request) => {
        expect(lastMessage(request)).toContain('LINT ERRORS (must fix) from node --check');
        expect(lastMessage(request)).toContain('SyntaxError');
        return edit('app.mjs', '  return a + b +;', '  return a + b;');
      },
      (request) => {
        expect(lastMessage(request)).not.toContain('LINT ERRORS');
        return { text: 'Fixed the syntax error.' };
      },
    );
    const result = (await (await harness.start({ description: 'lint', workspace })).result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', iterations: 3 });
    expect(result.gates).toMatchObject([{ name: 'tests', command: 'npm test --silent', passed: true }]);
  });

  test('JSON files are checked by parsing them', async () => {
    const workspace = makeWorkspace({ 'config/settings.json': '{"a": 1}\n' });
    harness.fake.enqueue(edit('config/settings.json', '{"a": 1}', '{"a": 1,}'), (request) => {
      expect(lastMessage(request)).toContain('LINT ERRORS (must fix) from JSON parse');
      return { text: 'left it' };
    });
    await (await harness.start({ description: 'json', workspace })).result();
  });
});

describe('final verification gates', () => {
  test('failing tests at the end send the work back; the task completes only when the gates pass', async () => {
    const workspace = nodeProject('export function add(a, b) {\n  return a - b;\n}\n');
    harness.fake.enqueue(
      { text: 'All done.' },
      (request) => {
        const feedback = lastMessage(request);
        expect(feedback).toContain('Verification failed (correction round 1 of 5)');
        expect(feedback).toContain('tests failed: `npm test --silent`');
        expect(feedback).toContain('add');
        return edit('app.mjs', '  return a - b;', '  return a + b;');
      },
      { text: 'Fixed add.' },
    );
    const handle = await harness.start({ description: 'gates', workspace, gates: 'strict' });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', summary: 'Fixed add.', gates: [{ name: 'tests', passed: true }] });
    expect((await handle.query(getStateQuery)).correctionRounds).toBe(1);
    await recordHistory('task-gates-correction-round', handle);
  });

  test('gates come from codeloop.json when the workspace has one', async () => {
    const workspace = makeWorkspace({
      'codeloop.json': JSON.stringify({ gates: [{ name: 'marker', command: 'test -f DONE', timeoutSeconds: 5 }] }),
    });
    harness.fake.enqueue(
      { text: 'done' },
      { toolCalls: [{ name: 'create_file', input: { path: 'DONE', content: '' } }] },
      { text: 'now done' },
    );
    const result = (await (await harness.start({ description: 'config gates', workspace, gates: 'strict' })).result()) as TaskResult;
    expect(result.gates).toMatchObject([{ name: 'marker', command: 'test -f DONE', passed: true }]);
    expect(result.iterations).toBe(3);
  });
});

describe('gates against the start (no-regressions, the default)', () => {
  const twoTests = (addBody: string) =>
    nodeProject(
      `export function add(a, b) {\n  ${addBody}\n}\nexport function double(a) {\n  return a * 3;\n}\n`,
      [
        "import test from 'node:test';",
        "import assert from 'node:assert';",
        "import { add, double } from './app.mjs';",
        "test('add', () => assert.strictEqual(add(2, 3), 5));",
        "test('double', () => assert.strictEqual(double(2), 4));",
        '',
      ].join('\n'),
    );

  test('a test that failed before the task does not hold it back, and the agent is told it is not its to fix', async () => {
    const workspace = twoTests('return a + b;');
    harness.fake.enqueue(
      (request) => {
        const kickoff = JSON.stringify(request.body.messages[0].content);
        expect(kickoff).toContain('Before you changed anything, these checks already failed or could not run here');
        expect(kickoff).toContain('tests (`npm test --silent`) already fails: double');
        return edit('app.mjs', '  return a + b;', '  return b + a;');
      },
      { text: 'Swapped the operands.' },
    );
    const result = (await (await harness.start({ description: 'swap the operands of add', workspace })).result()) as TaskResult;
    expect(result.status).toBe('completed');
    expect(result.gates).toMatchObject([
      { name: 'tests', passed: true, baseline: { passed: false, failures: ['double'] }, newFailures: [] },
    ]);
  });

  test('a test the agent broke: run_tests and the gates show it first, beside one that failed before; even beside one that failed before', async () => {
    const workspace = twoTests('return a + b;');
    harness.fake.enqueue(
      edit('app.mjs', '  return a + b;', '  return a - b;'),
      { toolCalls: [{ name: 'run_tests', input: {} }] },
      (request) => {
        const tests = lastMessage(request);
        const heading = 'New failures, since the task started (1):\n  add\n1 other failing test(s) failed before the task too';
        expect(tests).toContain(JSON.stringify(heading).slice(1, -1));
        return { text: 'Done.' };
      },
      (request) => {
        const feedback = lastMessage(request);
        expect(feedback).toContain('New since the task started: add');
        expect(feedback).toContain('1 failure(s) were there before the task: not yours to fix.');
        return edit('app.mjs', '  return a - b;', '  return a + b;');
      },
      { text: 'Put add back.' },
    );
    const result = (await (await harness.start({ description: 'touch add', workspace })).result()) as TaskResult;
    expect(result).toMatchObject({
      status: 'completed',
      summary: 'Put add back.',
      gates: [{ name: 'tests', passed: true, newFailures: [] }],
    });
  });

  test('a gate whose tool is not installed is unverified: not a failure to fix, never a pass', async () => {
    const workspace = makeWorkspace({
      'codeloop.json': JSON.stringify({ gates: [{ name: 'nub', command: 'nub-build-tool --check', timeoutSeconds: 5 }] }),
    });
    harness.fake.enqueue({ text: 'Nothing to do.' }, (request) => {
      // The gate's word reaches the agent once: it could not say anything, and the task will be unverified.
      expect(lastMessage(request)).toContain('No gate failed, but these could not say anything about your work');
      expect(lastMessage(request)).toContain('- nub (`nub-build-tool --check`): nub-build-tool is not installed where the gates run');
      return { text: 'Nothing to check by hand either.' };
    });
    const result = (await (await harness.start({ description: 'nothing', workspace, gates: 'strict' })).result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', verification: 'unverified', summary: 'Nothing to check by hand either.' });
    expect(result.gates).toMatchObject([
      { name: 'nub', passed: false, unavailable: true, unverified: 'nub-build-tool is not installed where the gates run' },
    ]);
  });

  test('a pretest that fails before any test: the prompt and the result give the reason and the fix, and a bug is never verified', async () => {
    const workspace = makeWorkspace({
      'package.json': JSON.stringify({
        name: 'p',
        type: 'module',
        scripts: { pretest: 'node -e "console.error(\'lint: 3 problems\'); process.exit(1)"', test: 'node --test' },
      }),
      'app.mjs': 'export function add(a, b) {\n  return a + b;\n}\n',
      'app.test.mjs':
        "import test from 'node:test';\nimport assert from 'node:assert';\nimport { add } from './app.mjs';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n",
    });
    const fix = 'fix: set codeloop.json\'s "test" to {"hooks": false}, which runs the tests without it';
    harness.fake.enqueue(
      (request) => {
        const kickoff = JSON.stringify(request.body.messages[0].content);
        expect(kickoff).toContain('tests (`npm test --silent`) cannot run here, so the end cannot be compared with the start');
        expect(kickoff).toContain(JSON.stringify(fix).slice(1, -1));
        return edit('app.mjs', '  return a + b;', '  return a - b;');
      },
      { text: 'Done.' },
      { text: 'Done, nothing else to check.' },
    );
    const result = (await (await harness.start({ description: 'change add', workspace })).result()) as TaskResult;
    expect(result.verification).toBe('unverified');
    expect(result.gates).toMatchObject([{ name: 'tests', passed: false }]);
    expect(result.gates[0]!.unverified).toContain('it could not run before the task, nor now: its pretest script');
    expect(result.gates[0]!.unverified).toContain(fix);
  });
});

describe('escalation', () => {
  test('the same failure 3 times after changes raises an escalation blocker listing the attempts', async () => {
    const workspace = nodeProject('export function add(a, b) {\n  return a - b;\n}\n');
    const runTests: ScriptedTurn = { toolCalls: [{ name: 'run_tests', input: {} }] };
    const comment = (from: string, to: string) => edit('app.mjs', `  return a - b;${from}`, `  return a - b;${to}`);
    harness.fake.enqueue(
      runTests,
      comment('', ' // one'),
      runTests,
      comment(' // one', ' // two'),
      runTests,
      (request) => {
        expect(lastMessage(request)).toContain('Guidance from a human: add should add, not subtract');
        return edit('app.mjs', '  return a - b; // two', '  return a + b;');
      },
      { text: 'fixed' },
    );
    const handle = await harness.start({ description: 'escalate', workspace, gates: 'strict' });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.origin).toBe('escalation');
    expect(blocker.question).toMatch(/^Escalating: the same error 3 times \(tests\)/);
    expect(blocker.question).toContain('1. iteration 1, tests: $ npm test');
    expect(blocker.question).toContain('3. iteration 5, tests');
    await handle.signal(answerBlockerSignal, { answer: 'add should add, not subtract' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    await recordHistory('task-escalation-after-changes', handle);
  });

  test('the same failing run with nothing changed in between is no fix attempt: the repeat earns a nudge instead', async () => {
    const workspace = nodeProject('export function add(a, b) {\n  return a - b;\n}\n');
    const runTests: ScriptedTurn = { toolCalls: [{ name: 'run_tests', input: {} }] };
    harness.fake.enqueue(
      runTests,
      runTests,
      runTests,
      (request) => {
        expect(lastMessage(request)).toContain('Note from codeloop: you made the same tool call with the same input 3 times in a row');
        expect(lastMessage(request)).toContain('Iteration 3 of 30: 27 left.');
        return edit('app.mjs', '  return a - b;', '  return a + b;');
      },
      { text: 'fixed' },
    );
    const handle = await harness.start({ description: 'rerun', workspace, gates: 'strict' });
    expect(await handle.result()).toMatchObject({ status: 'completed', verification: 'verified' });
    expect((await handle.query(getStateQuery)).answeredBlockers).toEqual([]);
  });
});

describe('loops and stalls', () => {
  test('turns that only repeat reads already made earn a nudge; reading in parallel does not', async () => {
    const workspace = makeWorkspace(Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`f${n}.txt`, `${n}`])));
    const read = (...files: number[]): ScriptedTurn => ({
      toolCalls: files.map((n) => ({ name: 'read_file', input: { path: `f${n}.txt` } })),
    });
    harness.fake.enqueue(
      read(1, 2, 3, 4, 5, 6),
      read(1, 2),
      read(3),
      (request) => {
        expect(lastMessage(request)).not.toContain('Note from codeloop');
        return read(4, 5);
      },
      (request) => {
        expect(lastMessage(request)).toContain(
          'Note from codeloop: your last 3 turns only repeated reads you had already made, and nothing changed since. Start making the change now',
        );
        return { text: 'ok' };
      },
    );
    await (await harness.start({ description: 'reader', workspace })).result();
  });

  test('the same call 3 times earns a nudge; the loop going on raises a blocker', async () => {
    const echo: ScriptedTurn = { toolCalls: [{ name: 'run_command', input: { command: 'echo again' } }] };
    harness.fake.enqueue(
      echo,
      echo,
      echo,
      (request) => {
        expect(lastMessage(request)).toContain('Note from codeloop: you made the same tool call with the same input 3 times in a row');
        return echo;
      },
      (request) => {
        expect(lastMessage(request)).toContain('Guidance from a human: stop echoing');
        return { text: 'stopped' };
      },
    );
    const handle = await harness.start({ description: 'looper', workspace: makeWorkspace() });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.question).toContain(
      'The agent looks stuck: you made the same tool call with the same input 3 times in a row, even after a nudge',
    );
    await handle.signal(answerBlockerSignal, { answer: 'stop echoing' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
  });

  test('with onLoop "fail", a loop after the nudge fails the task', async () => {
    const echo: ScriptedTurn = { toolCalls: [{ name: 'run_command', input: { command: 'echo again' } }] };
    harness.fake.enqueue(echo, echo, echo, echo);
    const handle = await harness.start({ description: 'looper', workspace: makeWorkspace(), onLoop: 'fail' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect((error.cause as ApplicationFailure).details?.[0]).toMatchObject({ reason: 'loop_detected' });
  });

  test('a model call past the stall timeout is cancelled and the turn retried', async () => {
    let attempts = 0;
    harness.fake.enqueue(
      () => {
        attempts += 1;
        return { text: 'too slow', stallMs: 20_000 };
      },
      () => {
        attempts += 1;
        return { text: 'on time' };
      },
    );
    const handle = await harness.start({ description: 'stall', workspace: makeWorkspace(), stallTimeout: '3s' });
    expect(await handle.result()).toMatchObject({ status: 'completed', summary: 'on time', iterations: 1 });
    expect(attempts).toBe(2);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.some((event) => event.activityTaskCancelRequestedEventAttributes)).toBe(true);
    expect(events.some((event) => event.timerFiredEventAttributes)).toBe(true);
  });
});

describe('budgets', () => {
  test('an exhausted iteration budget raises a blocker; "continue" grants more and the task finishes', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'a' });
    const read = (n: number): ScriptedTurn => ({ toolCalls: [{ name: 'search_codebase', input: { pattern: `a${n}` } }] });
    harness.fake.enqueue(read(1), read(2), read(3), { text: 'finished after more iterations' });
    const handle = await harness.start({ description: 'long', workspace, maxIterations: 2 });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker).toMatchObject({ origin: 'budget', question: expect.stringContaining("Answer 'continue' for 2 more") });
    await handle.signal(answerBlockerSignal, { answer: 'continue' });
    expect(await handle.result()).toMatchObject({ status: 'completed', iterations: 4 });
    expect((await handle.query(getStateQuery)).maxIterations).toBe(4);
  });

  test('the cost cap is hit before the call that would exceed it', async () => {
    // A ~60 KB file: the second call's projected input (about 15K tokens more) is what crosses the cap.
    const workspace = makeWorkspace({ 'big.txt': Array.from({ length: 500 }, (_, i) => `line ${i} ${'y'.repeat(110)}`).join('\n') });
    harness.fake.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'big.txt' } }] });
    const handle = await harness.start({ description: 'capped', workspace, maxCostUsd: 0.19 });
    const [blocker] = await waitForBlockers(handle);
    expect(blocker.origin).toBe('budget');
    expect(blocker.question).toMatch(/^Before the next model call: the cost cap of \$0\.19 would be exceeded/);
    const state = await waitForState(handle, (current) => current.openBlockers.length === 1);
    expect(state.costUsd).toBeGreaterThan(0);
    expect(state.costUsd).toBeLessThan(0.19);
    expect(state.iteration).toBe(1);
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    const result = (error.cause as ApplicationFailure).details?.[0] as TaskResult;
    expect(result).toMatchObject({ status: 'failed', reason: 'cost_cap' });
    expect(result.costUsd).toBeLessThan(0.19);
  });
});

describe('a greenfield CLI from a PRD', () => {
  test('built on the first attempt: outline first, 0 lint errors, gates pass, pyproject.toml byte-identical', async () => {
    const pyproject =
      '[project]\nname = "tasks-cli"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';
    const workspace = makeWorkspace({ 'pyproject.toml': pyproject, 'PRD.md': '# Tasks CLI\nAdd and list tasks from the command line.\n' });
    const cli =
      'import sys\n\nTASKS = []\n\n\ndef add(title):\n    TASKS.append(title)\n    return len(TASKS)\n\n\ndef main(argv):\n    if argv[:1] == ["add"]:\n        print(add(" ".join(argv[1:])))\n    return 0\n\n\nif __name__ == "__main__":\n    sys.exit(main(sys.argv[1:]))\n';
    const test = 'from tasks_cli.cli import add\n\n\ndef test_add_returns_count():\n    assert add("one") == 1\n';
    harness.fake.enqueue(
      { text: '<outline>\n1. tasks_cli/__init__.py\n2. tasks_cli/cli.py\n3. tests/test_cli.py\n</outline>' },
      {
        toolCalls: [
          { name: 'create_file', input: { path: 'tasks_cli/__init__.py', content: '' } },
          { name: 'create_file', input: { path: 'tasks_cli/cli.py', content: cli } },
        ],
      },
      { toolCalls: [{ name: 'create_file', input: { path: 'tests/test_cli.py', content: test } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: 'pyproject.toml', edits: [{ search: pyproject.trim(), replace: '[project]\nname = "tasks"' }] },
          },
        ],
      },
      (request) => {
        expect(lastMessage(request)).toContain('pyproject.toml is a config file: edit only the lines that must change');
        return { toolCalls: [{ name: 'run_tests', input: {} }] };
      },
      { text: 'Built the tasks CLI with an add command and a test.' },
    );
    const before = harness.fake.requests.length;
    const handle = await harness.start({
      title: 'Tasks CLI',
      description: 'Build the CLI described in PRD.md',
      workspace,
      prd: 'Add and list tasks.',
    });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ status: 'completed', gates: [{ name: 'tests', passed: true }] });
    expect(result.iterations).toBe(6);
    expect(readFileSync(path.join(workspace, 'pyproject.toml'), 'utf8')).toBe(pyproject);
    const allToolResults = harness.fake.requests
      .slice(before)
      .map((request) => JSON.stringify(request.body.messages))
      .join('\n');
    const lint = allToolResults.indexOf('LINT ERRORS');
    expect(lint === -1 ? '' : allToolResults.slice(lint - 200, lint + 600)).toBe('');
    const state = await handle.query(getStateQuery);
    expect(state.correctionRounds).toBe(0);
    expect(state.outline).toBe('1. tasks_cli/__init__.py\n2. tasks_cli/cli.py\n3. tests/test_cli.py');
    const system = JSON.stringify(harness.fake.requests.at(-1)!.body.system);
    expect(system).toContain('<outline></outline>');
    await recordHistory('task-greenfield-cli', handle);
  });
});
