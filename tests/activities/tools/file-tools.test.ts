import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, test } from 'vitest';
import { createWorkspaceFile } from '../../../src/activities/tools/create-file.js';
import { createToolActivities } from '../../../src/activities/tools/index.js';
import { editWorkspaceFile } from '../../../src/activities/tools/edit-file.js';
import { listWorkspaceFiles } from '../../../src/activities/tools/list-files.js';
import { readWorkspaceFile } from '../../../src/activities/tools/read-file.js';
import { searchCodebase } from '../../../src/activities/tools/search-codebase.js';
import { makeWorkspace } from '../../support/workspace.js';

const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

describe('read_file', () => {
  test('numbers lines', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'one\ntwo\n' });
    expect(await readWorkspaceFile(workspace, { path: 'a.txt' })).toEqual({
      content: 'a.txt (2 lines):\n1 | one\n2 | two',
      isError: false,
      changedFile: undefined,
    });
  });

  test('a file over 500 lines shows the first 200 and the last 50', async () => {
    const workspace = makeWorkspace({ 'big.txt': lines(600) });
    const { content } = await readWorkspaceFile(workspace, { path: 'big.txt' });
    expect(content).toContain('big.txt (600 lines); showing the first 200 and last 50 lines');
    expect(content).toContain('200 | line 200');
    expect(content).not.toContain('line 201\n');
    expect(content).toContain('lines 201-550 omitted');
    expect(content).toContain('551 | line 551');
    expect(content).toContain('600 | line 600');
    expect(content).not.toContain('| line 550\n');
  });

  test("a 406-line file is shown whole; past 100,000 characters the cut falls between lines and names the file's own line numbers", async () => {
    const workspace = makeWorkspace({
      'mid.py': Array.from({ length: 406 }, (_, n) => `value_${n + 1} = ${'1 + '.repeat(20)}0`).join('\n') + '\n',
      'wide.py': Array.from({ length: 406 }, (_, n) => `value_${n + 1} = "${'x'.repeat(300)}"`).join('\n') + '\n',
    });
    const whole = (await readWorkspaceFile(workspace, { path: 'mid.py' })).content;
    expect(whole.split('\n')[0]).toBe('mid.py (406 lines):');
    expect(whole).toContain(`406 | value_406 = ${'1 + '.repeat(20)}0`);
    expect(whole).not.toContain('not shown');
    const wide = (await readWorkspaceFile(workspace, { path: 'wide.py' })).content.split('\n');
    const last = Number(/^wide\.py \(406 lines\), lines 1-(\d+):$/.exec(wide[0]!)?.[1]);
    expect(last).toBeGreaterThan(250);
    expect(wide.at(-2)).toBe(`${last} | value_${last} = "${'x'.repeat(300)}"`);
    expect(wide.at(-1)).toContain(`… lines ${last + 1}-406 not shown`);
    expect(wide.at(-1)).toContain(`pass start_line ${last + 1} to read on`);
  });

  test('a file just over 500 lines still shows its last 50', async () => {
    const workspace = makeWorkspace({ 'f.txt': lines(520) });
    const { content } = await readWorkspaceFile(workspace, { path: 'f.txt' });
    expect(content).toContain('f.txt (520 lines); showing the first 200 and last 50 lines:');
    expect(content).toContain('… lines 201-470 omitted');
    expect(content).toContain('471 | line 471\n472 | line 472');
    expect(content.endsWith('520 | line 520')).toBe(true);
  });

  test('exactly 500 lines is shown whole', async () => {
    const workspace = makeWorkspace({ 'f.txt': lines(500) });
    const { content } = await readWorkspaceFile(workspace, { path: 'f.txt' });
    expect(content).toContain('250 | line 250');
  });

  test('a range shows just those lines, even in a long file', async () => {
    const workspace = makeWorkspace({ 'big.txt': lines(600) });
    const { content } = await readWorkspaceFile(workspace, { path: 'big.txt', start_line: 300, end_line: 302 });
    expect(content).toBe('big.txt (600 lines), lines 300-302:\n300 | line 300\n301 | line 301\n302 | line 302');
  });

  test('missing files, directories, binaries and escapes are observations', async () => {
    const workspace = makeWorkspace({ 'dir/a.txt': 'x' });
    writeFileSync(path.join(workspace, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect(await readWorkspaceFile(workspace, { path: 'nope.txt' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('does not exist'),
    });
    expect(await readWorkspaceFile(workspace, { path: 'dir' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('is a directory'),
    });
    expect(await readWorkspaceFile(workspace, { path: 'bin.dat' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('binary'),
    });
    expect(await readWorkspaceFile(workspace, { path: '../../etc/passwd' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('outside'),
    });
    expect(await readWorkspaceFile(workspace, { path: 'dir/a.txt', start_line: 5 })).toMatchObject({ isError: true });
  });

  test('CRLF line ends and a byte order mark are not shown; a last line without a newline is', async () => {
    const workspace = makeWorkspace({ 'win.txt': '\ufeffone\r\ntwo\r\nthree' });
    expect((await readWorkspaceFile(workspace, { path: 'win.txt' })).content).toBe('win.txt (3 lines):\n1 | one\n2 | two\n3 | three');
  });

  test('an empty file reads as one empty line', async () => {
    const workspace = makeWorkspace({ 'empty.txt': '' });
    expect((await readWorkspaceFile(workspace, { path: 'empty.txt' })).content).toBe('empty.txt (1 lines):\n1 | ');
  });

  test('the tail of a long file is read from its end, numbered by its place in the file', async () => {
    const workspace = makeWorkspace({ 'big.txt': lines(100_000).replace('line 99999\n', 'line 99999\r\n') });
    const { content } = await readWorkspaceFile(workspace, { path: 'big.txt' });
    expect(content).toContain('big.txt (100000 lines); showing the first 200 and last 50 lines:');
    expect(content).toContain('… lines 201-99950 omitted');
    expect(content.split('\n').slice(-3)).toEqual([' 99998 | line 99998', ' 99999 | line 99999', '100000 | line 100000']);
  });
});

describe('list_files', () => {
  test('skips .git, node_modules and build output, and respects max_depth', async () => {
    const workspace = makeWorkspace({
      'src/a.ts': '',
      'src/deep/er/b.ts': '',
      'node_modules/x/index.js': '',
      '.git/HEAD': '',
      'dist/out.js': '',
      '__pycache__/m.pyc': '',
      '.env.example': '',
    });
    const { content } = await listWorkspaceFiles(workspace, { max_depth: 2 });
    expect(content.split('\n').slice(1)).toEqual(['.env.example', 'src/', 'src/a.ts', 'src/deep/']);
    const deep = await listWorkspaceFiles(workspace, { max_depth: 5, path: 'src', pattern: '**/*.ts' });
    expect(deep.content.split('\n').slice(1)).toEqual(['src/a.ts', 'src/deep/er/b.ts']);
  });
});

describe('search_codebase', () => {
  test('regex over text files, with max_results and a count of the rest', async () => {
    const workspace = makeWorkspace({
      'a.py': 'def foo():\n  pass\ndef food():\n',
      'b.ts': 'function foo() {}\n',
      'node_modules/z.js': 'foo',
    });
    const all = await searchCodebase(workspace, { pattern: 'foo\\w*\\(', max_results: 20 });
    expect(all.content).toBe('3 matches for /foo\\w*\\(/:\na.py:1 | def foo():\na.py:3 | def food():\nb.ts:1 | function foo() {}');
    const limited = await searchCodebase(workspace, { pattern: 'foo', max_results: 1 });
    expect(limited.content).toContain('… 2 more matches');
    const globbed = await searchCodebase(workspace, { pattern: 'foo', file_glob: '**/*.ts', max_results: 20 });
    expect(globbed.content).toBe('1 matches for /foo/:\nb.ts:1 | function foo() {}');
  });

  test('skips binary files, files over 1 MB and symlinks out of the workspace', async () => {
    const workspace = makeWorkspace({ 'small.txt': 'needle\n' });
    writeFileSync(path.join(workspace, 'bin.dat'), Buffer.concat([Buffer.from('needle'), Buffer.from([0])]));
    writeFileSync(path.join(workspace, 'huge.txt'), `needle\n${'x'.repeat(1_100_000)}`);
    const elsewhere = makeWorkspace({ 'secret.txt': 'needle' });
    symlinkSync(path.join(elsewhere, 'secret.txt'), path.join(workspace, 'link.txt'));
    const { content } = await searchCodebase(workspace, { pattern: 'needle', max_results: 20 });
    expect(content).toBe('1 matches for /needle/:\nsmall.txt:1 | needle');
  });

  test('an invalid regex is an observation', async () => {
    const result = await searchCodebase(makeWorkspace(), { pattern: '(', max_results: 20 });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('invalid regular expression') });
  });
});

describe('create_file', () => {
  test('creates with parent directories, and refuses an existing file', async () => {
    const workspace = makeWorkspace({ 'exists.txt': 'old' });
    expect(await createWorkspaceFile(workspace, { path: 'a/b/new.txt', content: 'x\ny\n' })).toEqual({
      content: 'created a/b/new.txt (2 lines)',
      isError: false,
      changedFile: 'a/b/new.txt',
    });
    expect(readFileSync(path.join(workspace, 'a/b/new.txt'), 'utf8')).toBe('x\ny\n');
    const refused = await createWorkspaceFile(workspace, { path: 'exists.txt', content: 'new' });
    expect(refused).toMatchObject({ isError: true, content: 'exists.txt already exists; use edit_file to change it' });
    expect(readFileSync(path.join(workspace, 'exists.txt'), 'utf8')).toBe('old');
  });

  test('a symlinked directory inside the workspace is followed; a file on the way is not a directory', async () => {
    const workspace = makeWorkspace({ 'real/keep.txt': '', 'notes.txt': 'x' });
    symlinkSync('real', path.join(workspace, 'alias'));
    expect(await createWorkspaceFile(workspace, { path: 'alias/new.txt', content: 'n\n' })).toMatchObject({
      isError: false,
      changedFile: 'real/new.txt',
    });
    expect(readFileSync(path.join(workspace, 'real/new.txt'), 'utf8')).toBe('n\n');
    expect(await createWorkspaceFile(workspace, { path: 'notes.txt/inner.txt', content: 'n' })).toEqual({
      content: 'cannot create notes.txt/inner.txt: notes.txt is not a directory',
      isError: true,
    });
  });

  test('a retry that finds its own content succeeds without writing', async () => {
    const workspace = makeWorkspace();
    await createWorkspaceFile(workspace, { path: 'n.txt', content: 'same' });
    expect(await createWorkspaceFile(workspace, { path: 'n.txt', content: 'same' })).toMatchObject({ isError: false });
  });
});

describe('edit_file', () => {
  test('applies and returns a unified diff', async () => {
    const workspace = makeWorkspace({ 'a.py': 'x = 1\ny = 2\n' });
    const result = await editWorkspaceFile(workspace, { path: 'a.py', edits: [{ search: 'y = 2', replace: 'y = 3' }] });
    expect(result.isError).toBe(false);
    expect(result.content).toContain('--- a/a.py');
    expect(result.content).toContain('-y = 2');
    expect(result.content).toContain('+y = 3');
    expect(readFileSync(path.join(workspace, 'a.py'), 'utf8')).toBe('x = 1\ny = 3\n');
  });

  test('a retried edit whose result is in place succeeds and writes nothing twice', async () => {
    const workspace = makeWorkspace({ 'a.py': 'x = 1\nprint(x)\n' });
    const edit = { path: 'a.py', edits: [{ search: 'x = 1', replace: 'x = 1\ny = 2' }] };
    await editWorkspaceFile(workspace, edit);
    const retry = await editWorkspaceFile(workspace, edit, { attempt: 2 });
    expect(retry).toMatchObject({ isError: false, content: expect.stringContaining('already in place') });
    expect(readFileSync(path.join(workspace, 'a.py'), 'utf8')).toBe('x = 1\ny = 2\nprint(x)\n');
  });

  test('an edited file keeps its permissions', async () => {
    const workspace = makeWorkspace({ 'run.sh': '#!/bin/sh\necho one\n' });
    chmodSync(path.join(workspace, 'run.sh'), 0o750);
    await editWorkspaceFile(workspace, { path: 'run.sh', edits: [{ search: 'echo one', replace: 'echo two' }] });
    expect(readFileSync(path.join(workspace, 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho two\n');
    expect(statSync(path.join(workspace, 'run.sh')).mode & 0o777).toBe(0o750);
  });

  test('the editFile activity takes a retry from its attempt, and a first call outside an activity as attempt 1', async () => {
    const shell = () => Promise.reject(new Error('no command runs with linting off'));
    const { editFile } = createToolActivities({ shell });
    const workspace = makeWorkspace({ 'a.py': 'x = 2\n', 'codeloop.json': '{ "lint": false }' });
    const call = { workspace, input: { path: 'a.py', edits: [{ search: 'x = 1', replace: 'x = 2' }] } };
    expect(await editFile(call)).toMatchObject({ isError: true, content: expect.stringContaining('not found') });
    const retried = await new MockActivityEnvironment({ attempt: 2 }).run(editFile, call);
    expect(retried).toMatchObject({ isError: false, content: 'a.py: the requested change is already in place; nothing to do' });
    const first = await new MockActivityEnvironment({ attempt: 1 }).run(editFile, call);
    expect(first).toMatchObject({ isError: true });
    expect(readFileSync(path.join(workspace, 'a.py'), 'utf8')).toBe('x = 2\n');
  });

  test('a failed block writes nothing and reports the nearest lines', async () => {
    const workspace = makeWorkspace({ 'a.py': 'alpha = 1\nbeta = 2\n' });
    const result = await editWorkspaceFile(workspace, {
      path: 'a.py',
      edits: [
        { search: 'alpha = 1', replace: 'alpha = 10' },
        { search: 'gamma = 99', replace: 'gamma = 3' },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/Edit 2 of 2 failed/);
    expect(result.content).toMatch(/1 \| alpha = 1/);
    expect(readFileSync(path.join(workspace, 'a.py'), 'utf8')).toBe('alpha = 1\nbeta = 2\n');
  });
});
