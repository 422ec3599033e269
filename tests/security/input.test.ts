import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createBatchFileActivities } from '../../src/activities/batch-files.js';
import { createToolActivities } from '../../src/activities/tools/index.js';
import { createWorkspaceActivities } from '../../src/activities/workspace.js';
import { parseTasksFile } from '../../src/shared/batch-file.js';
import { parseBatchInput } from '../../src/shared/batch-input.js';
import { criticalPath } from '../../src/shared/dag.js';
import { parseTaskInput } from '../../src/shared/task-input.js';
import { runCli, runCliProcess } from '../support/cli.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeGitRepo, makeWorkspace } from '../support/workspace.js';

/**
 * Input a hostile model, a prompt injection or a careless operator can send, against the real schemas, activities
 * and CLI: each is refused with a message that names the problem and the fix, and nothing outside the workspace is
 * touched.
 */

const { bindWorkspace, describeWorkspace, openWorkspace } = createWorkspaceActivities({
  hostId: 'host-a',
  hostQueue: 'codeloop@host-a',
  sandbox: 'on',
});
const { runTests } = createToolActivities({ shell: sandboxedShell() });

/** The error a call throws, so its message and type can be asserted (or `undefined` when it does not throw). */
async function errorOf(call: () => unknown): Promise<{ message: string; type?: string; nonRetryable?: boolean } | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return error as { message: string; type?: string; nonRetryable?: boolean };
  }
}

const task = (id: string, dependsOn: string[] = []) => ({ id, title: `Task ${id}`, description: `do ${id}`, dependsOn });

