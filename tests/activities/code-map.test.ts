import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildCodeIndex } from '../../src/activities/code-map/code-index.js';
import { describeCodeMap } from '../../src/activities/code-map/code-map.js';
import { findSymbol } from '../../src/activities/code-map/find-symbol.js';
import { CHARS_PER_TOKEN, rankDefinitions } from '../../src/activities/code-map/render-code-map.js';
import { createWorkspaceActivities, DESCRIBE_BUDGET_MS } from '../../src/activities/workspace.js';
import { projectLayer } from '../../src/workflows/common/project-prompt.js';
import { makeGitRepo, makeWorkspace } from '../support/workspace.js';

/**
 * A project in four languages whose most used definitions are known: `parseConfig` (TypeScript) is imported by 40
 * files, `Tokenizer` (Python) by 25, `Render` (Go) by 12, `formatDate` (JavaScript) by 6; `helper` is local to one file.
 */
function makeProject(extraFiles = 0): Record<string, string> {
  const files: Record<string, string> = {
    'src/config.ts':
      'export interface Config { name: string }\nexport function parseConfig(text: string): Config {\n  return { name: text };\n}\n',
    'lib/tokenizer.py': 'class Tokenizer:\n    def split(self, text):\n        return text.split()\n',
    'pkg/render/render.go': 'package render\n\nfunc Render(s string) string { return s }\n',
    'web/date.js': 'export function formatDate(d) {\n  return d.toISOString();\n}\n',
    'src/local.ts': 'function helper() { return 1; }\nexport const value = helper();\n',
  };
  for (let i = 0; i < 40; i++)
    files[`src/users/u${i}.ts`] = `import { parseConfig } from '../config';\nexport const c${i} = parseConfig('u${i}');\n`;
  for (let i = 0; i < 25; i++) files[`lib/text/t${i}.py`] = `from lib.tokenizer import Tokenizer\n\nT${i} = Tokenizer()\n`;
  for (let i = 0; i < 12; i++)
    files[`pkg/views/v${i}.go`] = `package views\n\nimport "x/pkg/render"\n\nfunc V${i}() string { return render.Render("v") }\n`;
  for (let i = 0; i < 6; i++)
    files[`web/pages/p${i}.js`] = `import { formatDate } from '../date.js';\nexport const p${i} = formatDate(new Date());\n`;
  for (let i = 0; i < extraFiles; i++) files[`docs/notes/n${i}.md`] = `# note ${i}\n`;
  return files;
}

describe('the code index', { timeout: 60_000 }, () => {
  test('definitions in TypeScript, JavaScript, Python and Go, ranked by the other files that use them', async () => {
    const index = await buildCodeIndex(makeGitRepo(makeProject()));
    expect(index.languages).toEqual(['go', 'javascript', 'python', 'typescript']);
    expect(index.commit).toMatch(/^[0-9a-f]{40}$/);
    const ranked = rankDefinitions(index).map(({ name, kind, file, usedIn }) => [name, kind, file, usedIn]);
    expect(ranked.slice(0, 4)).toEqual([
      ['parseConfig', 'function', 'src/config.ts', 40],
      ['Tokenizer', 'class', 'lib/tokenizer.py', 25],
      ['Render', 'function', 'pkg/render/render.go', 12],
      ['formatDate', 'function', 'web/date.js', 6],
    ]);
    expect(ranked.map(([name]) => name)).not.toContain('helper');
  });

  test('reads the commit, not the working tree: an uncommitted file, a symlink or a FIFO is never opened', async () => {
    const workspace = makeGitRepo(makeProject());
    writeFileSync(path.join(workspace, 'src/uncommitted.ts'), 'export function fresh() {}\n');
    const index = await buildCodeIndex(workspace);
    expect(index.definitions.map(([name]) => name)).not.toContain('fresh');
  });

  test('stops at its time limit and keeps what it parsed', async () => {
    const index = await buildCodeIndex(makeGitRepo(makeProject()), {
      limits: { maxFileBytes: 2_000_000, maxTotalBytes: 200_000_000, timeLimitMs: 0 },
    });
    expect(index.parsedFiles).toBeLessThan(index.sourceFiles);
  });
});

