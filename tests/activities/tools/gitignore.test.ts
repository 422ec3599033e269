import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { listFiles, listWorkspaceFiles } from '../../../src/activities/tools/list-files.js';
import { searchCodebase } from '../../../src/activities/tools/search-codebase.js';
import { createWorkspaceActivities } from '../../../src/activities/workspace.js';
import { makeWorkspace } from '../../support/workspace.js';

const { describeWorkspace } = createWorkspaceActivities({ hostId: 'host-a', hostQueue: 'codeloop@host-a', sandbox: 'on' });

/** Every file the default walk shows, as `listFiles` returns them (directories left out). */
const filesOf = async (workspace: string) => (await listFiles(workspace, '**/*', 10)).filter((entry) => !entry.endsWith('/'));
const listed = async (workspace: string, input: { path?: string; pattern?: string } = {}) =>
  (await listWorkspaceFiles(workspace, { max_depth: 10, ...input })).content;
const searched = async (workspace: string, file_glob?: string) =>
  (await searchCodebase(workspace, { pattern: 'needle', file_glob, max_results: 50 })).content;
const git = (workspace: string, ...args: string[]) => execFileSync('git', args, { cwd: workspace, stdio: 'pipe' }).toString();

describe('gitignore rules', () => {
  const tree = {
    '.gitignore': '*.log\n/only-root.txt\ncache/\ndocs/**/draft.md\n',
    'pkg/.gitignore': '!keep.log\ngenerated/\n/local.txt\n',
    'pkg/deep/.gitignore': '*.txt\n!wanted.txt\n',
    'app.ts': '',
    'debug.log': '',
    'only-root.txt': '',
    'sub/only-root.txt': '',
    'cache/blob.bin': '',
    'sub/cache/blob.bin': '',
    'docs/a/b/draft.md': '',
    'docs/a/final.md': '',
    'pkg/keep.log': '',
    'pkg/other.log': '',
    'pkg/generated/out.ts': '',
    'pkg/src/generated/out.ts': '',
    'pkg/local.txt': '',
    'pkg/src/local.txt': '',
    'pkg/deep/notes.txt': '',
    'pkg/deep/wanted.txt': '',
    'excluded-locally.md': '',
  };

  test('root and nested .gitignore files, with negation, anchoring, directory-only and ** patterns, plus .git/info/exclude', async () => {
    const workspace = makeWorkspace(tree);
    git(workspace, 'init', '-q');
    writeFileSync(path.join(workspace, '.git/info/exclude'), 'excluded-locally.md\n');
    expect(await filesOf(workspace)).toEqual([
      '.gitignore',
      'app.ts',
      'docs/a/final.md',
      'pkg/.gitignore',
      'pkg/deep/.gitignore',
      'pkg/deep/wanted.txt',
      'pkg/keep.log',
      'pkg/src/local.txt',
      'sub/only-root.txt',
    ]);
  });

  test('the default walk shows the files git itself does not ignore', async () => {
    const workspace = makeWorkspace({
      ...tree,
      '.gitignore': '*.log\n/only-root.txt\ncache/\ndocs/**/draft.md\nbuild-*/\n!pkg/\n[Tt]emp/\n',
      'build-x/a.ts': '',
      'Temp/a.ts': '',
      'temp/a.ts': '',
      'pkg/sub/.gitignore': '!*.log\n',
      'pkg/sub/x.log': '',
      'pkg/sub/cache/y.ts': '',
    });
    git(workspace, 'init', '-q');
    writeFileSync(path.join(workspace, '.git/info/exclude'), 'excluded-locally.md\n');
    const fromGit = git(workspace, 'ls-files', '--others', '--exclude-standard').trim().split('\n').sort();
    expect(await filesOf(workspace)).toEqual(fromGit);
  });

  test('a negation cannot bring back .git or node_modules, nor the fixed list', async () => {
    const workspace = makeWorkspace({
      '.gitignore': '!node_modules/\n!.hypothesis/\n!dist/\n',
      'node_modules/x/index.js': 'needle',
      '.hypothesis/examples/a': 'needle',
      'dist/app.js': 'needle',
      'src/a.ts': 'needle',
    });
    git(workspace, 'init', '-q');
    expect(await filesOf(workspace)).toEqual(['.gitignore', 'src/a.ts']);
    expect(await searched(workspace)).toBe('1 matches for /needle/:\nsrc/a.ts:1 | needle');
  });
});

