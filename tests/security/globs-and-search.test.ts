import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import fg from 'fast-glob';
import { describe, expect, test } from 'vitest';
import { countBraceExpansions } from '../../src/activities/tools/brace-expansions.js';
import { listWorkspaceFiles } from '../../src/activities/tools/list-files.js';
import { readRegularFile } from '../../src/activities/tools/read-regular-file.js';
import { REGEX_TIME_LIMIT_MS, startRegexSearch } from '../../src/activities/tools/regex-search.js';
import { searchCodebase } from '../../src/activities/tools/search-codebase.js';
import { builtInSearch } from '../../src/activities/tools/search/built-in-search.js';
import type { ToolOutcome } from '../../src/activities/tools/tool-outcome.js';
import { makeWorkspace } from '../support/workspace.js';

/**
 * What a hostile model (or a file it reads) can try against `list_files` and `search_codebase`: globs that lead out
 * of the workspace, special files that would hang a read, and regular expressions that backtrack without end. Run
 * against the real activity functions and judged by what they return and how long they take.
 */

const SECRET = 'SECRET-c0d3l00p-outside';
/** The name of a file that exists only outside the workspace. */
const OUTSIDE_NAME = 'only-outside.txt';
/** Matches the secret and the workspace's own `src/app.ts` without spelling out either, since results echo the pattern. */
const SEARCH = 'c0d3l00p|inside';

/** A directory next to no workspace, holding the secret at two depths. */
function makeOutside(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
  mkdirSync(path.join(dir, 'nested'));
  writeFileSync(path.join(dir, OUTSIDE_NAME), `${SECRET}\n`);
  writeFileSync(path.join(dir, 'nested', OUTSIDE_NAME), `${SECRET}\n`);
  return dir;
}

/** A workspace with a match of its own, and a directory outside it holding the secret. */
function makeWorkspaceWithOutside(files: Record<string, string> = {}) {
  return { workspace: makeWorkspace({ 'src/app.ts': 'const inside = true;\n', ...files }), outside: makeOutside() };
}

function expectNothingFromOutside(outcome: ToolOutcome, outside: string): void {
  expect(outcome.content).not.toContain(SECRET);
  expect(outcome.content).not.toContain(OUTSIDE_NAME);
  expect(outcome.content).not.toContain(outside);
  // What /etc/passwd and /etc/shadow hold, and names a listing of /etc would show.
  expect(outcome.content).not.toMatch(/:0:0:|nologin|:99999:|passwd|hostname|os-release/);
}

const search = (workspace: string, pattern: string, file_glob?: string) =>
  searchCodebase(workspace, { pattern, file_glob, max_results: 50 });
const list = (workspace: string, pattern?: string, dir?: string) => listWorkspaceFiles(workspace, { pattern, path: dir, max_depth: 10 });
const listed = (outcome: ToolOutcome) => outcome.content.split('\n').slice(1);

function timeOf(run: () => void): number {
  const started = performance.now();
  run();
  return Math.max(performance.now() - started, 0.05);
}

/**
 * A line `^(a+)+$` takes about `targetMs` to reject on this machine. Each `a` doubles the time, so a short line is
 * timed first: the line is slow enough to meet the limit on a fast machine, and a search that ran on the event loop
 * would fail after seconds instead of hanging the run.
 */
function backtrackingLine(targetMs: number): string {
  const test = (count: number) => timeOf(() => /^(a+)+$/.test(`${'a'.repeat(count)}!`));
  test(16);
  const probe = 22;
  return `${'a'.repeat(probe + Math.ceil(Math.log2(targetMs / test(probe))))}!`;
}

/** A line of `a` that `/a*b/` takes about `targetMs` to reject: the time grows with the square of its length. */
function quadraticLine(targetMs: number): string {
  const test = (count: number) => timeOf(() => /a*b/.test('a'.repeat(count)));
  test(2_000);
  const probe = 10_000;
  return 'a'.repeat(Math.min(990_000, Math.ceil(probe * Math.sqrt(targetMs / test(probe)))));
}

