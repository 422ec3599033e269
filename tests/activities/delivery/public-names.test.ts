import { describe, expect, test } from 'vitest';
import { unionOfAdditions } from '../../../src/activities/git/shared-documents.js';
import { typescriptNames } from '../../../src/activities/delivery/typescript-names.js';

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