describe('the fixed list of caches and build output', () => {
  test('caches are left out with no .gitignore at all, at any depth', async () => {
    const workspace = makeWorkspace({
      'src/a.py': '',
      '.hypothesis/examples/x': '',
      '.nyc_output/out.json': '',
      'web/.svelte-kit/generated/x.js': '',
      'web/.parcel-cache/x': '',
      'mypkg.egg-info/PKG-INFO': '',
      '.eggs/x.egg': '',
      'htmlcov/index.html': '',
      '.pnpm-store/v3/x': '',
      '.yarn/cache/x.zip': '',
      '.yarn/releases/yarn.cjs': '',
      'node_modules/x/index.js': '',
      '.git/HEAD': '',
    });
    expect(await listFiles(workspace, '**/*', 10)).toEqual([
      '.yarn/',
      '.yarn/releases/',
      '.yarn/releases/yarn.cjs',
      'src/',
      'src/a.py',
      'web/',
    ]);
  });

  test('a tracked dist/ is out of the default walk, but an explicit glob or path reaches it', async () => {
    const workspace = makeWorkspace({
      '.gitignore': 'node_modules/\n*.map\n',
      'src/a.ts': 'needle',
      'dist/app.js': 'needle',
      'dist/app.js.map': 'needle',
      'dist/lib/util.js': 'needle',
      'dist/node_modules/dep/index.js': 'needle',
      'dist/.cache/x.js': 'needle',
    });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '-A');
    expect(git(workspace, 'ls-files')).toContain('dist/app.js');

    expect(await filesOf(workspace)).toEqual(['.gitignore', 'src/a.ts']);
    expect(await searched(workspace)).toBe('1 matches for /needle/:\nsrc/a.ts:1 | needle');
    expect(await searched(workspace, '**/*.js')).toMatch(/^no matches/);

    expect(await searched(workspace, 'dist/**/*.js')).toBe('2 matches for /needle/:\ndist/app.js:1 | needle\ndist/lib/util.js:1 | needle');
    expect(await searched(workspace, '{src,dist}/*')).toBe('2 matches for /needle/:\ndist/app.js:1 | needle\nsrc/a.ts:1 | needle');
    expect(await listed(workspace, { path: 'dist' })).toBe('3 entries under dist (depth 10):\ndist/app.js\ndist/lib/\ndist/lib/util.js');
    expect(await listed(workspace, { pattern: 'dist/**' })).toBe('3 entries under . (depth 10):\ndist/app.js\ndist/lib/\ndist/lib/util.js');
    // Without wildcards a pattern names one file, gitignored or not.
    expect(await searched(workspace, 'dist/app.js.map')).toBe('1 matches for /needle/:\ndist/app.js.map:1 | needle');
  });

  test('.git and node_modules are reached only by naming them', async () => {
    const workspace = makeWorkspace({ 'src/a.ts': '', 'node_modules/dep/index.js': 'needle', 'node_modules/dep/package.json': '' });
    git(workspace, 'init', '-q');
    expect(await listed(workspace, { path: 'node_modules/dep' })).toContain('node_modules/dep/index.js\nnode_modules/dep/package.json');
    expect(await searched(workspace, 'node_modules/dep/*.js')).toBe('1 matches for /needle/:\nnode_modules/dep/index.js:1 | needle');
    expect(await listed(workspace, { path: '.git', pattern: 'HEAD' })).toBe('1 entries under .git (depth 10):\n.git/HEAD');
  });
});

