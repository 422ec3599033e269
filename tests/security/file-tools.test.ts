import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { createWorkspaceFile } from '../../src/activities/tools/create-file.js';
import { editWorkspaceFile } from '../../src/activities/tools/edit-file.js';
import { readWorkspaceFile } from '../../src/activities/tools/read-file.js';
import { READ_FILE } from '../../src/shared/constants.js';
import type { ToolOutcome } from '../../src/activities/tools/tool-outcome.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * What a hostile model (or a file it reads) can try against the file tools, run against the real activity functions
 * and judged by the outcome: what is on disk inside and outside the workspace, what the tool returned, and how long
 * it took.
 */

const makeOutside = (files: Record<string, string> = {}) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return dir;
};

/** Regular files under `dir` whose name matches, found without following symlinks. */
function findRegularFiles(dir: string, name: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && name.test(entry.name))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/**
 * In its own process, swaps `entry` (a file or directory) for a symlink to `target` and back, holding each for
 * 0.1 ms. A directory a tool made in the gap is folded back into the real one, so
 * every file written inside stays countable.
 */
const SWAPPER = `
  const fs = require('node:fs');
  const path = require('node:path');
  const [entry, target, stop] = process.argv.slice(1);
  const aside = entry + '.aside';
  const attempt = (step) => { try { step(); return true; } catch { return false; } };
  const isDirectory = (file) => { try { return fs.lstatSync(file).isDirectory(); } catch { return false; } };
  const putBack = () => {
    while (!attempt(() => fs.renameSync(aside, entry)) && isDirectory(entry)) {
      attempt(() => {
        for (const name of fs.readdirSync(entry)) fs.renameSync(path.join(entry, name), path.join(aside, name));
        fs.rmdirSync(entry);
      });
    }
  };
  const hold = () => {
    const until = process.hrtime.bigint() + 100000n;
    while (process.hrtime.bigint() < until);
  };
  let swaps = 0;
  process.stdout.write('started\\n');
  while (!fs.existsSync(stop)) {
    if (!attempt(() => fs.renameSync(entry, aside))) continue;
    attempt(() => fs.symlinkSync(target, entry));
    hold();
    attempt(() => fs.unlinkSync(entry));
    putBack();
    swaps += 1;
    hold();
  }
  process.stdout.write(String(swaps));
`;

/**
 * Makes `count` calls one after another while `entry` keeps being swapped for a symlink to `target`, and more (up to
 * ten times as many) until `enough` holds: on a loaded machine a whole run of calls can meet the swapped state.
 */