describe('workspace: refused by name in the schema, and by its real path when bound', () => {
  const home = process.env.HOME;
  afterEach(() => {
    process.env.HOME = home;
  });

  test.each([
    '/',
    '/etc',
    '/etc/',
    '//etc',
    '/./etc',
    '/tmp/../etc',
    '/usr/share',
    '/proc/self/root',
    '/tmp',
    '/home',
    '/root',
    '/home/alice',
  ])('task input workspace %s is refused before anything starts', async (workspace) => {
    const error = await errorOf(() => parseTaskInput({ description: 'x', workspace }));
    expect(error).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    expect(error!.message).toMatch(
      /^invalid task input: workspace: ".+" .*(the root of the file system|system directory|home directory itself).*; pass the checkout/,
    );
  });

  test('a batch refuses the same workspaces, for itself and for each task', async () => {
    const batch = await errorOf(() => parseBatchInput({ workspace: '/var/', tasks: [task('a')] }));
    expect(batch?.message).toContain('workspace: "/var/" (/var) is a system directory');
    const perTask = await errorOf(() => parseBatchInput({ tasks: [{ ...task('a'), workspace: '/home/alice' }] }));
    expect(perTask?.message).toContain(
      'tasks.0.workspace: "/home/alice" is a home directory itself; pass the checkout inside it, e.g. /home/alice/project',
    );
  });

  test('a batch refuses two hosts for one workspace, naming both', async () => {
    const tasks = [
      { ...task('a'), hostQueue: 'codeloop@build-01' },
      { ...task('b'), hostQueue: 'codeloop@build-02' },
      { ...task('c'), workspace: '/tmp/other', hostQueue: 'codeloop@build-02' },
    ];
    const error = await errorOf(() => parseBatchInput({ workspace: '/tmp/x', tasks }));
    expect(error?.message).toBe(
      'invalid batch: task b pins workspace /tmp/x to codeloop@build-02, another task to codeloop@build-01; one workspace has one host',
    );
  });

  test('bindWorkspace refuses a system directory named directly', async () => {
    const error = await errorOf(() => bindWorkspace('/etc'));
    expect(error).toMatchObject({ type: 'WorkspaceUnavailable', nonRetryable: true });
    expect(error!.message).toBe(
      'workspace /etc is refused on worker host-a: "/etc" is a system directory; pass the checkout\'s own directory, e.g. /home/you/project or /srv/checkouts/project',
    );
  });

  test('openWorkspace refuses what bindWorkspace refuses, and describes what it binds unless the task branches in git', async () => {
    const refused = await errorOf(() => openWorkspace('/etc', { ownBranch: false }));
    expect(refused).toMatchObject({ type: 'WorkspaceUnavailable', nonRetryable: true });
    expect(refused).toEqual(await errorOf(() => bindWorkspace('/etc')));
    const plain = makeWorkspace({ 'AGENTS.md': 'Use tabs.\n' });
    const opened = await openWorkspace(plain, { ownBranch: true });
    expect(opened.binding).toEqual(await bindWorkspace(plain));
    expect(opened.project).toEqual(await describeWorkspace(opened.binding.workspace));
    const repo = makeGitRepo();
    expect(await openWorkspace(repo, { ownBranch: true })).toEqual({ binding: await bindWorkspace(repo) });
    expect((await openWorkspace(repo, { ownBranch: false })).project?.fileTree).toContain('README.md');
  });

  test('bindWorkspace refuses a symlink to /etc or to a home directory, naming where it leads', async () => {
    const links = makeWorkspace();
    symlinkSync('/etc', path.join(links, 'to-etc'));
    symlinkSync(os.homedir(), path.join(links, 'to-home'));
    const toEtc = await errorOf(() => bindWorkspace(path.join(links, 'to-etc')));
    expect(toEtc).toMatchObject({ type: 'WorkspaceUnavailable', nonRetryable: true });
    expect(toEtc!.message).toContain(`workspace ${links}/to-etc is refused on worker host-a: its real path "/etc" is a system directory`);
    const toHome = await errorOf(() => bindWorkspace(path.join(links, 'to-home')));
    expect(toHome).toMatchObject({ type: 'WorkspaceUnavailable', nonRetryable: true });
    expect(toHome!.message).toContain(`its real path "${realpathSync(os.homedir())}" `);
    expect(toHome!.message).toMatch(/home directory itself|a system directory/);
  });

  test("bindWorkspace refuses the worker's home directory and any directory that holds it", async () => {
    const parent = realpathSync(makeWorkspace());
    process.env.HOME = path.join(parent, 'worker-home');
    mkdirSync(process.env.HOME);
    const itself = await errorOf(() => bindWorkspace(process.env.HOME!));
    expect(itself?.message).toBe(
      `workspace ${parent}/worker-home is refused on worker host-a: "${parent}/worker-home" is a home directory itself; pass the checkout inside it, e.g. ${parent}/worker-home/project`,
    );
    const holder = await errorOf(() => bindWorkspace(parent));
    expect(holder).toMatchObject({ type: 'WorkspaceUnavailable', nonRetryable: true });
    expect(holder!.message).toContain(`"${parent}" holds the worker's home directory ${parent}/worker-home`);
    mkdirSync(path.join(process.env.HOME, 'project'));
    expect((await bindWorkspace(path.join(process.env.HOME, 'project'))).workspace).toBe(`${parent}/worker-home/project`);
  });

  test('a checkout under the temp directory, even reached through a symlink, is bound to its real path', async () => {
    const checkout = realpathSync(makeWorkspace());
    const link = path.join(makeWorkspace(), 'link');
    symlinkSync(checkout, link);
    expect(await bindWorkspace(link)).toEqual({
      hostId: 'host-a',
      hostQueue: 'codeloop@host-a',
      workspace: checkout,
      sandbox: 'on',
      inGitRepo: false,
    });
  });
});

