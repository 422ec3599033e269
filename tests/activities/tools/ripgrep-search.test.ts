import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, test } from 'vitest';
import { runReadOnly } from '../../../src/activities/process/read-only-run.js';
import { createSandbox } from '../../../src/activities/process/sandbox.js';
import { builtInSearch } from '../../../src/activities/tools/search/built-in-search.js';
import { createRipgrepEngine } from '../../../src/activities/tools/search/ripgrep-search.js';
import type { SearchEngine } from '../../../src/activities/tools/search/search-engine.js';
import { createSearchEngine } from '../../../src/activities/tools/search/search-engines.js';
import { searchCodebase } from '../../../src/activities/tools/search-codebase.js';
import { makeWorkspace } from '../../support/workspace.js';

const rg = execFileSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).trim();
const sandboxed = createSandbox(process.env, { mode: 'on', readOnly: [] });
const unsandboxed = createSandbox(process.env, { mode: 'off', readOnly: [] });
const ripgrep = createRipgrepEngine(rg, sandboxed);

const search = (
  engine: SearchEngine,
  workspace: string,
  pattern: string,
  more: { file_glob?: string; case_insensitive?: boolean; max_results?: number } = {},
) => searchCodebase(workspace, { pattern, max_results: 50, ...more }, engine);

/** A project with nested gitignore rules, negations, the fixed list, a tracked build directory and links inside and out. */
function makeProject(): string {
  const outside = makeWorkspace({ 'secret.ts': 'export const token = "needle-outside";\n' });
  const workspace = makeWorkspace({
    '.gitignore': '*.log\n/only-root.ts\ncache/\ndocs/**/draft.md\n!keep.log\n',
    'pkg/.gitignore': 'generated/\n/local.ts\n',
    'pkg/deep/.gitignore': '*.ts\n!wanted.ts\n',
    'app.ts': 'function needle() {\n\treturn 1;\n}\n',
    'debug.log': 'needle in a log\n',
    'keep.log': 'needle kept\n',
    'only-root.ts': 'needle root\n',
    'sub/only-root.ts': '  // NEEDLE shouted\n',
    'cache/blob.ts': 'needle cached\n',
    'docs/a/b/draft.md': 'needle draft\n',
    'docs/a/final.md': '## Needle\n',
    'pkg/generated/out.ts': 'needle generated\n',
    'pkg/src/generated/out.ts': 'needle generated deep\n',
    'pkg/local.ts': 'needle local\n',
    'pkg/src/local.ts': '    const needle = "indented";\n',
    'pkg/deep/notes.ts': 'needle notes\n',
    'pkg/deep/wanted.ts': 'needle wanted\n',
    'node_modules/dep/index.js': 'needle dep\n',
    'dist/app.js': 'needle built\n',
    'dist/node_modules/x.js': 'needle built dep\n',
    'lib/mod.egg-info/PKG-INFO': 'needle egg\n',
    '.hidden/config.ts': 'needle hidden\n',
    'src/util.py': 'def needle(x):\n    return x  # needle\n',
    'src/crlf.ts': 'const needle = 1;\r\nconst other = 2;\r\n',
    'src/data.bin': 'needle\0binary\n',
  });
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  writeFileSync(path.join(workspace, '.git/info/exclude'), 'excluded.ts\n');
  writeFileSync(path.join(workspace, 'excluded.ts'), 'needle excluded\n');
  symlinkSync(outside, path.join(workspace, 'link-out'));
  symlinkSync(path.join(outside, 'secret.ts'), path.join(workspace, 'secret-link.ts'));
  symlinkSync('pkg/src', path.join(workspace, 'alias'));
  return workspace;
}