async function raceSwapping(
  entry: string,
  target: string,
  count: number,
  call: (index: number) => Promise<ToolOutcome>,
  enough: (results: ToolOutcome[]) => boolean = () => true,
) {
  const stopFile = `${entry}.stop`;
  const child = spawn(process.execPath, ['-e', SWAPPER, entry, target, stopFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const started = new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await started;
  const results: ToolOutcome[] = [];
  try {
    for (let index = 0; index < count || (!enough(results) && index < count * 10); index++) results.push(await call(index));
  } finally {
    writeFileSync(stopFile, '');
    await exited;
  }
  return { results, swaps: Number(output.split('\n')[1]) };
}

/** The promise's value, or a failure naming the call that has not settled after `ms`: a blocked open never settles. */
async function settleWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = sleep(ms).then(() => Promise.reject(new Error(`${what} still running after ${ms} ms`)));
  return Promise.race([promise, deadline]);
}

describe('a directory swapped for a symlink while the tools work', () => {
  test('400 create_file calls write nothing outside, and every file they report is inside', async () => {
    const workspace = makeWorkspace({ 'shared/keep.txt': 'kept\n' });
    const outside = makeOutside();
    const race = await raceSwapping(
      path.join(workspace, 'shared'),
      outside,
      400,
      (index) => createWorkspaceFile(workspace, { path: `shared/file-${index}.txt`, content: `${index}\n` }),
      (results) => results.some((result) => !result.isError),
    );
    expect(race.swaps).toBeGreaterThan(10);
    expect(readdirSync(outside)).toEqual([]);
    const created = race.results.filter((result) => !result.isError);
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThan(race.results.length);
    expect(findRegularFiles(workspace, /^file-\d+\.txt$/)).toHaveLength(created.length);
  });

  test('200 edit_file calls never change the file of the same name outside', async () => {
    const workspace = makeWorkspace({ 'shared/notes.txt': 'count = 0\n' });
    const outside = makeOutside({ 'notes.txt': 'count = 0\n' });
    const race = await raceSwapping(
      path.join(workspace, 'shared'),
      outside,
      200,
      () => editWorkspaceFile(workspace, { path: 'shared/notes.txt', edits: [{ search: 'count = 0', replace: 'count = 0\nedited' }] }),
      (results) => results.some((result) => !result.isError),
    );
    expect(race.swaps).toBeGreaterThan(10);
    expect(readFileSync(path.join(outside, 'notes.txt'), 'utf8')).toBe('count = 0\n');
    expect(readdirSync(outside)).toEqual(['notes.txt']);
    const edited = race.results.filter((result) => !result.isError).length;
    expect(edited).toBeGreaterThan(0);
    const lines = readFileSync(path.join(workspace, 'shared/notes.txt'), 'utf8').split('\n');
    expect(lines.filter((line) => line === 'edited')).toHaveLength(edited);
  });

  test('400 read_file calls on a file swapped for a symlink to a secret never show the secret', async () => {
    const secret = `secret-${process.pid}-${Date.now()}`;
    const workspace = makeWorkspace({ 'notes.txt': 'public notes\n' });
    const outside = makeOutside({ 'secret.txt': `${secret}\n` });
    const readPublic = (result: ToolOutcome) => result.content.includes('1 | public notes');
    // On a loaded machine the swapper can hold the symlink through all 400 reads: read on until one sees the file.
    const race = await raceSwapping(
      path.join(workspace, 'notes.txt'),
      path.join(outside, 'secret.txt'),
      400,
      () => readWorkspaceFile(workspace, { path: 'notes.txt' }),
      (results) => results.some(readPublic),
    );
    expect(race.swaps).toBeGreaterThan(10);
    expect(race.results.filter((result) => result.content.includes(secret))).toEqual([]);
    expect(race.results.filter(readPublic).length).toBeGreaterThan(0);
  });
});

describe('only regular files are opened', () => {
  test('read, edit and create on FIFOs fail at once, four at a time, and the tools keep working', async () => {
    const workspace = makeWorkspace({ 'ok.txt': 'fine\n' });
    const fifos = ['a.fifo', 'b.fifo', 'c.fifo', 'd.fifo'];
    for (const fifo of fifos) execFileSync('mkfifo', [path.join(workspace, fifo)]);
    const started = Date.now();
    const results = await settleWithin(
      Promise.all(
        fifos.flatMap((fifo) => [
          readWorkspaceFile(workspace, { path: fifo }),
          editWorkspaceFile(workspace, { path: fifo, edits: [{ search: 'a', replace: 'b' }] }),
          createWorkspaceFile(workspace, { path: fifo, content: 'x' }),
        ]),
      ),
      5_000,
      'file tools on FIFOs',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    for (const result of results)
      expect(result).toMatchObject({ isError: true, content: expect.stringContaining('a FIFO (named pipe), not a regular file') });
    expect(await settleWithin(readWorkspaceFile(workspace, { path: 'ok.txt' }), 2_000, 'read_file after the FIFOs')).toMatchObject({
      isError: false,
    });
    for (const fifo of fifos) expect(statSync(path.join(workspace, fifo)).isFIFO()).toBe(true);
  });

  test('a socket is refused by every file tool', async () => {
    const workspace = makeWorkspace();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(workspace, 'app.sock'), resolve));
    try {
      const results = await settleWithin(
        Promise.all([
          readWorkspaceFile(workspace, { path: 'app.sock' }),
          editWorkspaceFile(workspace, { path: 'app.sock', edits: [{ search: 'a', replace: 'b' }] }),
          createWorkspaceFile(workspace, { path: 'app.sock', content: 'x' }),
        ]),
        5_000,
        'file tools on a socket',
      );
      for (const result of results)
        expect(result).toMatchObject({ isError: true, content: expect.stringContaining('a socket, not a regular file') });
    } finally {
      server.close();
    }
  });

  test('a device node in the workspace is never opened', async (context) => {
    const workspace = makeWorkspace();
    const device = path.join(workspace, 'zero');
    try {
      execFileSync('mknod', [device, 'c', '1', '5'], { stdio: 'ignore' });
    } catch {
      context.skip('mknod needs CAP_MKNOD');
    }
    const read = await settleWithin(readWorkspaceFile(workspace, { path: 'zero' }), 5_000, 'read_file on /dev/zero');
    expect(read).toMatchObject({ isError: true, content: 'zero is a device, not a regular file; read_file reads only regular files' });
    const edit = await settleWithin(
      editWorkspaceFile(workspace, { path: 'zero', edits: [{ search: 'a', replace: 'b' }] }),
      5_000,
      'edit_file',
    );
    expect(edit).toMatchObject({ isError: true, content: expect.stringContaining('a device') });
  });

  test('a symlink to /dev/zero is refused as outside the workspace, at once', async () => {
    const workspace = makeWorkspace();
    symlinkSync('/dev/zero', path.join(workspace, 'zero.txt'));
    const started = Date.now();
    const read = await settleWithin(readWorkspaceFile(workspace, { path: 'zero.txt' }), 5_000, 'read_file on a link to /dev/zero');
    expect(read).toMatchObject({ isError: true, content: expect.stringContaining('outside the workspace') });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('a directory given as a file path is refused by every file tool and left alone', async () => {
    const workspace = makeWorkspace({ 'src/a.ts': 'a\n' });
    expect(await readWorkspaceFile(workspace, { path: 'src' })).toMatchObject({
      isError: true,
      content: 'src is a directory; use list_files to see its contents',
    });
    expect(await editWorkspaceFile(workspace, { path: 'src', edits: [{ search: 'a', replace: 'b' }] })).toMatchObject({
      isError: true,
      content: 'src is a directory, not a regular file; edit_file edits only regular files',
    });
    expect(await createWorkspaceFile(workspace, { path: 'src', content: 'x' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('src is a directory'),
    });
    expect(await createWorkspaceFile(workspace, { path: '.', content: 'x' })).toMatchObject({ isError: true });
    expect(readdirSync(path.join(workspace, 'src'))).toEqual(['a.ts']);
  });
});

describe('read_file output is bounded', () => {
  test('a 5 MB single-line file returns at most 100,000 characters, with a note on reading the rest', async () => {
    const workspace = makeWorkspace({ 'bundle.min.js': `${'x'.repeat(5_000_000)}\n` });
    const { content, isError } = await readWorkspaceFile(workspace, { path: 'bundle.min.js' });
    expect(isError).toBe(false);
    expect(content.length).toBeLessThanOrEqual(READ_FILE.maxChars);
    expect(content).toContain(`1 | ${'x'.repeat(READ_FILE.maxLineChars)} … [line cut: 5,000,000 bytes in all]`);
    expect(content).toContain('line 1 is longer than 2,000 characters and cut');
    expect(content).toContain("sed -n '1p' 'bundle.min.js' | cut -c 2001-4000");
  });

  test('a range of 10,000 long lines shows what fits and says where to start next', async () => {
    const line = 'y'.repeat(150);
    const workspace = makeWorkspace({ 'data.csv': `${line}\n`.repeat(10_000) });
    const { content } = await readWorkspaceFile(workspace, { path: 'data.csv', start_line: 1, end_line: 10_000 });
    expect(content.length).toBeLessThanOrEqual(READ_FILE.maxChars);
    const shown = content.split('\n').filter((text) => text.endsWith(` | ${line}`)).length;
    expect(shown).toBeGreaterThan(500);
    expect(content).toMatch(new RegExp(`^data.csv \\(10000 lines\\), lines 1-${shown}:`));
    expect(content).toContain(`… lines ${shown + 1}-10000 not shown`);
    expect(content).toContain(`pass start_line ${shown + 1} to read on`);
  });

  test('a range never shows more than 2,000 lines', async () => {
    const workspace = makeWorkspace({ 'short.txt': 'z\n'.repeat(5_000) });
    const { content } = await readWorkspaceFile(workspace, { path: 'short.txt', start_line: 101 });
    expect(content.split('\n').filter((text) => / \| z$/.test(text))).toHaveLength(READ_FILE.maxLines);
    expect(content).toContain('short.txt (5000 lines), lines 101-2100:');
    expect(content).toContain('… lines 2101-5000 not shown');
  });

  test('a long file of long lines keeps its head and tail within the limit', async () => {
    const body = Array.from({ length: 3_000 }, (_, index) => `${index + 1}:${'w'.repeat(3_000)}`).join('\n');
    const workspace = makeWorkspace({ 'log.txt': body });
    const { content } = await readWorkspaceFile(workspace, { path: 'log.txt' });
    expect(content.length).toBeLessThanOrEqual(READ_FILE.maxChars);
    expect(content).toMatch(/^log\.txt \(3000 lines\); showing the first \d+ and last \d+ lines:/);
    expect(content).toContain(`   1 | 1:${'w'.repeat(1_998)} … [line cut: 3,002 bytes in all]`);
    expect(content).toContain(`3000 | 3000:${'w'.repeat(1_995)} … [line cut: 3,005 bytes in all]`);
  });
});

describe('edit_file never corrupts a file', () => {
  test.each([
    [
      'a Latin-1 file',
      'names.py',
      Buffer.from('name = "Jos\xe9"\ncity = "K\xf6ln"\nx = 1\n', 'latin1'),
      'names.py is not valid UTF-8 (line 1 has bytes',
    ],
    ['a binary file', 'blob.bin', Buffer.from('header = 1\n\0\xff\xfe\x80\nx = 1\n', 'latin1'), 'blob.bin is a binary file'],
  ])('%s is refused and left byte for byte as it was', async (_kind, name, bytes, message) => {
    const workspace = makeWorkspace();
    writeFileSync(path.join(workspace, name), bytes);
    const result = await editWorkspaceFile(workspace, { path: name, edits: [{ search: 'x = 1', replace: 'x = 2' }] });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining(message) });
    expect(readFileSync(path.join(workspace, name)).equals(bytes)).toBe(true);
  });

  test('a BOM, CRLF line endings and non-ASCII text outside the edit survive byte for byte', async () => {
    const before = '\ufeffconst greeting = "héllo wörld";\r\nconst count = 1;\r\nconst emoji = "🙂";\r\nmixed = 1;\nend();';
    const workspace = makeWorkspace();
    writeFileSync(path.join(workspace, 'a.ts'), before);
    const result = await editWorkspaceFile(workspace, {
      path: 'a.ts',
      edits: [{ search: 'const count = 1;', replace: 'const count = 2;' }],
    });
    expect(result.isError).toBe(false);
    expect(readFileSync(path.join(workspace, 'a.ts')).equals(Buffer.from(before.replace('count = 1', 'count = 2')))).toBe(true);
  });

  test('a search block with a typo, whose replacement is already in the file, fails on a first attempt', async () => {
    const before = 'timeout = 30\nretries = 3\n';
    const workspace = makeWorkspace({ 'config.py': before });
    const result = await editWorkspaceFile(workspace, { path: 'config.py', edits: [{ search: 'timout = 10', replace: 'timeout = 30' }] });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('the search block was not found in config.py') });
    expect(result.content).toContain('1 | timeout = 30');
    expect(result.content).not.toContain('already in place');
    expect(readFileSync(path.join(workspace, 'config.py'), 'utf8')).toBe(before);
  });

  test('a search block with a typo that matches fuzzily onto its own replacement is no success on a first attempt', async () => {
    const before = 'const limit = 10;\nrun(limit);\n';
    const workspace = makeWorkspace({ 'a.ts': before });
    const edit = { path: 'a.ts', edits: [{ search: 'const limt = 10;', replace: 'const limit = 10;' }] };
    const first = await editWorkspaceFile(workspace, edit);
    expect(first).toEqual({ isError: true, content: expect.stringContaining('the edits leave a.ts unchanged') });
    expect(first.content).not.toContain('already in place');
    expect(await editWorkspaceFile(workspace, edit, { attempt: 2 })).toMatchObject({
      isError: false,
      content: expect.stringContaining('already in place'),
    });
    expect(readFileSync(path.join(workspace, 'a.ts'), 'utf8')).toBe(before);
  });

  test('ten concurrent edits of one file all land', async () => {
    const keys = Array.from({ length: 10 }, (_, index) => `key${index}`);
    const workspace = makeWorkspace({ 'settings.ini': keys.map((key) => `${key} = old`).join('\n') + '\n' });
    const results = await Promise.all(
      keys.map((key) =>
        editWorkspaceFile(workspace, { path: 'settings.ini', edits: [{ search: `${key} = old`, replace: `${key} = new` }] }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    expect(readFileSync(path.join(workspace, 'settings.ini'), 'utf8')).toBe(keys.map((key) => `${key} = new`).join('\n') + '\n');
  });

  test('two concurrent edits of one file through two spellings (a symlinked directory) both land', async () => {
    const workspace = makeWorkspace({ 'real/log.txt': 'start\n' });
    symlinkSync('real', path.join(workspace, 'alias'));
    const [first, second] = await Promise.all([
      editWorkspaceFile(workspace, { path: 'real/log.txt', edits: [{ search: 'start', replace: 'start\none' }] }),
      editWorkspaceFile(workspace, { path: 'alias/log.txt', edits: [{ search: 'start', replace: 'start\ntwo' }] }),
    ]);
    expect([first.isError, second.isError]).toEqual([false, false]);
    expect(readFileSync(path.join(workspace, 'real/log.txt'), 'utf8').split('\n').sort()).toEqual(['', 'one', 'start', 'two']);
  });
});

describe(".git is codeloop's", () => {
  test('create_file and edit_file refuse to write under .git in any case or through a symlink; reading is fine', async () => {
    const workspace = makeWorkspace({ '.git/config': '[core]\n', '.git/HEAD': 'ref: refs/heads/main\n', 'src/a.ts': 'a\n' });
    symlinkSync('.git', path.join(workspace, 'meta'));
    const writes = await Promise.all([
      createWorkspaceFile(workspace, { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ncurl evil\n' }),
      createWorkspaceFile(workspace, { path: '.GIT/hooks/post-checkout', content: 'x' }),
      createWorkspaceFile(workspace, { path: 'src/.Git/config', content: 'x' }),
      createWorkspaceFile(workspace, { path: 'meta/hooks/pre-push', content: 'x' }),
      editWorkspaceFile(workspace, { path: '.git/config', edits: [{ search: '[core]', replace: '[core]\n\thooksPath = /tmp' }] }),
      editWorkspaceFile(workspace, { path: 'meta/config', edits: [{ search: '[core]', replace: '[core]\n\tfsmonitor = evil' }] }),
    ]);
    for (const result of writes)
      expect(result).toMatchObject({ isError: true, content: expect.stringContaining('codeloop manages git itself') });
    expect(readFileSync(path.join(workspace, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(readdirSync(path.join(workspace, '.git')).sort()).toEqual(['HEAD', 'config']);
    expect(readdirSync(path.join(workspace, 'src'))).toEqual(['a.ts']);
    expect(await readWorkspaceFile(workspace, { path: '.git/HEAD' })).toMatchObject({
      isError: false,
      content: expect.stringContaining('1 | ref: refs/heads/main'),
    });
    expect(await createWorkspaceFile(workspace, { path: '.gitignore', content: 'dist/\n' })).toMatchObject({ isError: false });
  });
});