/** Runs `body` while counting 10 ms timer ticks and the longest gap between two: how responsive the event loop stayed. */
async function watchEventLoop<T>(body: () => Promise<T>): Promise<{ result: T; elapsed: number; ticks: number; longestGap: number }> {
  let ticks = 0;
  let longestGap = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
    ticks += 1;
  }, 10);
  const started = performance.now();
  try {
    const result = await body();
    return { result, elapsed: performance.now() - started, ticks, longestGap: Math.max(longestGap, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

describe('globs that lead out of the workspace are refused, naming the fix', () => {
  test('file_glob whose brace sets expand to .. (the shape that read /etc/shadow)', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside();
    const shadow = await search(workspace, 'root', '.{.,}/.{.,}/.{.,}/etc/shadow');
    expect(shadow).toMatchObject({ isError: true, content: expect.stringContaining('leads outside the workspace (it expands to') });
    expect(shadow.content).toContain('relative to the workspace root');
    expectNothingFromOutside(shadow, outside);
    // A workspace whose parent holds the secret: one brace set is one level up.
    const parent = makeOutside();
    const nested = path.join(parent, 'workspace');
    mkdirSync(nested);
    const up = await search(nested, SEARCH, '.{.,}/*.txt');
    expect(up).toMatchObject({ isError: true, content: expect.stringContaining('(it expands to ../*.txt)') });
    expectNothingFromOutside(up, parent);
  });

  test('absolute, ~ and .. patterns in file_glob and in list_files, also mixed into a brace set', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside();
    for (const glob of [
      '/etc/*',
      `${path.dirname(outside)}/*`,
      '{src,/etc}/*',
      '~/.*',
      '~root/*',
      '**/../..',
      '../**',
      'src/../../*',
      '\\.\\./*',
    ]) {
      const searched = await search(workspace, '.', glob);
      expect(searched, glob).toMatchObject({ isError: true, content: expect.stringContaining('drop the leading /, ~ or ..') });
      expectNothingFromOutside(searched, outside);
      const listing = await list(workspace, glob);
      expect(listing, glob).toMatchObject({ isError: true, content: expect.stringContaining('leads outside the workspace') });
      expectNothingFromOutside(listing, outside);
    }
    for (const pattern of ['../**', '/etc/*', '/root/.*']) {
      const listing = await list(workspace, pattern);
      expect(listing.content, pattern).toBe(
        `pattern ${pattern} leads outside the workspace; pattern is relative to the workspace root: drop the leading /, ~ or .. and name paths from there, e.g. src/**/*.ts`,
      );
    }
    const fromSrc = await list(workspace, '../*', 'src');
    expect(fromSrc).toMatchObject({
      isError: true,
      content: expect.stringContaining('pattern is relative to src (the directory it applies to)'),
    });
  });

  test('brace sets that would expand to a million patterns are refused at once', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'a\n' });
    const started = performance.now();
    for (const glob of ['{a,b}'.repeat(20), '{1..1000}{1..1000}', `{${'{x,y}'.repeat(8)},z}`]) {
      expect(await search(workspace, 'a', glob), glob).toMatchObject({
        isError: true,
        content: expect.stringContaining('expands to more than 100 patterns'),
      });
      expect(await list(workspace, glob), glob).toMatchObject({
        isError: true,
        content: expect.stringContaining('expands to more than 100 patterns'),
      });
    }
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('the expansion count is never below what fast-glob makes, and exact for plain sets and ranges', () => {
    const cases: Array<[string, number]> = [
      ['src/**/*.ts', 1],
      ['*.{ts,tsx,js}', 3],
      ['{src,tests}/**/*.{ts,js}', 4],
      ['{a,{b,c}}', 3],
      ['{1..20}', 20],
      ['{a..e}', 5],
      ['{0..100..10}', 11],
      ['{,a}', 2],
      ['\\{a,b}', 1],
      ['{a}', 1],
      ['{a,b', 2],
      ['.{.,}/.{.,}/x', 4],
    ];
    for (const [pattern, count] of cases) {
      expect(countBraceExpansions(pattern), pattern).toBe(count);
      expect(countBraceExpansions(pattern), pattern).toBeGreaterThanOrEqual(
        fg.generateTasks(pattern).flatMap((task) => task.patterns).length,
      );
    }
  });

  test('globs with ./ and brace sets inside the workspace work as before, without the ./', async () => {
    const workspace = makeWorkspace({ 'src/a.ts': 'needle\n', 'tests/b.ts': 'needle\n', 'docs/c.md': 'needle\n' });
    expect((await search(workspace, 'needle', './src/*.ts')).content).toBe('1 matches for /needle/:\nsrc/a.ts:1 | needle');
    expect((await search(workspace, 'needle', '{src,tests}/*.ts')).content).toBe(
      '2 matches for /needle/:\nsrc/a.ts:1 | needle\ntests/b.ts:1 | needle',
    );
    expect(listed(await list(workspace, './**/*.ts'))).toEqual(['src/a.ts', 'tests/b.ts']);
    expect(listed(await list(workspace, 'src/./*'))).toEqual(['src/a.ts']);
  });
});