describe('unknown keys are refused by name, never dropped', () => {
  test('task input: "aproval" would have left approval at never', async () => {
    const error = await errorOf(() => parseTaskInput({ description: 'x', workspace: '/tmp/x', aproval: 'always' }));
    expect(error).toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      message: 'invalid task input: unknown key "aproval" (did you mean "approval"?)',
    });
  });

  test('batch input, each batch task, and several at once', async () => {
    const error = await errorOf(() =>
      parseBatchInput({ workspace: '/tmp/x', maxParalel: 2, tasks: [task('a'), { ...task('b'), dependOn: ['a'] }], extra: true }),
    );
    expect(error?.message).toBe(
      'invalid batch input: tasks.1: unknown key "dependOn" (did you mean "dependsOn"?); unknown key "maxParalel" (did you mean "maxParallel"?); unknown key "extra"',
    );
  });

  test('taskDefaults: each key must be a task input field the batch does not set itself, with a valid value', async () => {
    const error = await errorOf(() =>
      parseBatchInput({
        workspace: '/tmp/x',
        tasks: [task('a')],
        taskDefaults: { aproval: 'always', workspace: '/tmp/y', onStall: 'shrug' },
      }),
    );
    expect(error?.message).toContain('taskDefaults.aproval: unknown key "aproval" (did you mean "approval"?)');
    expect(error?.message).toContain('taskDefaults.workspace: the batch sets workspace for each task itself; remove it from taskDefaults');
    expect(error?.message).toContain('taskDefaults.onStall: Invalid option');
  });

  test('valid taskDefaults are kept as written, so their defaults do not override the batch network', () => {
    const input = parseBatchInput({
      workspace: '/tmp/x',
      network: 'on',
      tasks: [task('a')],
      taskDefaults: { approval: 'always', blockerTimeout: '1h' },
    });
    expect(input.taskDefaults).toEqual({ approval: 'always', blockerTimeout: '1h' });
    expect(input.network).toBe('on');
  });

  test('tasks files, as a list or as { tasks }, refuse unknown keys and a tasks that is not a list', async () => {
    expect((await errorOf(() => parseTasksFile('- { id: a, title: A, description: d, depends: [] }', 'tasks.yaml')))?.message).toBe(
      'tasks file tasks.yaml: tasks.0: unknown key "depends" (did you mean "dependsOn"?)',
    );
    expect((await errorOf(() => parseTasksFile('{"tasks": [], "taks": []}', 'tasks.json')))?.message).toBe(
      'tasks file tasks.json: unknown key "taks" (did you mean "tasks"?)',
    );
    expect((await errorOf(() => parseTasksFile('tasks: do everything', 'tasks.yaml')))?.message).toBe(
      'tasks file tasks.yaml: tasks: must be a list of tasks, each { id, title, description, dependsOn? }',
    );
    expect(parseTasksFile('tasks: [{ id: a, title: A, description: d }]', 'tasks.yaml')).toEqual([
      { id: 'a', title: 'A', description: 'd', dependsOn: [] },
    ]);
  });
});

