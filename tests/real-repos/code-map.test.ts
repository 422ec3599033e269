import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { describeCodeMap } from '../../src/activities/code-map/code-map.js';
import { findSymbol } from '../../src/activities/code-map/find-symbol.js';
import { CHARS_PER_TOKEN } from '../../src/activities/code-map/render-code-map.js';
import { checkoutOf, type PublishedProject } from './fetch-project.js';

/** effect publishes its TypeScript sources (`src/`, 360 files) beside the build. */
const EFFECT: PublishedProject = {
  id: 'effect-3.10.0',
  url: 'https://registry.npmjs.org/effect/-/effect-3.10.0.tgz',
  digest: 'sha512-J9rsJBXNHZxklJTbHriY8D9wIHhmvXDamExW4pPZ2kPNZ+XRfstXeHBqpXAIK+B42ASVbuDswAXyup5WHWK6jg==',
};

/** Django's sdist: about 2,800 Python files. */
const DJANGO: PublishedProject = {
  id: 'django-5.0.6',
  url: 'https://files.pythonhosted.org/packages/4c/d3/b0dae3b5e6412227ec4387cf39110be3432c53886d2927c78b5f6976f1cb/Django-5.0.6.tar.gz',
  digest: 'sha256-ff1b61005004e476e0aeea47c7f79b85864c70124030e95146315396f1e7951f',
};

// A cache of this run's own, so the first map of each project is built here, not read from an earlier run.
beforeAll(() => {
  process.env.XDG_CACHE_HOME = mkdtempSync(path.join(os.tmpdir(), 'codeloop-map-cache-'));
});

/** The line ripgrep finds for `pattern`, as `path:line`. */
function ripgrepFinds(workspace: string, pattern: string, glob: string): string {
  const [line] = execFileSync('rg', ['--line-number', '--with-filename', '--no-heading', '-g', glob, '-e', pattern, '.'], {
    cwd: workspace,
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  const [file, number] = line!.replace(/^\.\//, '').split(':');
  return `${file}:${number}`;
}

describe.each([
  {
    project: EFFECT,
    expected: ['Option type', 'Effect interface'],
    symbol: 'Effect',
    definition: '^export interface Effect<',
    glob: 'src/Effect.ts',
  },
  {
    project: DJANGO,
    expected: ['Model class', 'HttpResponse class'],
    symbol: 'QuerySet',
    definition: '^class QuerySet\\b',
    glob: '**/*.py',
  },
])('the code map of $project.id', ({ project, expected, symbol, definition, glob }) => {
  test(
    'fits its budget, names the most used definitions, and find_symbol finds a definition ripgrep finds',
    { timeout: 300_000 },
    async () => {
      const workspace = await checkoutOf(project);
      const started = performance.now();
      const map = await describeCodeMap(workspace);
      const built = performance.now() - started;
      console.log(`${project.id}: map built in ${(built / 1000).toFixed(1)} s, ${map?.length} characters\n${map}`);
      expect(map).toBeDefined();
      expect(map!.length).toBeLessThanOrEqual(1_500 * CHARS_PER_TOKEN);
      for (const name of expected) expect(map).toContain(name.replace(' ', ' '));
      // Cached by commit: the second time is a read.
      const again = performance.now();
      expect(await describeCodeMap(workspace)).toBe(map);
      expect(performance.now() - again).toBeLessThan(built / 2);
      const where = ripgrepFinds(workspace, definition, glob);
      const { content } = await findSymbol(workspace, { name: symbol, max_results: 5 });
      expect(content.split('\n').find((line) => line.startsWith(`${where} | `))).toMatch(/\((class|interface|function)\)$/);
    },
  );
});