describe('symlinks never lead a glob outside', () => {
  test('a symlinked directory pointing outside is neither listed nor searched, whatever the glob', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside();
    symlinkSync(outside, path.join(workspace, 'link-dir'));
    for (const glob of [
      'link-dir/*',
      'link-dir/**',
      'link-dir/**/*.txt',
      '**/*',
      '*/*',
      'link-dir/nested/*',
      'link-dir/*-outside.txt',
      '{link-dir,src}/*',
    ]) {
      const searched = await search(workspace, SEARCH, glob);
      expectNothingFromOutside(searched, outside);
      const listing = await list(workspace, glob);
      expectNothingFromOutside(listing, outside);
      expect(listed(listing), glob).not.toContain('link-dir');
    }
    expect(listed(await list(workspace))).toEqual(['src/', 'src/app.ts']);
    expect((await search(workspace, SEARCH)).content).toBe(`1 matches for /${SEARCH}/:\nsrc/app.ts:1 | const inside = true;`);
  });

  test('a symlinked file pointing outside is not read, nor listed', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside();
    symlinkSync(path.join(outside, OUTSIDE_NAME), path.join(workspace, 'leak.txt'));
    symlinkSync('/etc/passwd', path.join(workspace, 'src', 'users.txt'));
    for (const glob of ['leak.txt', '*.txt', '**/*', 'src/users.txt']) {
      const searched = await search(workspace, 'c0d3l00p|^root', glob);
      expect(searched.content, glob).not.toContain('leak.txt:');
      expectNothingFromOutside(searched, outside);
    }
    expect(listed(await list(workspace))).toEqual(['src/', 'src/app.ts']);
    expect(await list(workspace, 'leak.txt')).toMatchObject({ isError: false, content: 'no files under . matching leak.txt' });
  });

  test('symlinks that stay inside the workspace still list and search', async () => {
    const workspace = makeWorkspace({ 'real/keep.txt': 'needle\n' });
    symlinkSync('real', path.join(workspace, 'alias'));
    symlinkSync('real/keep.txt', path.join(workspace, 'keep-link.txt'));
    expect(listed(await list(workspace))).toEqual(['alias', 'keep-link.txt', 'real/', 'real/keep.txt']);
    expect(listed(await list(workspace, 'alias/*'))).toEqual(['alias/keep.txt']);
    expect((await search(workspace, 'needle', 'alias/*')).content).toBe('1 matches for /needle/:\nalias/keep.txt:1 | needle');
  });

  test('a directory swapped for a symlink to outside while globs walk it is never listed or read through', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside();
    const stop = path.join(mkdtempSync(path.join(os.tmpdir(), 'codeloop-stop-')), 'stop');
    const swapper = spawn(process.execPath, ['-e', SWAPPER, path.join(workspace, 'src'), outside, stop], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    swapper.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => swapper.on('exit', resolve));
    try {
      while (!output.includes('started')) await sleep(5);
      const until = performance.now() + 1_500;
      while (performance.now() < until) {
        const [searched, listing, named] = await Promise.all([
          search(workspace, SEARCH, 'src/**/*'),
          list(workspace, 'src/**'),
          list(workspace, 'src/nested'),
        ]);
        expectNothingFromOutside(searched, outside);
        expectNothingFromOutside(listing, outside);
        // `src/nested` exists only outside: a pattern without wildcards is looked up, not walked.
        expect(named.content).toBe('no files under . matching src/nested');
      }
    } finally {
      writeFileSync(stop, '');
      await exited;
    }
    expect(Number(/swaps (\d+)/.exec(output)?.[1])).toBeGreaterThan(10);
  });
});

