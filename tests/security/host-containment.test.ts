import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { BatchResult } from '../../src/shared/batch-state.js';
import type { TaskResult } from '../../src/shared/task-state.js';
import { runCli } from '../support/cli.js';
import { byTask, byTurn, type RecordedRequest } from '../support/fake-messages-api.js';
import { useTaskHarness } from '../support/task-harness.js';
import { uniqueName } from '../support/temporal.js';
import { fileOnBranch, gitUser, makeGitRepo, makeWorkspace } from '../support/workspace.js';

/**
 * What codeloop itself does outside the sandbox with what an agent wrote, through the real worker and the loopback
 * Messages API: its git (checkpoints, the final commit, a batch merge, `task diff`, `task apply`) in repositories
 * whose config names the agent's programs, its reads of `AGENTS.md`, its type checker on a huge project, and a tasks
 * file that asks for more than the batch gives. A marker file on the host says whether any program of the agent's ran
 * outside the sandbox: it is never written.
 */

const harness = useTaskHarness('host-containment');
const cliEnv = () => ({ CODELOOP_TASK_QUEUE: harness.taskQueue, ...gitUser('you') });

/** A directory on the host that the sandbox cannot write: the agent's program writes its marker there if it ever runs on the host. */
function hostMarker(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-host-marker-')), 'ran');
}

/**
 * A shell command the agent runs in `dir` (relative): a repository with a commit, whose config names `program` as
 * every kind of program git runs, and whose attributes select its filters and drivers; then a same-size change, so
 * that a `git status` there would have to run the clean filter.
 */
function plantRepository(dir: string, marker: string): string {
  const id = '-c user.name=agent -c user.email=agent@localhost';
  const settings = [
    'filter.x.clean',
    'filter.x.smudge',
    'diff.x.textconv',
    'diff.x.command',
    'diff.external',
    'merge.x.driver',
    'core.sshCommand',
    'core.pager',
    'core.fsmonitor',
    'core.editor',
    'credential.helper',
  ];
  return [
    `mkdir -p ${dir} && cd ${dir}`,
    `printf '#!/bin/sh\\nenv >> ${marker}\\ncat\\n' > .evil.sh && chmod +x .evil.sh`,
    'git init -q -b main',
    "printf 'abc\\n' > f.txt && printf '* filter=x diff=x merge=x\\n' > .gitattributes",
    `git ${id} add -A && git ${id} commit -q -m vendored`,
    ...settings.map((key) => `git config ${key} "$PWD/.evil.sh"`),
    `git config filter.x.required true && git config alias.status "!$PWD/.evil.sh" && git config core.hooksPath "$PWD"`,
    "printf '#!/bin/sh\\n./.evil.sh\\n' > post-checkout && chmod +x post-checkout && cp post-checkout pre-commit",
    "printf 'abd\\n' > f.txt && echo planted",
  ].join(' && ');
}

const lastToolResult = (request: RecordedRequest) => {
  const blocks = request.body.messages.at(-1)!.content as { type: string; content?: string }[];
  return blocks.find((block) => block.type === 'tool_result')?.content ?? '';
};

test('a vendored repository with filters, drivers and helpers in its config: checkpoints, the final commit, task diff and task apply run none of them', async () => {
  const marker = hostMarker();
  harness.fake.setResponder(
    byTask({
      'Vendor a library': byTurn([
        { toolCalls: [{ name: 'run_command', input: { command: plantRepository('vendor/lib', marker) } }] },
        { toolCalls: [{ name: 'create_file', input: { path: 'app.txt', content: 'uses the library\n' } }] },
        { toolCalls: [{ name: 'run_command', input: { command: "printf 'abe\\n' > vendor/lib/f.txt" } }] },
        { text: 'Vendored the library.' },
      ]),
    }),
  );
  const repo = makeGitRepo({ 'README.md': '# app\n' });
  const handle = await harness.start({ title: 'Vendor a library', description: 'Vendor it', workspace: repo });
  const result = (await handle.result()) as TaskResult;
  expect(result.status).toBe('completed');
  const git = result.git!;
  expect(fileOnBranch(repo, git.branch, 'app.txt')).toBe('uses the library\n');
  expect(execFileSync('git', ['ls-tree', git.branch, 'vendor/lib'], { cwd: repo, encoding: 'utf8' })).toMatch(
    /^160000 commit [0-9a-f]{40}\tvendor\/lib/,
  );

  expect(git.checkpoints.length).toBeGreaterThanOrEqual(2);

  const diff = await runCli(['task', 'diff', handle.workflowId], cliEnv());
  expect(diff.stdout).toContain('+++ b/app.txt');
  const applied = await runCli(['task', 'apply', handle.workflowId], cliEnv());
  expect(applied.stdout).toContain(`merged ${git.branch} into main`);
  expect(readFileSync(path.join(repo, 'app.txt'), 'utf8')).toBe('uses the library\n');
  expect(existsSync(marker)).toBe(false);
}, 120_000);

