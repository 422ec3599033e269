import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The codeloop checkout this code runs from: the nearest directory above this module that holds codeloop's own
 * `package.json`. Found by walking up rather than by a fixed `../..`, so it is the same whether the code runs from
 * `src/` or from a bundle built anywhere inside the checkout (the test suite runs the CLI from one).
 */
export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'codeloop') return dir;
    if (path.dirname(dir) === dir) throw new Error(`codeloop's package.json is in no directory above ${from}`);
  }
}