describe('a batch tasksFile is read only when it is a regular file inside the workspace', () => {
  const { readTasksFile } = createBatchFileActivities();
  const refusal = async (workspace: string, file: string) => {
    const started = performance.now();
    const error = await errorOf(() => readTasksFile({ workspace, file }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toMatchObject({ type: 'InvalidBatch', nonRetryable: true });
    return error!.message;
  };

  test('a FIFO is refused at once instead of holding the activity', async () => {
    const workspace = makeWorkspace();
    execFileSync('mkfifo', [path.join(workspace, 'tasks.yaml')]);
    expect(await refusal(workspace, 'tasks.yaml')).toBe(
      `cannot read tasks file tasks.yaml in ${workspace}: it is not a regular file inside the workspace (a FIFO, device, directory or symlink out is never read)`,
    );
  });

  test('a symlink to a file outside, a path outside and a missing file are refused by name', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
    writeFileSync(path.join(outside, 'tasks.yaml'), '- { id: a, title: A, description: d }\n');
    const workspace = makeWorkspace();
    symlinkSync(path.join(outside, 'tasks.yaml'), path.join(workspace, 'tasks.yaml'));
    expect(await refusal(workspace, 'tasks.yaml')).toMatch(/is outside the workspace|not a regular file inside the workspace/);
    expect(await refusal(workspace, path.join(outside, 'tasks.yaml'))).toContain('is outside the workspace');
    expect(await refusal(workspace, 'missing.yaml')).toContain('no such file or directory');
  });

  test('a regular file inside is read and parsed', async () => {
    const workspace = makeWorkspace({ 'tasks.yaml': '- { id: a, title: A, description: d }\n' });
    expect(await readTasksFile({ workspace, file: 'tasks.yaml' })).toEqual([{ id: 'a', title: 'A', description: 'd', dependsOn: [] }]);
  });
});

describe('a 50,000-task chain validates and yields its critical path in under 2 s, in any order', () => {
  const size = 50_000;
  const chain = Array.from({ length: size }, (_, i) => task(`t${i}`, i ? [`t${i - 1}`] : []));
  /** Fisher-Yates with a fixed-seed LCG, so a failure reproduces. */
  const shuffled = (list: typeof chain, seed = 20_251_120) => {
    const copy = [...list];
    let state = seed;
    for (let i = copy.length - 1; i > 0; i--) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      const j = state % (i + 1);
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy;
  };

  test.each([
    ['forward', chain],
    ['reverse', [...chain].reverse()],
    ['shuffled', shuffled(chain)],
  ])('%s', (_order, tasks) => {
    const parseStart = performance.now();
    const input = parseBatchInput({ workspace: '/tmp/x', tasks });
    const parseMs = performance.now() - parseStart;
    const pathStart = performance.now();
    const longest = criticalPath(input.tasks, () => 1);
    const pathMs = performance.now() - pathStart;
    expect(input.tasks).toHaveLength(size);
    expect(longest.durationMs).toBe(size);
    expect(longest.ids[0]).toBe('t0');
    expect(longest.ids.at(-1)).toBe(`t${size - 1}`);
    expect(parseMs).toBeLessThan(2_000);
    expect(pathMs).toBeLessThan(2_000);
  });

  test('the same chain closed into a cycle is refused, naming it', async () => {
    const closed = shuffled([{ ...chain[0], dependsOn: [`t${size - 1}`] }, ...chain.slice(1)]);
    const started = performance.now();
    const error = await errorOf(() => parseBatchInput({ workspace: '/tmp/x', tasks: closed }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ type: 'InvalidBatch', nonRetryable: true });
    expect(error!.message).toMatch(/^invalid batch: cycle: t\d+ → /);
    expect(error!.message.split(' → ')).toHaveLength(size + 1);
  });
});

describe('run_tests: test_path is a path inside the workspace, never an option', () => {
  const pytestProject = () => makeWorkspace({ 'pyproject.toml': '', 'tests/test_ok.py': 'def test_ok():\n    assert True\n' });
  const outsideDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
    writeFileSync(path.join(dir, 'keep.txt'), 'keep');
    return dir;
  };

  test('--basetemp=DIR is refused before pytest runs, and DIR survives', async () => {
    const outside = outsideDir();
    const result = await runTests({ workspace: pytestProject(), input: { test_path: `--basetemp=${outside}` } });
    expect(result).toEqual({
      isError: true,
      content: `test_path --basetemp=${outside} looks like an option; pass a file or directory in the workspace, e.g. tests/test_app.py`,
    });
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });

  test('a path outside the workspace, by .., absolute or through a symlink, is refused', async () => {
    const workspace = pytestProject();
    const outside = outsideDir();
    symlinkSync(outside, path.join(workspace, 'tests', 'elsewhere'));
    for (const testPath of [path.relative(workspace, outside), outside, 'tests/elsewhere']) {
      const result = await runTests({ workspace, input: { test_path: testPath } });
      expect(result).toEqual({
        isError: true,
        content: `path ${testPath} is outside the workspace; use a path relative to the workspace root`,
      });
    }
    expect(existsSync(path.join(outside, 'keep.txt'))).toBe(true);
  });

  test('a path inside runs, passed as ./path so no runner reads it as an option', async () => {
    const result = await runTests({ workspace: pytestProject(), input: { test_path: 'tests/../tests/test_ok.py' } });
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/^\$ python3 -m pytest -q '\.\/tests\/test_ok\.py'\n/);
    expect(result.content).toContain('1 passed');
  }, 30_000);
});