// Each test runs both engines many times over: functional checks, given time for a busy machine.
describe('ripgrep searches the same files as the built-in search, by the same rules', { timeout: 120_000 }, () => {
  const globs = [
    undefined,
    '**/*.ts',
    '*.ts',
    'pkg/**',
    '{pkg,src}/**/*.ts',
    'dist/**/*.js',
    'node_modules/dep/*.js',
    'docs/**/*.md',
    'alias/*',
    'link-out/*',
    'only-root.ts',
    'debug.log',
    'pkg/generated/out.ts',
    './src/*.{py,ts}',
    '**/*.@(py|md)',
    'cache/**',
  ];
  test.each(globs)('file_glob %s', async (glob) => {
    const workspace = makeProject();
    for (const [pattern, caseInsensitive] of [
      ['needle', false],
      ['needle', true],
      ['^\\s+\\S', false],
      ['nothing-matches-this', false],
    ] as const) {
      const input = { file_glob: glob, case_insensitive: caseInsensitive };
      const [fast, slow] = [await search(ripgrep, workspace, pattern, input), await search(builtInSearch, workspace, pattern, input)];
      expect(fast, `${pattern} ${glob}`).toEqual(slow);
      expect(fast.content).not.toContain('outside');
    }
  });

  test('max_results keeps the first lines by path and line, and counts the rest', async () => {
    const workspace = makeProject();
    for (const max of [1, 2, 3, 7]) {
      const [fast, slow] = [
        await search(ripgrep, workspace, 'needle', { max_results: max }),
        await search(builtInSearch, workspace, 'needle', { max_results: max }),
      ];
      expect(fast).toEqual(slow);
      expect(fast.content.split('\n')).toHaveLength(max + 2);
    }
  });
});

describe('what ripgrep returns', { timeout: 60_000 }, () => {
  test('lines verbatim, indentation and tabs included, in the form read_file shows them; a CRLF ending is not part of the line', async () => {
    const workspace = makeProject();
    const { content } = await search(ripgrep, workspace, 'needle|return', { file_glob: '{app.ts,src/*,pkg/src/*}' });
    expect(content).toBe(
      [
        '6 matches for /needle|return/:',
        'app.ts:1 | function needle() {',
        'app.ts:2 | \treturn 1;',
        'pkg/src/local.ts:1 |     const needle = "indented";',
        'src/crlf.ts:1 | const needle = 1;',
        'src/util.py:1 | def needle(x):',
        'src/util.py:2 |     return x  # needle',
        // The binary file is skipped, as the built-in search skips it.
      ].join('\n'),
    );
    // What comes after ` | ` is the line as the file holds it: an edit can search for it as it is.
    for (const line of content.split('\n').slice(1)) {
      const [where, text] = [line.slice(0, line.indexOf(' | ')), line.slice(line.indexOf(' | ') + 3)];
      const [file, number] = where.split(':');
      expect(readFileSync(path.join(workspace, file!), 'utf8').split(/\r?\n/)[Number(number) - 1]).toBe(text);
    }
  });

  test('case_insensitive matches either case, and the result says /i', async () => {
    const workspace = makeProject();
    expect((await search(ripgrep, workspace, 'NEEDLE', { file_glob: 'sub/*' })).content).toBe(
      '1 matches for /NEEDLE/:\nsub/only-root.ts:1 |   // NEEDLE shouted',
    );
    expect((await search(ripgrep, workspace, 'NeEdLe', { file_glob: 'docs/**', case_insensitive: true })).content).toBe(
      '1 matches for /NeEdLe/i:\ndocs/a/final.md:1 | ## Needle',
    );
  });

  test('JavaScript habits the default engine refuses go to PCRE2: look-around, backreferences, an escaped slash', async () => {
    const workspace = makeWorkspace({ 'a.ts': 'const url = "a/b";\nfoo foo\nbar\nlet x = 1;\n' });
    expect((await search(ripgrep, workspace, '"a\\/b"')).content).toBe('1 matches for /"a\\/b"/:\na.ts:1 | const url = "a/b";');
    expect((await search(ripgrep, workspace, '(\\w+) \\1')).content).toBe('1 matches for /(\\w+) \\1/:\na.ts:2 | foo foo');
    expect((await search(ripgrep, workspace, '(?<=let )x')).content).toBe('1 matches for /(?<=let )x/:\na.ts:4 | let x = 1;');
    expect((await search(ripgrep, workspace, '^(?!foo|const|let).+$')).content).toBe(
      '1 matches for /^(?!foo|const|let).+$/:\na.ts:3 | bar',
    );
  });

  test('a pattern no engine compiles is an observation naming the pattern', async () => {
    const workspace = makeWorkspace({ 'a.ts': 'x\n' });
    const outcome = await search(ripgrep, workspace, 'foo(');
    expect(outcome).toMatchObject({ isError: true, content: expect.stringContaining('invalid regular expression foo(:') });
  });

  test('a pattern that backtracks without end in JavaScript is linear in ripgrep, and the worker never waits on it', async () => {
    const workspace = makeWorkspace({ 'evil.txt': `${'a'.repeat(40)}!\n`, 'a.txt': 'aaaa\n' });
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 10);
    const started = performance.now();
    const outcome = await search(ripgrep, workspace, '^(a+)+$');
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(outcome.content).toBe('1 matches for /^(a+)+$/:\na.txt:1 | aaaa');
    expect(elapsed).toBeLessThan(15_000);
    // ripgrep runs in a process of its own: the event loop keeps ticking (loosely counted, for a busy machine).
    expect(ticks).toBeGreaterThan(elapsed / 10 / 10);
  });

  test('a search past its time limit is stopped and said to be', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'needle\n' });
    const slow = createRipgrepEngine(rg, sandboxed, { timeLimitMs: 1 });
    expect(await search(slow, workspace, 'needle')).toMatchObject({
      isError: true,
      content: 'the search for /needle/ took longer than 0.001 s and was stopped; narrow file_glob or the pattern',
    });
  });

  test('a hard link is a regular file of the workspace: it is searched as read_file reads it (see Safety, not contained)', async () => {
    const elsewhere = makeWorkspace({ 'shared.txt': 'needle shared\n' });
    const workspace = makeWorkspace({});
    linkSync(path.join(elsewhere, 'shared.txt'), path.join(workspace, 'linked.txt'));
    expect((await search(ripgrep, workspace, 'needle')).content).toBe((await search(builtInSearch, workspace, 'needle')).content);
  });
});