test('a batch task that vendors such a repository merges into the integration branch without running it', async () => {
  const marker = hostMarker();
  harness.fake.setResponder(
    byTask({
      'Vendor in a batch': byTurn([
        { toolCalls: [{ name: 'run_command', input: { command: plantRepository('third_party/dep', marker) } }] },
        { toolCalls: [{ name: 'create_file', input: { path: 'uses.txt', content: 'dep\n' } }] },
        { text: 'Done.' },
      ]),
      'Another task': byTurn([{ toolCalls: [{ name: 'create_file', input: { path: 'other.txt', content: 'x\n' } }] }, { text: 'Done.' }]),
    }),
  );
  const repo = makeGitRepo({ 'README.md': '# app\n' });
  const handle = await harness.temporal.client.workflow.start('batchConductorWorkflow', {
    args: [
      {
        workspace: repo,
        tasks: [
          { id: 'vendor', title: 'Vendor in a batch', description: 'vendor it' },
          { id: 'other', title: 'Another task', description: 'after it', dependsOn: ['vendor'] },
        ],
      },
    ],
    taskQueue: harness.taskQueue,
    workflowId: uniqueName('host-containment-batch'),
  });
  const result = (await handle.result()) as BatchResult;
  expect(result.tasks.map((task) => task.status)).toEqual(['completed', 'completed']);
  expect(fileOnBranch(repo, result.integrationBranch!, 'uses.txt')).toBe('dep\n');
  expect(fileOnBranch(repo, result.integrationBranch!, 'other.txt')).toBe('x\n');
  expect(existsSync(marker)).toBe(false);
}, 120_000);

test('a .git planted by a task in a folder outside git, and one in sub/, run nothing when later tasks work there', async () => {
  const marker = hostMarker();
  const folder = makeWorkspace({ 'notes.txt': 'notes\n' });
  harness.fake.setResponder(
    byTask({
      'Plant repositories': byTurn([
        { toolCalls: [{ name: 'run_command', input: { command: plantRepository('sub', marker) } }] },
        { toolCalls: [{ name: 'run_command', input: { command: plantRepository('.', marker) } }] },
        { text: 'Made two repositories.' },
      ]),
      'Work in the folder': byTurn([
        { toolCalls: [{ name: 'create_file', input: { path: 'later.txt', content: 'later\n' } }] },
        { text: 'Done.' },
      ]),
      'Work in sub': byTurn([
        { toolCalls: [{ name: 'create_file', input: { path: 'sub-later.txt', content: 'later\n' } }] },
        { text: 'Done.' },
      ]),
    }),
  );
  const planted = await harness.start({ title: 'Plant repositories', description: 'init', workspace: folder });
  expect(((await planted.result()) as TaskResult).status).toBe('completed');
  expect(existsSync(path.join(folder, '.git')) && existsSync(path.join(folder, 'sub/.git'))).toBe(true);

  for (const [title, workspace, file] of [
    ['Work in the folder', folder, 'later.txt'],
    ['Work in sub', path.join(folder, 'sub'), 'sub-later.txt'],
  ]) {
    const later = await harness.start({ title, description: 'work', workspace });
    const result = (await later.result()) as TaskResult;
    expect(result.status).toBe('completed');
    expect(fileOnBranch(result.git!.repo, result.git!.branch, file)).toBe('later\n');
  }
  expect(existsSync(marker)).toBe(false);
}, 120_000);

