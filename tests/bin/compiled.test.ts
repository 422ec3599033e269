import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { compiledCli } from '../../bin/compiled.js';
import { makeWorkspace } from '../support/workspace.js';

/** A checkout in miniature: a `main.ts` that prints what one of its modules says. */
function checkout(word: string): string {
  return makeWorkspace({
    'package.json': '{ "name": "mini", "type": "module" }\n',
    'src/client/main.ts': "import { word } from './word.js';\nexport async function main() {\n  console.log(word);\n}\n",
    'src/client/word.ts': `export const word = '${word}';\n`,
  });
}

const run = (entry: string) =>
  execFileSync('node', ['--input-type=module', '-e', `(await import(${JSON.stringify(entry)})).main()`], { encoding: 'utf8' });

test('the CLI is compiled once, reused while the source is unchanged, and compiled afresh after an edit', async () => {
  const root = checkout('first');
  const entry = await compiledCli(root);
  expect(entry).toBeDefined();
  expect(run(entry!)).toBe('first\n');
  const built = statSync(path.dirname(entry!)).ino;
  expect(await compiledCli(root)).toBe(entry);
  expect(statSync(path.dirname(entry!)).ino).toBe(built);

  writeFileSync(path.join(root, 'src/client/word.ts'), "export const word = 'second';\n");
  const edited = await compiledCli(root);
  expect(edited).not.toBe(entry);
  expect(run(edited!)).toBe('second\n');
  // The earlier build stays for an hour, for commands that may still be loading from it.
  expect(readdirSync(path.join(root, 'node_modules/.cache/codeloop')).sort()).toEqual(
    [path.basename(path.dirname(entry!)), path.basename(path.dirname(edited!))].sort(),
  );
});

test('commands started at once share one build, and builds of older sources go after an hour', async () => {
  const root = checkout('same');
  const old = path.join(root, 'node_modules/.cache/codeloop/cli-0000000000000000');
  mkdirSync(old, { recursive: true });
  const hourAgo = (Date.now() - 3_700_000) / 1000;
  utimesSync(old, hourAgo, hourAgo);
  const entries = await Promise.all([compiledCli(root), compiledCli(root), compiledCli(root)]);
  expect(new Set(entries).size).toBe(1);
  expect(run(entries[0]!)).toBe('same\n');
  expect(readdirSync(path.join(root, 'node_modules/.cache/codeloop'))).toEqual([path.basename(path.dirname(entries[0]!))]);
});

test('source that does not compile gives no build, so the CLI runs it through tsx and shows the error', async () => {
  const root = checkout('broken');
  writeFileSync(path.join(root, 'src/client/word.ts'), 'export const word = ;\n');
  expect(await compiledCli(root)).toBeUndefined();
  const cache = path.join(root, 'node_modules/.cache/codeloop');
  expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
});
