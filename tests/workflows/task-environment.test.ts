import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { TaskResult } from '../../src/shared/task-state.js';
import { answerBlockerSignal } from '../../src/shared/messages.js';
import { byTask, byTurn, type RecordedRequest } from '../support/fake-messages-api.js';
import { waitForBlockers } from '../support/blockers.js';
import { recordHistory } from '../support/record-history.js';
import { useTaskHarness } from '../support/task-harness.js';
import { fileOnBranch, makeGitRepo } from '../support/workspace.js';

/**
 * A task whose codeloop.json asks for an environment, through the real worker and the loopback Messages API: setup
 * before the first turn (a failing one asks a human; `retry` after a fix goes on), a named file copied in, a service
 * its commands reach on loopback, and the model told all of it.
 */

const harness = useTaskHarness('task-environment');

const lastToolResult = (request: RecordedRequest) => {
  const blocks = request.body.messages.at(-1)!.content as { type: string; content?: string }[];
  return blocks.find((block) => block.type === 'tool_result')?.content ?? '';
};

test('setup, a named file and a service before the first turn; a failing setup asks, and retry after a fix goes on', async () => {
  const marker = `codeloop-env-service-${process.pid}-${Date.now()}`;
  const repo = makeGitRepo({
    '.gitignore': '.env.test\n',
    'codeloop.json': JSON.stringify({
      setup: ['test -f fixed || { echo "missing fixed: run the fix" >&2; exit 4; }', 'echo installed > setup-ran.txt'],
      files: ['.env.test'],
      services: [
        {
          name: 'web',
          command: `mkdir -p /tmp/www && echo served > /tmp/www/index.html && exec python3 -m http.server 8123 --bind 127.0.0.1 --directory /tmp/www # ${marker}`,
          ready: 'python3 -c "import socket; socket.create_connection((\'127.0.0.1\', 8123), timeout=1)"',
        },
      ],
    }),
  });
  writeFileSync(path.join(repo, '.env.test'), 'TOKEN=from-the-checkout\n');
  harness.fake.setResponder(
    byTask({
      'Use the environment': byTurn([
        {
          toolCalls: [
            {
              name: 'run_command',
              input: {
                command:
                  'cat setup-ran.txt .env.test; python3 -c "import urllib.request; print(urllib.request.urlopen(\'http://127.0.0.1:8123/\').read().decode())"',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'create_file', input: { path: 'done.txt', content: 'done\n' } }] },
        { text: 'Used the environment.' },
      ]),
    }),
  );
  const before = harness.fake.requests.length;
  const handle = await harness.start({ title: 'Use the environment', description: 'use it', workspace: repo, gates: 'strict' });
  const [blocker] = await waitForBlockers(handle);
  expect(blocker.question).toMatch(/The task's setup failed: `test -f fixed .*` exited with 4/);
  expect(blocker.context).toContain('missing fixed: run the fix');
  // The fix: the checkout gets the file setup needs; the task's worktree sees it once it is committed there too.
  const worktree = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .find((dir) => dir !== repo)!;
  writeFileSync(path.join(worktree, 'fixed'), 'yes\n');
  await handle.signal(answerBlockerSignal, { answer: 'retry' });
  const result = (await handle.result()) as TaskResult;
  expect(result.status).toBe('completed');
  await recordHistory('task-environment-setup-retry', handle);

  const requests = harness.fake.requests.slice(before);
  const system = JSON.stringify(requests[0].body.system);
  expect(system).toContain('Setup ran before you started');
  expect(system).toContain('Service web runs for this task');
  expect(system).toContain('Copied from the checkout (never committed): .env.test');
  expect(lastToolResult(requests[1])).toMatch(/installed\nTOKEN=from-the-checkout\nserved/);
  expect(fileOnBranch(repo, result.git!.branch, 'done.txt')).toBe('done\n');
  expect(fileOnBranch(repo, result.git!.branch, '.env.test')).toBeUndefined();
  // The service ended with the task.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(() => execFileSync('pgrep', ['-f', marker])).toThrow();
}, 120_000);