test('AGENTS.md as a symlink to the worker’s environment, to a file outside, to /dev/zero, or a FIFO: nothing of it reaches the prompt, and tasks start as usual', async () => {
  const outside = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-')), 'secret.md');
  writeFileSync(outside, 'DATABASE_URL=postgres://admin:hunter2@db/prod\n');
  const targets: [string, (file: string) => void][] = [
    ['environ', (file) => symlinkSync('/proc/self/environ', file)],
    ['outside', (file) => symlinkSync(outside, file)],
    ['zero', (file) => symlinkSync('/dev/zero', file)],
    ['fifo', (file) => execFileSync('mkfifo', [file])],
  ];
  const responders = Object.fromEntries(targets.map(([name]) => [`Instructions ${name}`, byTurn([{ text: 'Nothing to do.' }])]));
  harness.fake.setResponder(byTask({ ...responders, 'An unrelated task': byTurn([{ text: 'Done.' }]) }));
  const before = harness.fake.requests.length;
  const started = Date.now();
  const handles = await Promise.all(
    targets.map(async ([name, make]) => {
      const workspace = makeWorkspace({ 'README.md': '# x\n' });
      make(path.join(workspace, 'AGENTS.md'));
      for (const file of ['CLAUDE.md']) make(path.join(workspace, file));
      return harness.start({ title: `Instructions ${name}`, description: 'look', workspace, git: 'in-place' });
    }),
  );
  const results = (await Promise.all(handles.map((handle) => handle.result()))) as TaskResult[];
  expect(results.map((result) => result.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  // Another workspace on the same worker right after: its start is not held up by a thread stuck on a FIFO.
  const unrelated = await harness.start({ title: 'An unrelated task', description: 'x', workspace: makeWorkspace({ 'a.txt': 'a\n' }) });
  expect(((await unrelated.result()) as TaskResult).status).toBe('completed');
  expect(Date.now() - started).toBeLessThan(45_000);
  const prompts = JSON.stringify(harness.fake.requests.slice(before).map((request) => request.body.system));
  expect(prompts).not.toContain('PATH=');
  expect(prompts).not.toContain('hunter2');
  expect(prompts).not.toContain(harness.fake.apiKey);
  expect(prompts).not.toContain('Instructions from');
}, 120_000);

test('a repository with 50 MB of TypeScript: the worker keeps working, and the edit hears the type check was not run', async () => {
  const workspace = makeWorkspace({ 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src/**/*.ts'] }) });
  mkdirSync(path.join(workspace, 'src'));
  const body = `export const value: number = 1;\n${'// a generated line of a large committed TypeScript project\n'.repeat(2150)}`;
  for (let index = 0; index < 400; index += 1) writeFileSync(path.join(workspace, 'src', `m${index}.ts`), body);
  harness.fake.setResponder(
    byTask({
      'Edit a huge project': byTurn([
        {
          toolCalls: [
            { name: 'edit_file', input: { path: 'src/m0.ts', edits: [{ search: 'value: number = 1', replace: 'value: number = 2' }] } },
          ],
        },
        { text: 'Changed it.' },
      ]),
      Meanwhile: byTurn([{ toolCalls: [{ name: 'run_command', input: { command: 'sleep 2; echo slept' } }] }, { text: 'Done.' }]),
    }),
  );
  const before = harness.fake.requests.length;
  const huge = await harness.start({ title: 'Edit a huge project', description: 'edit', workspace, git: 'in-place' });
  const meanwhile = await harness.start({ title: 'Meanwhile', description: 'wait', workspace: makeWorkspace({ 'a.txt': 'a\n' }) });
  const [hugeResult, otherResult] = (await Promise.all([huge.result(), meanwhile.result()])) as TaskResult[];
  expect([hugeResult.status, otherResult.status]).toEqual(['completed', 'completed']);
  const editResult = harness.fake.requests
    .slice(before)
    .map(lastToolResult)
    .find((text) => text.includes('src/m0.ts'));
  expect(editResult).toMatch(/not run on this project \(.*over 32 MB, the incremental checker's limit\)/);
  const events = (await huge.fetchHistory()).events ?? [];
  expect(JSON.stringify(events)).not.toMatch(/TIMEOUT_TYPE_HEARTBEAT/);
}, 180_000);

test('a tasks file that asks for the model key, the network or another workspace is refused by name', async () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['key', { env: ['ANTHROPIC_API_KEY'] }, /ANTHROPIC_API_KEY is codeloop's own credential and never reaches a command/],
    ['network', { network: 'on' }, /task t asks for network .{1,3}on.{1,3}, which the batch does not give/],
    [
      'workspace',
      { workspace: path.join(os.tmpdir(), 'another-project') },
      /task t names a workspace .*workspace, host, network and env come only from the batch input/,
    ],
    ['env', { env: ['DATABASE_URL'] }, /task t asks for env DATABASE_URL, beyond the batch's env/],
  ];
  for (const [name, fields, message] of cases) {
    const repo = makeGitRepo({ 'tasks.yaml': JSON.stringify([{ id: 't', title: `Asks for ${name}`, description: 'x', ...fields }]) });
    const handle = await harness.temporal.client.workflow.start('batchConductorWorkflow', {
      args: [{ workspace: repo, tasksFile: 'tasks.yaml' }],
      taskQueue: harness.taskQueue,
      workflowId: uniqueName(`tasks-file-${name}`),
    });
    await expect(handle.result()).rejects.toThrow();
    const failure = JSON.stringify((await handle.fetchHistory()).events?.at(-1));
    expect(failure, name).toMatch(message);
  }
}, 120_000);

test('a question with escape sequences is shown, not obeyed, by blockers list; --json keeps it exact', async () => {
  const hidden = 'Approve?\x1b[2K\r\x1b[1Arm -rf build';
  harness.fake.setResponder(
    byTask({ 'Ask oddly': byTurn([{ toolCalls: [{ name: 'raise_blocker', input: { question: hidden } }] }, { text: 'ok' }]) }),
  );
  const handle = await harness.start({ title: 'Ask oddly', description: 'ask', workspace: makeWorkspace({ 'a.txt': 'a\n' }) });
  const listed = await eventuallyListed(handle.workflowId);
  expect(listed.stdout).toMatch(/Approve\?\\x1b\[2K.{1,4}\\x1b\[1Arm -rf build/);
  expect(listed.stdout.includes('\x1b') || listed.stdout.includes('\r')).toBe(false);
  const json = await runCli(['blockers', 'list', '--json'], cliEnv());
  expect(json.stdout).toContain(JSON.stringify(hidden).slice(1, -1));
  await runCli(['blockers', 'answer', handle.workflowId, 'no'], cliEnv());
  expect(((await handle.result()) as TaskResult).status).toBe('completed');
}, 60_000);

async function eventuallyListed(workflowId: string) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const listed = await runCli(['blockers', 'list'], cliEnv());
    if (listed.stdout.includes(workflowId)) return listed;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`blockers list never showed ${workflowId}`);
}