/** A writer that blocks until something opens `fifo` to read; `wasOpened` tells whether anything has. */
function watchFifo(fifo: string) {
  const mark = path.join(makeOutside(), 'fifo-was-opened');
  const writer = spawn('sh', ['-c', 'echo needle-from-fifo > "$0" && touch "$1"', fifo, mark], { stdio: 'ignore' });
  return {
    wasOpened: async () => {
      await sleep(100);
      return existsSync(mark);
    },
    stop: () => writer.kill(),
  };
}

/** In its own process: swaps directory `entry` for a symlink to `target` and back until `stop` exists. */
const SWAPPER = `
  const fs = require('node:fs');
  const [entry, target, stop] = process.argv.slice(1);
  const aside = entry + '.aside';
  let swaps = 0;
  process.stdout.write('started\\n');
  while (!fs.existsSync(stop)) {
    fs.renameSync(entry, aside);
    fs.symlinkSync(target, entry);
    fs.unlinkSync(entry);
    fs.renameSync(aside, entry);
    swaps += 1;
  }
  process.stdout.write('swaps ' + swaps + '\\n');
`;

describe('search reads only regular files, and only so much of them', () => {
  test('a FIFO in the workspace is skipped, not opened, even when the glob names it', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'needle\n' });
    const fifo = path.join(workspace, 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    const watched = watchFifo(fifo);
    try {
      for (const glob of [undefined, 'pipe.txt', '*.txt']) {
        const outcome = await Promise.race([search(workspace, 'needle', glob), sleep(5_000, 'hung' as const, { ref: false })]);
        expect(outcome, glob).not.toBe('hung');
        expect(outcome, glob).toMatchObject({ isError: false, content: expect.not.stringContaining('needle-from-fifo') });
      }
      expect((await search(workspace, 'needle')).content).toBe('1 matches for /needle/:\na.txt:1 | needle');
      expect(listed(await list(workspace))).toEqual(['a.txt', 'pipe.txt']);
      expect(await readRegularFile(workspace, fifo, 1_000)).toBe('not-regular');
      expect(await watched.wasOpened()).toBe(false);
      // The watch itself works: a reader that does open the FIFO is seen.
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        await expect.poll(() => watched.wasOpened(), { timeout: 2_000 }).toBe(true);
      } finally {
        closeSync(reader);
      }
    } finally {
      watched.stop();
    }
  });

  test('readRegularFile reads a regular file inside the root and nothing else', async () => {
    const { workspace, outside } = makeWorkspaceWithOutside({ 'exact.txt': 'x'.repeat(1_000), 'over.txt': 'x'.repeat(1_001) });
    symlinkSync(outside, path.join(workspace, 'link-dir'));
    symlinkSync(path.join(outside, OUTSIDE_NAME), path.join(workspace, 'leak.txt'));
    const root = realpathSync(workspace);
    const read = (file: string) => readRegularFile(root, path.join(root, file), 1_000);
    expect(String(await read('src/app.ts'))).toBe('const inside = true;\n');
    expect(await read(`link-dir/${OUTSIDE_NAME}`)).toBe('not-regular');
    expect(await read('leak.txt')).toBe('not-regular');
    expect(await read('src')).toBe('not-regular');
    expect(await read('missing.txt')).toBe('not-regular');
    expect((await read('exact.txt')).length).toBe(1_000);
    expect(await read('over.txt')).toBe('too-large');
  });

  test('a symlink to a device is not read', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'x\n' });
    symlinkSync('/dev/zero', path.join(workspace, 'zero.txt'));
    symlinkSync('/dev/urandom', path.join(workspace, 'random.txt'));
    const outcome = await search(workspace, '.', '*.txt');
    expect(outcome.content).toBe('1 matches for /./:\na.txt:1 | x');
  });

  test('files over 1 MB are skipped, and a search that finds nothing says so', async () => {
    const workspace = makeWorkspace({ 'small.txt': 'hay\n' });
    writeFileSync(path.join(workspace, 'huge.txt'), `needle\n${'x'.repeat(1_100_000)}`);
    expect((await search(workspace, 'needle')).content).toBe('no matches for /needle/ in 2 files matching **/*; skipped 1 files over 1 MB');
  });

  test('a match on a very long line is found and shown cut to 200 characters', async () => {
    const workspace = makeWorkspace({ 'bundle.js': `${'x'.repeat(900_000)}needle${'y'.repeat(50_000)}\nsecond needle\n` });
    const { content } = await search(workspace, 'needle');
    expect(content).toBe(`2 matches for /needle/:\nbundle.js:1 | ${'x'.repeat(200)}…\nbundle.js:2 | second needle`);
  });
});