describe('the project layer of a large repository', { timeout: 60_000 }, () => {
  test('holds the code map within its budget instead of the first 150 paths; a small one keeps its file tree', async () => {
    const { describeWorkspace } = createWorkspaceActivities({ hostId: 'h', hostQueue: 'codeloop@h', sandbox: 'on' });
    const repo = makeGitRepo({ ...makeProject(400), 'codeloop.json': '{"codeMap": {"tokens": 400}}' });
    const started = performance.now();
    const first = await describeWorkspace(repo);
    // Never held up past its one-second budget by the map's first build (generous here: the machine is shared).
    expect(performance.now() - started).toBeLessThan(DESCRIBE_BUDGET_MS + 2_000);
    // The build went on in the background; once it is done, the next description has the map.
    if (!first.codeMap) await describeCodeMap(repo);
    const large = await describeWorkspace(repo);
    expect(large.codeMap).toContain('parseConfig function:2 (40)');
    expect(large.codeMap).toMatch(/^\d+ files at commit [0-9a-f]{12}; 88 in go, javascript, python, typescript\./);
    expect(large.codeMap!.length).toBeLessThanOrEqual(400 * CHARS_PER_TOKEN);
    const layer = projectLayer(large);
    expect(layer).toContain('## Code map');
    expect(layer).not.toContain('## Files');
    const small = await describeWorkspace(makeGitRepo(makeProject()));
    expect(small.codeMap).toBeUndefined();
    expect(projectLayer(small)).toContain('## Files (up to 3 levels)');
  });

  test('codeMap: false turns it off', async () => {
    expect(await describeCodeMap(makeGitRepo({ ...makeProject(400), 'codeloop.json': '{"codeMap": false}' }))).toBeUndefined();
  });
});

describe('find_symbol', { timeout: 60_000 }, () => {
  test('names the definition and the lines that use the name, as they are now', async () => {
    const workspace = makeGitRepo(makeProject());
    writeFileSync(path.join(workspace, 'src/new-user.ts'), "import { parseConfig } from './config';\nparseConfig('new');\n");
    const { content } = await findSymbol(workspace, { name: 'parseConfig', max_results: 3 });
    expect(content.split('\n').slice(0, 7)).toEqual([
      'parseConfig: 1 definition, 82 other lines naming it',
      'Definitions:',
      'src/config.ts:2 | export function parseConfig(text: string): Config {  (function)',
      'Uses:',
      "src/new-user.ts:1 | import { parseConfig } from './config';",
      "src/new-user.ts:2 | parseConfig('new');",
      "src/users/u0.ts:1 | import { parseConfig } from '../config';",
    ]);
    for (const [name, where] of [
      ['Tokenizer', 'lib/tokenizer.py:1 | class Tokenizer:  (class)'],
      ['Render', 'pkg/render/render.go:3 | func Render(s string) string { return s }  (function)'],
      ['split', 'lib/tokenizer.py:2 |     def split(self, text):  (method)'],
    ]) {
      expect((await findSymbol(workspace, { name: name!, max_results: 3 })).content).toContain(where);
    }
  });

  test('finds a definition that sorts after hundreds of uses', async () => {
    const files: Record<string, string> = { 'zz/late.ts': 'export function lateName() {}\n' };
    for (let i = 0; i < 250; i++) files[`a/f${i}.ts`] = `lateName();\n`;
    const { content } = await findSymbol(makeWorkspace(files), { name: 'lateName', max_results: 1 });
    expect(content).toContain('zz/late.ts:1 | export function lateName() {}  (function)');
    expect(content.split('\n')[0]).toBe('lateName: 1 definition, 250 other lines naming it');
  });

  test('refuses what is not a name', async () => {
    expect(await findSymbol(makeWorkspace({}), { name: 'a b', max_results: 5 })).toMatchObject({ isError: true });
  });
});