describe('gitignored paths', () => {
  test('a gitignored directory lists nothing even by path, and says why; a file in it is found by its exact name', async () => {
    const workspace = makeWorkspace({ '.gitignore': 'vendor/\n', 'vendor/lib/x.js': 'needle', 'src/a.ts': '' });
    expect(await listed(workspace, { path: 'vendor/lib' })).toBe(
      'no files under vendor/lib: vendor/lib is gitignored, so list_files and search_codebase leave it out; ' +
        'read_file still reads a file there by its path',
    );
    expect(await searched(workspace, 'vendor/**')).toMatch(/^no matches/);
    expect(await searched(workspace, 'vendor/lib/x.js')).toBe('1 matches for /needle/:\nvendor/lib/x.js:1 | needle');
  });

  test('are not in the file tree of the prompt', async () => {
    const workspace = makeWorkspace({
      '.gitignore': '.env\n*.sqlite\ntmp/\n',
      '.env': 'TOKEN=x',
      'data.sqlite': '',
      'tmp/scratch.ts': '',
      'src/index.ts': '',
      '.hypothesis/examples/x': '',
    });
    const { fileTree } = await describeWorkspace(workspace);
    expect(fileTree.split('\n')).toEqual(['.gitignore', 'src/', 'src/index.ts']);
  });
});

describe('ignore files are read safely', () => {
  test('a .gitignore that is a symlink is not followed, inside the workspace or out of it', async () => {
    const outside = makeWorkspace({ rules: '*\n' });
    const workspace = makeWorkspace({ 'a.ts': '', 'sub/b.ts': '', 'inside-rules': '*.ts\n' });
    symlinkSync(path.join(outside, 'rules'), path.join(workspace, '.gitignore'));
    symlinkSync('../inside-rules', path.join(workspace, 'sub/.gitignore'));
    // The link out is not listed either (globInWorkspace drops what resolves outside); the one inside is.
    expect(await filesOf(workspace)).toEqual(['a.ts', 'inside-rules', 'sub/.gitignore', 'sub/b.ts']);
  });

  test('a .git that is a symlink out of the workspace does not lend its info/exclude', async () => {
    const outside = makeWorkspace({ 'info/exclude': '*\n' });
    const workspace = makeWorkspace({ 'a.ts': '' });
    symlinkSync(outside, path.join(workspace, '.git'));
    expect(await filesOf(workspace)).toEqual(['a.ts']);
  });

  test('a FIFO .gitignore or info/exclude is never opened, so the walk cannot hang on it', { timeout: 10_000 }, async () => {
    const workspace = makeWorkspace({ 'a.ts': 'needle', 'sub/b.ts': '' });
    mkdirSync(path.join(workspace, '.git/info'), { recursive: true });
    for (const fifo of ['.gitignore', 'sub/.gitignore', '.git/info/exclude']) execFileSync('mkfifo', [path.join(workspace, fifo)]);
    expect(await filesOf(workspace)).toEqual(['.gitignore', 'a.ts', 'sub/.gitignore', 'sub/b.ts']);
    expect(await searched(workspace)).toBe('1 matches for /needle/:\na.ts:1 | needle');
    expect(await listed(workspace, { path: 'sub' })).toContain('sub/b.ts');
  });

  test('an ignore file over 256 KiB is skipped whole', async () => {
    const workspace = makeWorkspace({ '.gitignore': `a.ts\n${'#'.repeat(300 * 1024)}\n`, 'a.ts': '' });
    expect(await filesOf(workspace)).toEqual(['.gitignore', 'a.ts']);
  });
});

test('20,000 files with nested .gitignore files list in under 2 s, even on a busy machine', async () => {
  const workspace = makeWorkspace({ '.gitignore': '*.log\n!keep.log\n' });
  for (let module = 0; module < 400; module++) {
    const directory = path.join(workspace, `pkg${module % 20}`, `module${module}`);
    mkdirSync(directory, { recursive: true });
    if (module % 10 === 0) writeFileSync(path.join(directory, '.gitignore'), 'generated/\n*.tmp\n');
    for (let file = 0; file < 50; file++) writeFileSync(path.join(directory, `file${file}.${file % 5 === 0 ? 'log' : 'ts'}`), '');
  }
  await filesOf(workspace);
  const start = performance.now();
  const files = await filesOf(workspace);
  const elapsed = performance.now() - start;
  expect(files).toHaveLength(1 + 40 + 400 * 40);
  // About 0.3 s on an idle two-core machine; the bound leaves room for the suite running four files at once.
  expect(elapsed).toBeLessThan(2_000);
});