describe('a package.json that cannot be read is a tool error and a note in the tech stack, never a failed activity', () => {
  const cases: [name: string, prepare: (workspace: string) => void, problem: string][] = [
    [
      'malformed JSON',
      (workspace) => writeFileSync(path.join(workspace, 'package.json'), '{"scripts": {"test": '),
      'it is not valid JSON (',
    ],
    [
      'JSON that is not an object',
      (workspace) => writeFileSync(path.join(workspace, 'package.json'), 'null'),
      'it does not hold a JSON object',
    ],
    [
      'a FIFO, which would block a read for ever',
      (workspace) => execFileSync('mkfifo', [path.join(workspace, 'package.json')]),
      'it is not a regular file',
    ],
    ['a directory', (workspace) => mkdirSync(path.join(workspace, 'package.json')), 'it is not a regular file'],
  ];

  test.each(cases)('%s', async (_name, prepare, problem) => {
    const workspace = makeWorkspace({ 'tests/test_ok.py': 'def test_ok():\n    assert True\n' });
    prepare(workspace);
    const result = await runTests({ workspace, input: {} });
    expect(result).toEqual({ isError: true, content: expect.stringMatching(/^package\.json cannot be read: /) });
    expect(result.content).toContain(problem);
    expect(result.content).toMatch(/; fix it so run_tests can find the "test" script$/);
    const project = await describeWorkspace(workspace);
    expect(project.techStack.slice(0, 2)).toEqual(['Node.js', expect.stringContaining(`(package.json cannot be read: ${problem}`)]);
  });

  test('a symlink to a file outside is not followed, so a parse error cannot quote it', async () => {
    const secret = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-')), 'token');
    writeFileSync(secret, 'TOKEN-not-json-1234');
    const workspace = makeWorkspace();
    symlinkSync(secret, path.join(workspace, 'package.json'));
    const result = await runTests({ workspace, input: {} });
    expect(result).toEqual({
      isError: true,
      content: 'package.json cannot be read: it is a symlink; fix it so run_tests can find the "test" script',
    });
    const project = await describeWorkspace(workspace);
    expect(project.techStack).toEqual(['Node.js', '(package.json cannot be read: it is a symlink)']);
  });

  test('a "test" script that is not a string is no test script at all', async () => {
    const workspace = makeWorkspace({ 'package.json': '{"scripts": {"test": 5}, "dependencies": "typescript"}' });
    expect(await runTests({ workspace, input: {} })).toEqual({
      isError: true,
      content: 'no test runner found: add a "test" script to package.json, pytest tests, or "test": "<command>" to codeloop.json',
    });
    expect((await describeWorkspace(workspace)).techStack).toEqual(['Node.js']);
  });
});

describe('CLI: a bad file or option is one line naming the problem and the fix, no stack trace', () => {
  const oneLine = (stderr: string) => {
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    return stderr.trimEnd();
  };

  test('missing files, an option a command does not have, a tasks that is not a list, a system workspace', async () => {
    const dir = makeWorkspace({ 'batch.yaml': 'workspace: .\ntasks: write the whole app\n' });
    const [unknownOption, missingPrd, missingBatch, tasksNotAList, rootWorkspace] = await Promise.all([
      runCliProcess(['batch', 'start', '--prd', 'missing.md']),
      runCli(['task', 'start', '--workspace', dir, '--prd', path.join(dir, 'missing.md'), 'do it']),
      runCli(['batch', 'start', path.join(dir, 'missing.yaml')]),
      runCli(['batch', 'start', path.join(dir, 'batch.yaml')]),
      runCli(['task', 'start', '--workspace', '/', 'do it']),
    ]);
    expect(unknownOption.code).toBe(1);
    expect(oneLine(unknownOption.stderr)).toBe("codeloop: unknown option '--prd'; add --help to see the command's usage");
    expect(missingPrd.code).toBe(2);
    expect(oneLine(missingPrd.stderr)).toMatch(
      new RegExp(`^codeloop: cannot read the --prd file ${dir}/missing\\.md: no such file; pass the path of an existing file`),
    );
    expect(missingBatch.code).toBe(2);
    expect(oneLine(missingBatch.stderr)).toMatch(
      /^codeloop: cannot read the batch file .*missing\.yaml: no such file; pass the path of an existing file/,
    );
    expect(tasksNotAList.code).toBe(2);
    expect(oneLine(tasksNotAList.stderr)).toBe(
      `codeloop: ${dir}/batch.yaml: invalid batch input: tasks: must be a list of tasks, each { id, title, description, dependsOn? }`,
    );
    expect(rootWorkspace.code).toBe(2);
    expect(oneLine(rootWorkspace.stderr)).toMatch(
      /^codeloop: invalid task input: workspace: "\/" is the root of the file system, not a checkout; pass the checkout/,
    );
  }, 60_000);
});
