import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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

/**
 * The layers, lowest first. A module may import its own layer and those below, never one above: the wire contract
 * and plain helpers at the bottom, then configuration, the activities, the workflows, the worker's assembly, the
 * tools built on it (eval, cluster), and the entry points (the CLI, `npm start`) on top.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['shared', 'text', 'config-error'],
  ['payloads', 'shell', 'project-root', 'lanes'],
  ['config'],
  ['connection', 'worker-logger', 'activities', 'reads'],
  ['workflows', 'telemetry', 'workflow-bundle'],
  ['create-workers'],
  ['eval', 'cluster'],
  ['worker'],
  ['client', 'server'],
];

/** A module's place: its top-level directory under src/, or its own name for a file there. */
const placeOf = (root: string, file: string) => path.relative(root, file).split(path.sep)[0].replace(/\.ts$/, '');
const layerOf = (place: string) => LAYERS.findIndex((layer) => layer.includes(place));

/** Every import that reaches up a layer, and every module in no layer, under `root` (a src/ tree). */
function layerViolations(root: string): string[] {
  const files = sourceFiles(root);
  const unplaced = [...new Set(files.map((file) => placeOf(root, file)))]
    .filter((place) => layerOf(place) < 0)
    .map((place) => `${place}: in no layer`);
  const upward = files.flatMap((file) =>
    importsOf(file)
      .filter((target) => layerOf(placeOf(root, target)) > layerOf(placeOf(root, file)))
      .map((target) => `${path.relative(root, file)} → ${path.relative(root, target)}`),
  );
  return [...unplaced, ...upward];
}

/** Imports of an SDK's internals (`@temporalio/<package>/lib/…`) in workflow code under `root`: they move between releases. */
function sdkInternalImports(root: string): string[] {
  return sourceFiles(path.join(root, 'workflows')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from\s*['"](@temporalio\/[^/'"]+\/[^'"]+)['"]/g)].map(
      (match) => `${path.relative(root, file)} → ${match[1]}`,
    ),
  );
}

/** A throwaway src/ tree holding the given files, for showing that the checks catch what they look for. */
function plantedTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'codeloop-layers-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('src/ is layered: nothing imports a layer above its own', () => {
  expect(layerViolations(src)).toEqual([]);
});

test('workflow code imports no SDK internals', () => {
  expect(sdkInternalImports(src)).toEqual([]);
});

test('the layer and SDK checks catch a planted upward import and a planted SDK-internal import', () => {
  const root = plantedTree({
    'client/output.ts': 'export const x = 1;\n',
    'eval/table.ts': "import { x } from '../client/output.js';\nexport const y = x;\n",
    'stray/thing.ts': 'export const z = 1;\n',
    'workflows/task/policies.ts': "import { msToNumber } from '@temporalio/common/lib/time.js';\nexport const t = msToNumber;\n",
  });
  expect(layerViolations(root)).toEqual(['stray: in no layer', 'eval/table.ts → client/output.ts']);
  expect(sdkInternalImports(root)).toEqual(['workflows/task/policies.ts → @temporalio/common/lib/time.js']);
});

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

/** Files of the batch workflow under `root` (a src/ tree) that ask a patch anywhere but in `before-patches.ts`. */
function batchPatchAsks(root: string): string[] {
  return sourceFiles(path.join(root, 'workflows', 'batch'))
    .filter((file) => path.basename(file) !== 'before-patches.ts')
    .filter((file) => /\b(?:applies|patched|deprecatePatch)\(/.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file));
}

test('the batch asks its patches in one place, before-patches.ts, where the paths from before them are', () => {
  expect(batchPatchAsks(src)).toEqual([]);
  const root = plantedTree({
    'workflows/batch/before-patches.ts': "export const a = applies('batchDeadline');\n",
    'workflows/batch/merge-queue.ts': "const pipelined = applies('batchMergesPipelined');\n",
  });
  expect(batchPatchAsks(root)).toEqual(['workflows/batch/merge-queue.ts']);
});

/** The longest a source file may be: past it, a file holds more than one idea (the task and batch runs were split at it). */
const MAX_LINES = 500;

/** Every source file under `root` longer than `MAX_LINES`, with its length. */
function overlongFiles(root: string): string[] {
  return sourceFiles(root)
    .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${path.relative(root, file)}: ${lines} lines`);
}

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  expect(overlongFiles(src)).toEqual([]);
  const root = plantedTree({
    'workflows/long.ts': 'const x = 1;\n'.repeat(MAX_LINES + 1),
    'workflows/short.ts': 'const y = 2;\n'.repeat(MAX_LINES),
  });
  expect(overlongFiles(root)).toEqual([`workflows/long.ts: ${MAX_LINES + 1} lines`]);
});