/** The built-in search (a worker without ripgrep) runs JavaScript regular expressions, which can backtrack without end. */
describe('a regular expression cannot block the worker (the built-in search)', () => {
  const search = (workspace: string, pattern: string) => searchCodebase(workspace, { pattern, max_results: 50 }, builtInSearch);

  test('a catastrophically backtracking pattern is stopped within 2 s while the event loop keeps running', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'fine\n', 'evil.txt': `${backtrackingLine(8_000)}\n` });
    const watched = await watchEventLoop(() => search(workspace, '^(a+)+$'));
    expect(watched.result).toMatchObject({ isError: true, content: expect.stringContaining('/^(a+)+$/ took longer than 1 s') });
    expect(watched.result.content).toContain('search for a literal string');
    expect(watched.elapsed).toBeGreaterThanOrEqual(REGEX_TIME_LIMIT_MS - 20);
    expect(watched.elapsed).toBeLessThan(2_000);
    // A search on the event loop would let through no tick at all until it ended.
    expect(watched.ticks).toBeGreaterThan(watched.elapsed / 10 / 3);
    expect(watched.longestGap).toBeLessThan(250);
  });

  test('a pattern that is quadratic over a long line is stopped the same way', async () => {
    const workspace = makeWorkspace({ 'long.txt': `${quadraticLine(8_000)}\n` });
    const watched = await watchEventLoop(() => search(workspace, 'a*b'));
    expect(watched.result).toMatchObject({ isError: true, content: expect.stringContaining('took longer than 1 s') });
    expect(watched.elapsed).toBeLessThan(2_000);
    expect(watched.longestGap).toBeLessThan(250);
  });

  test('the next search after a stopped one works, with the same result as before', async () => {
    const workspace = makeWorkspace({ 'a.py': 'def foo():\n  pass\n', 'evil.txt': `${backtrackingLine(8_000)}\n` });
    expect(await search(workspace, '^(a+)+$')).toMatchObject({ isError: true });
    expect((await search(workspace, 'def \\w+')).content).toBe('1 matches for /def \\w+/:\na.py:1 | def foo():');
  });

  test('a search thread that fails before its first batch reports it instead of crashing the worker', async () => {
    const search = startRegexSearch('(', { maxLineChars: 200 });
    await sleep(300);
    await expect(search.match([{ name: 'a.txt', bytes: Buffer.from('(\n') }], 10)).rejects.toThrow(/Invalid regular expression/);
    await search.close();
  });

  test('cancelling the activity stops a running search at once', async () => {
    const workspace = makeWorkspace({ 'evil.txt': `${backtrackingLine(8_000)}\n` });
    const environment = new MockActivityEnvironment();
    const started = performance.now();
    const running = environment.run(searchCodebase, workspace, { pattern: '^(a+)+$', max_results: 20 }, builtInSearch);
    setTimeout(() => environment.cancel(), 100);
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(performance.now() - started).toBeLessThan(REGEX_TIME_LIMIT_MS - 200);
  });

  test('a search heartbeats as it goes', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'needle\n' });
    const environment = new MockActivityEnvironment();
    let heartbeats = 0;
    environment.on('heartbeat', () => (heartbeats += 1));
    const outcome: ToolOutcome = await environment.run(searchCodebase, workspace, { pattern: 'needle', max_results: 20 }, builtInSearch);
    expect(outcome.content).toBe('1 matches for /needle/:\na.txt:1 | needle');
    expect(heartbeats).toBeGreaterThan(0);
  });
});
