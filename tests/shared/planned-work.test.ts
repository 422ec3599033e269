import { describe, expect, test } from 'vitest';
import { interfaceMismatches, parseSignature, type PublicName } from '../../src/shared/delivery.js';
import { checkPlan } from '../../src/shared/plan.js';
import { isSharedDocument } from '../../src/shared/shared-documents.js';
import { prdFor } from '../../src/workflows/batch/task-context.js';

const name = (signature: string, file = 'a.py'): PublicName => ({
  file,
  name: parseSignature(signature).name,
  kind: 'function',
  signature,
  change: 'added',
});

describe('provides against the code', () => {
  test('signatures parse to a name and parameter names, types and defaults aside', () => {
    expect(parseSignature('add_bookmark(url, title)')).toEqual({ name: 'add_bookmark', params: ['url', 'title'] });
    expect(parseSignature('greet(name: string, loud = false): string')).toEqual({ name: 'greet', params: ['name', 'loud'] });
    expect(parseSignature('Store.add(self, url, *tags, **extra)')).toEqual({ name: 'Store.add', params: ['url', 'tags', 'extra'] });
    expect(parseSignature('Bookmarks')).toEqual({ name: 'Bookmarks' });
  });

  test('a declared name with its parameters matches; a missing name or other parameters do not, with what is there', () => {
    const names = [name('add(url)'), name('Store.list_all(self)'), name('Bookmarks')];
    expect(interfaceMismatches(['add(url)', 'list_all()', 'Bookmarks'], names)).toEqual([]);
    expect(interfaceMismatches(['add_bookmark(url, title)'], names)).toEqual([{ declared: 'add_bookmark(url, title)' }]);
    expect(interfaceMismatches(['add(url, title)'], names)).toEqual([{ declared: 'add(url, title)', found: 'add(url)' }]);
  });
});

describe('the PRD a task gets', () => {
  const long = `# Product\nintro\n\n## Storage\n${'s'.repeat(12_000)}\n\n## Command line\n${'c'.repeat(12_000)}\n### Flags\nflags`;

  test('whole within the budget, whatever sections are named', () => {
    expect(prdFor('# Short\ntext', ['Other'])).toBe('# Short\ntext');
  });

  test('past the budget, only the named sections, subsections included, with a line saying so', () => {
    const given = prdFor(long, ['command line']);
    expect(given).toContain('these are the sections planned for this task: Command line');
    expect(given).toContain('## Command line\nccc');
    expect(given).toContain('### Flags\nflags');
    expect(given).not.toContain('## Storage');
  });

  test('past the budget with no section matching, the whole PRD (the prompt cuts it)', () => {
    expect(prdFor(long, ['Nowhere'])).toBe(long);
    expect(prdFor(long)).toBe(long);
  });
});

describe('shared documents', () => {
  test('README and changelogs at any depth are shared; code is not', () => {
    for (const file of ['README.md', 'docs/README.md', 'CHANGELOG.md', 'CHANGES', 'NEWS.rst', 'RELEASE_NOTES.md'])
      expect(isSharedDocument(file)).toBe(true);
    for (const file of ['readme.py', 'src/cli.ts', 'README.md.bak', 'docs/guide.md']) expect(isSharedDocument(file)).toBe(false);
  });

  test('four planned tasks that all name README.md stay parallel; a shared code file still orders them', () => {
    const task = (id: string, files: string[]) => ({
      id,
      title: `Task ${id}`,
      description: 'd',
      dependsOn: [],
      complexity: 1,
      acceptance: ['works'],
      files,
    });
    const checked = checkPlan({ tasks: ['a', 'b', 'c', 'd'].map((id) => task(id, [`${id}.py`, 'README.md'])) }, 12);
    expect('plan' in checked && checked.plan.tasks.map((t) => t.dependsOn)).toEqual([[], [], [], []]);
    const code = checkPlan({ tasks: [task('a', ['cli.py', 'README.md']), task('b', ['cli.py', 'README.md'])] }, 12);
    expect('plan' in code && code.plan.orderingNotes).toEqual(['b now waits for a: both change cli.py']);
  });
});
