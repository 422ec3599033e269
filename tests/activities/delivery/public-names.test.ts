import { describe, expect, test } from 'vitest';
import { unionOfAdditions } from '../../../src/activities/git/shared-documents.js';
import { typescriptNames } from '../../../src/activities/delivery/typescript-names.js';
import { pythonNames } from '../../../src/activities/delivery/python-names.js';
import { sandboxedShell } from '../../support/sandbox.js';
import { makeWorkspace } from '../../support/workspace.js';

describe("TypeScript's public names", () => {
  test('exported functions, classes with public methods, constants, types and registered commands, with signatures', () => {
    const source = [
      "import { Command } from 'commander';",
      'export function addBookmark(url: string, title = "none"): Bookmark { return { url, title }; }',
      'export const remove = (url: string): void => {};',
      'export const LIMIT: number = 10;',
      'export interface Bookmark { url: string; title: string }',
      'export class Store { add(url: string) {} private hidden() {} }',
      'function internal() {}',
      "new Command().command('add <url>').action(() => {});",
    ].join('\n');
    expect(typescriptNames('src/store.ts', source).map(({ kind, signature }) => `${kind} ${signature}`)).toEqual([
      'function addBookmark(url: string, title): Bookmark',
      'function remove(url: string): void',
      'const LIMIT: number',
      'interface Bookmark',
      'class Store',
      'method Store.add(url: string)',
      'command add',
    ]);
  });
});

describe("Python's public names, read by ast in the sandbox", () => {
  test('functions, classes with public methods and commands, across more source than one command line holds', async () => {
    const padding = `# ${'x'.repeat(200)}\n`.repeat(250);
    const sources: Record<string, string> = {
      'store.py': 'class Store:\n    def add(self, url, *tags):\n        pass\n    def _hidden(self):\n        pass\n',
      'cli.py': [
        'import argparse, click',
        'def main(argv=None):',
        '    parser = argparse.ArgumentParser()',
        '    parser.add_subparsers().add_parser("export")',
        '@click.command("sync")',
        'def sync_all(force=False):',
        '    pass',
        'def _private():',
        '    pass',
      ].join('\n'),
      'broken.py': 'def oops(:\n',
    };
    for (let index = 0; index < 4; index++) sources[`big${index}.py`] = `${padding}def big_${index}(a, b):\n    pass\n`;
    const found = await pythonNames(sandboxedShell(), makeWorkspace({ 'README.md': '' }), sources);
    const signatures = found.names.map(({ file, kind, signature }) => `${file} ${kind} ${signature}`);
    expect(signatures).toEqual(
      expect.arrayContaining([
        'store.py class Store',
        'store.py method Store.add(url, *tags)',
        'cli.py function main(argv)',
        'cli.py command export',
        'cli.py function sync_all(force)',
        'cli.py command sync',
        'big0.py function big_0(a, b)',
        'big3.py function big_3(a, b)',
      ]),
    );
    expect(signatures.join('\n')).not.toMatch(/_hidden|_private/);
    expect(found.unread).toEqual(['broken.py']);
  }, 60_000);
});

describe('shared documents merged as text', () => {
  test('additions at the same place keep both, ours first', () => {
    const conflicted = ['# tool', '<<<<<<< ours', '## a', '||||||| base', '=======', '## b', '>>>>>>> theirs', 'end'].join('\n');
    expect(unionOfAdditions(conflicted)).toBe(['# tool', '## a', '## b', 'end'].join('\n'));
  });

  test('both sides changing a line the base had is left to a human', () => {
    const conflicted = ['<<<<<<< ours', 'Usage: x', '||||||| base', 'Usage:', '=======', 'Usage: y', '>>>>>>> theirs'].join('\n');
    expect(unionOfAdditions(conflicted)).toBeUndefined();
  });
});
