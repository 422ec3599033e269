import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, test } from 'vitest';
import { checkpointTask, finishTaskBranch, startTaskBranch } from '../../src/activities/git/task-branch.js';
import { answerBlockerSignal, getStateQuery } from '../../src/shared/messages.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { waitForBlockers } from '../support/blockers.js';
import { byTask, byTurn } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { fileOnBranch, makeGitRepo, makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('task-git');
const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

const creates = (file: string, content: string) => ({ toolCalls: [{ name: 'create_file', input: { path: file, content } }] });
const edits = (file: string, search: string, replace: string) => ({
  toolCalls: [{ name: 'edit_file', input: { path: file, edits: [{ search, replace }] } }],
});
const reads = (file: string) => ({ toolCalls: [{ name: 'read_file', input: { path: file } }] });

describe('a task in a git repository works on a branch of its own', () => {
  test('the checkout is untouched; the branch holds a checkpoint per changing iteration and a last commit from the summary', async () => {
    harness.fake.setResponder(
      byTask({
        'Greeting module': byTurn([
          creates('greet.py', 'def greet():\n    return "hi"\n'),
          reads('greet.py'),
          edits('greet.py', 'return "hi"', 'return "hello"'),
          { text: 'Added greet() returning "hello".' },
        ]),
      }),
    );
    const repo = makeGitRepo({ 'README.md': '# app\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    const handle = await harness.start({ title: 'Greeting module', description: 'Add greet()', workspace: repo });
    const result = (await handle.result()) as TaskResult;

    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(repo, 'greet.py'))).toBe(false);

    const trail = result.git!;
    expect(trail.branch).toMatch(/^codeloop\/task\/task-git-[0-9a-f]{8}$/);
    expect(trail.base).toBe(head);
    // Iteration 2 only read: no checkpoint for it.
    expect(trail.checkpoints.map((checkpoint) => checkpoint.iteration)).toEqual([1, 3]);
    expect(trail.end).toMatchObject({ commits: 3, diffstat: '1 file changed, 2 insertions(+)' });
    expect(fileOnBranch(repo, trail.branch, 'greet.py')).toBe('def greet():\n    return "hello"\n');
    expect(git(repo, 'log', '--format=%s', `${head}..${trail.branch}`).split('\n')).toEqual([
      'Greeting module',
      'codeloop checkpoint: iteration 3',
      'codeloop checkpoint: iteration 1',
    ]);
    expect(git(repo, 'log', '-1', '--format=%b', trail.branch)).toBe('Added greet() returning "hello".');
    expect(fileOnBranch(repo, trail.checkpoints[0].commit, 'greet.py')).toBe('def greet():\n    return "hi"\n');
    expect(existsSync(trail.worktree)).toBe(false);
    expect((await handle.query(getStateQuery)).git?.end?.head).toBe(git(repo, 'rev-parse', trail.branch));
  });

  test('a task that fails keeps its work on the branch', async () => {
    harness.fake.setResponder(byTask({ 'Half done': byTurn([creates('half.txt', 'half\n')]) }));
    const repo = makeGitRepo();
    const handle = await harness.start({ title: 'Half done', description: 'do it', workspace: repo, maxIterations: 1 });
    await waitForBlockers(handle);
    await handle.signal(answerBlockerSignal, { answer: 'stop' });
    const error = (await handle.result().catch((caught) => caught)) as WorkflowFailedError;
    expect((error.cause as ApplicationFailure).message).toContain('iteration budget of 1 exhausted');
    const { git: trail } = await handle.query(getStateQuery);
    expect(trail!.end!.commits).toBe(1);
    expect(fileOnBranch(repo, trail!.branch, 'half.txt')).toBe('half\n');
    expect(existsSync(trail!.worktree)).toBe(false);
  });

  test('in-place works in the checkout itself, and a workspace outside git works in place', async () => {
    harness.fake.setResponder(byTask({ 'In place': byTurn([creates('here.txt', 'here\n'), { text: 'done' }]) }));
    const repo = makeGitRepo();
    const inPlace = (await (
      await harness.start({ title: 'In place', description: 'x', workspace: repo, git: 'in-place' })
    ).result()) as TaskResult;
    expect(inPlace.git).toBeUndefined();
    expect(readFileSync(path.join(repo, 'here.txt'), 'utf8')).toBe('here\n');
    const plain = makeWorkspace();
    const outside = (await (await harness.start({ title: 'In place', description: 'x', workspace: plain })).result()) as TaskResult;
    expect(outside.git).toBeUndefined();
    expect(readFileSync(path.join(plain, 'here.txt'), 'utf8')).toBe('here\n');
  });

  test("the checkout's ignored dependencies are linked in, readable by commands, and never committed", async () => {
    harness.fake.setResponder(
      byTask({
        'Uses deps': byTurn([
          {
            toolCalls: [
              { name: 'run_command', input: { command: 'cat node_modules/dep/index.js; touch node_modules/dep/x || echo read-only' } },
            ],
          },
          { text: 'done' },
        ]),
      }),
    );
    const repo = makeGitRepo({ '.gitignore': 'node_modules/\n', 'package.json': '{}\n' });
    mkdirSync(path.join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(path.join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
    const result = (await (await harness.start({ title: 'Uses deps', description: 'x', workspace: repo })).result()) as TaskResult;
    const output = JSON.stringify(harness.fake.requests.at(-1)!.body.messages.at(-1));
    expect(output).toContain('module.exports = 42;');
    expect(output).toContain('read-only');
    expect(existsSync(path.join(repo, 'node_modules', 'dep', 'x'))).toBe(false);
    expect(git(repo, 'ls-tree', '-r', '--name-only', result.git!.branch)).not.toContain('node_modules');
  });
});

describe('the git steps are safe to repeat', () => {
  test('a retried checkpoint makes no second commit and returns the first; a repeated finish reads the branch', async () => {
    const repo = makeGitRepo();
    const started = await startTaskBranch({ workspace: repo, taskId: 'retry-me' });
    if (started.inPlace) throw new Error('expected a branch');
    const again = await startTaskBranch({ workspace: repo, taskId: 'retry-me' });
    expect(again).toEqual(started);
    writeFileSync(path.join(started.worktree, 'a.txt'), 'a\n');
    const first = await checkpointTask({ worktree: started.worktree, iteration: 4 });
    const second = await checkpointTask({ worktree: started.worktree, iteration: 4 });
    expect(second).toEqual(first);
    expect(await checkpointTask({ worktree: started.worktree, iteration: 5 })).toEqual({});
    const finish = {
      repo,
      worktree: started.worktree,
      branch: started.branch,
      base: started.base,
      message: 'Done\n\nall of it',
      always: true,
    };
    const ended = await finishTaskBranch(finish);
    expect(await finishTaskBranch(finish)).toEqual(ended);
    expect(ended).toMatchObject({ commits: 2, diffstat: '1 file changed, 1 insertion(+)' });
    expect(git(repo, 'rev-list', '--count', `${started.base}..${started.branch}`)).toBe('2');
  });
});