describe('containment', { timeout: 120_000 }, () => {
  test('with CODELOOP_SANDBOX=off ripgrep still follows no symlink out, whatever the glob', async () => {
    const workspace = makeProject();
    const engine = createRipgrepEngine(rg, unsandboxed);
    expect(engine.description).toContain('UNSANDBOXED');
    for (const glob of [undefined, '**/*', 'link-out/*', 'link-out/**', '*.ts', 'secret-link.ts', '{link-out,src}/*']) {
      const outcome = await search(engine, workspace, 'needle', { file_glob: glob });
      expect(outcome.content, String(glob)).not.toContain('outside');
      expect(outcome).toEqual(await search(builtInSearch, workspace, 'needle', { file_glob: glob }));
    }
  });

  test('the workspace is read-only to a read-only run: nothing it starts can write there', async () => {
    const workspace = makeWorkspace({ 'a.txt': 'x\n' });
    const result = await runReadOnly(sandboxed, { argv: ['touch', 'written.txt'], workspace, timeoutMs: 10_000, maxOutputBytes: 1_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('Read-only file system');
    expect(existsSync(path.join(workspace, 'written.txt'))).toBe(false);
  });

  test('a worker without rg on its PATH uses the built-in search and says so', () => {
    const bin = makeWorkspace({});
    mkdirSync(path.join(bin, 'empty'));
    const engine = createSearchEngine(sandboxed, path.join(bin, 'empty'));
    expect(engine.name).toBe('built-in');
    expect(engine.description).toContain('ripgrep (rg) is not installed');
    expect(createSearchEngine(sandboxed, path.dirname(rg)).name).toBe('ripgrep');
  });
});
