import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * The layout's rules, read from the import statements themselves (type-only imports included, since they tie
 * modules together just the same): no import cycles anywhere in src/, the wire contract in src/shared/ depends on
 * nothing else of codeloop's, and the workflows share code through src/workflows/common/, not each other.
 */

const src = path.resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** Every relative module a file imports or re-exports, as absolute `.ts` paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]);
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
}

const graph = new Map(sourceFiles(src).map((file) => [file, importsOf(file)]));
const name = (file: string) => path.relative(src, file);

test('src/ has no import cycles', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].map(name).join(' → '));
      return;
    }
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file);
  expect(cycles).toEqual([]);
});

test('src/shared/ is the wire contract: it imports nothing of codeloop outside itself', () => {
  const shared = path.join(src, 'shared');
  const outward = [...graph].flatMap(([file, imports]) =>
    file.startsWith(`${shared}/`)
      ? imports.filter((target) => !target.startsWith(`${shared}/`)).map((target) => `${name(file)} → ${name(target)}`)
      : [],
  );
  expect(outward).toEqual([]);
});

test('the task, batch and plan workflows share code only through src/workflows/common/', () => {
  const rooms = ['task', 'batch', 'plan'].map((dir) => path.join(src, 'workflows', dir));
  const roomOf = (file: string) => rooms.find((room) => file.startsWith(`${room}/`));
  const crossing = [...graph].flatMap(([file, imports]) =>
    imports
      .filter((target) => roomOf(file) !== undefined && roomOf(target) !== undefined && roomOf(file) !== roomOf(target))
      .map((target) => `${name(file)} → ${name(target)}`),
  );
  expect(crossing).toEqual([]);
});

test('nothing outside src/workflows/ imports workflow code except through the workflows index', () => {
  const workflows = path.join(src, 'workflows');
  const reaching = [...graph].flatMap(([file, imports]) =>
    file.startsWith(`${workflows}/`)
      ? []
      : imports
          .filter((target) => target.startsWith(`${workflows}/`) && target !== path.join(workflows, 'index.ts'))
          .map((target) => `${name(file)} → ${name(target)}`),
  );
  expect(reaching).toEqual([]);
});
