import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { checkTypes, prepareTypeCheck, typeCheckPrepared } from '../../src/activities/verification/type-check.js';
import { makeWorkspace } from '../support/workspace.js';

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['**/*.ts'] });
const unchanged = (text: string) => async () => text;

test("the edited file's own new error is reported; the errors it had before are counted", async () => {
  const before = 'export const a: number = "old";\n';
  const workspace = makeWorkspace({ 'tsconfig.json': TSCONFIG, 'a.ts': `${before}export const b: string = 42;\n` });
  const result = await checkTypes(workspace, 'a.ts', unchanged(before));
  expect(result.preExisting).toBe(1);
  expect(result.introduced).toEqual([
    { file: 'a.ts', line: 2, column: 14, code: 2322, message: "Type 'number' is not assignable to type 'string'." },
  ]);
});

test('a file that links outside the workspace is not read, so its text cannot reach a diagnostic', async () => {
  const outside = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
  writeFileSync(path.join(outside, 'secret.ts'), 'export const token: number = "sk-live-do-not-show";\n');
  const workspace = makeWorkspace({ 'tsconfig.json': TSCONFIG, 'a.ts': "import { token } from './secret';\nexport const t = token;\n" });
  symlinkSync(path.join(outside, 'secret.ts'), path.join(workspace, 'secret.ts'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe.ts')]);
  const result = await checkTypes(workspace, 'a.ts', async () => undefined);
  expect(JSON.stringify(result)).not.toContain('sk-live');
  // The import finds nothing it may read: the agent hears that the module is missing.
  expect(result.introduced.map((d) => d.code)).toEqual([2307]);
});

test("a tsconfig.json that does not parse is no crash: its problem was there before, the edit's own error is still found", async () => {
  const workspace = makeWorkspace({ 'tsconfig.json': '{"compilerOptions": {"strict": tru', 'a.ts': 'export const a: string = 1;\n' });
  const result = await checkTypes(workspace, 'a.ts', unchanged('export const a: string = "1";\n'));
  expect(result.introduced).toEqual([expect.objectContaining({ file: 'a.ts', code: 2322 })]);
});

test('a project over the checker’s limit is not parsed at all: the edit hears why, and the worker’s event loop stays free', async () => {
  // About 50 MB of committed TypeScript, as a repository may hold: 400 files of 128 KB.
  const workspace = makeWorkspace({ 'tsconfig.json': TSCONFIG });
  const body = `export const value: number = 1;\n${'// padding line of a generated file, long enough to add up\n'.repeat(2200)}`;
  for (let index = 0; index < 400; index += 1) writeFileSync(path.join(workspace, `m${index}.ts`), body);
  let ticks = 0;
  const ticking = setInterval(() => (ticks += 1), 50);
  const started = Date.now();
  await expect(checkTypes(workspace, 'm0.ts', async () => undefined)).rejects.toThrow(/over 32 MB, the incremental checker's limit/);
  clearInterval(ticking);
  // The refusal comes from the checker's own process; this process kept its timers running meanwhile.
  expect(ticks).toBeGreaterThanOrEqual(Math.floor((Date.now() - started) / 50) - 2);
  // Asked again, the project is refused at once, without a second look.
  const again = Date.now();
  await expect(checkTypes(workspace, 'm1.ts', async () => undefined)).rejects.toThrow(/incremental checker's limit/);
  expect(Date.now() - again).toBeLessThan(100);
}, 60_000);

/** Module k imports module k-1's maker; module 0 has an error of its own from the start. */
const chainModule = (k: number) =>
  [
    k > 0 ? `import { make${k - 1} } from '${k === 1 ? '@base/m0' : `./m${k - 1}`}';` : 'export const broken: number = "already";',
    `export function make${k}(seed: number): { id: number; label: string } {`,
    k > 0 ? `  const previous = make${k - 1}(seed);` : '  const previous = { id: seed, label: String(seed) };',
    '  return { id: previous.id + 1, label: `${previous.label}/' + k + '` };',
    '}',
    ...Array.from({ length: 40 }, (_, n) => `export const value${k}_${n}: Array<{ n: number }> = [${n}].map((n) => ({ n: n * ${k} }));`),
  ].join('\n');

test("the first edit is checked while the whole project's baseline is still being taken, against the project as the task found it", async () => {
  const modules = 80;
  const files: Record<string, string> = {
    // A tsconfig `paths` alias on one import: the importer is found through the compiler's own resolution.
    'tsconfig.json': JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', baseUrl: '.', paths: { '@base/*': ['src/*'] } },
      include: ['src'],
    }),
  };
  for (let k = 0; k < modules; k += 1) files[`src/m${k}.ts`] = chainModule(k);
  const workspace = makeWorkspace(files);
  const committed = (file: string) => async () => files[file];
  let baselineTaken = false;
  const prepared = prepareTypeCheck(workspace).then(() => (baselineTaken = true));
  await typeCheckPrepared(workspace);

  // m0's maker now says its id is a string: its own new error, and one in m1, which imports it through the alias.
  const m0 = path.join(workspace, 'src/m0.ts');
  writeFileSync(m0, readFileSync(m0, 'utf8').replace('make0(seed: number): { id: number;', 'make0(seed: number): { id: string;'));
  const first = await checkTypes(workspace, 'src/m0.ts', committed('src/m0.ts'));
  expect(baselineTaken, 'answered before the whole check').toBe(false);
  expect(first.introduced.map((d) => `${d.file} TS${d.code}`)).toEqual(['src/m0.ts TS2322', 'src/m1.ts TS2322']);
  expect(first.preExisting).toBe(1);

  // m1's maker now takes a string: its own error, and one in m2 (a plain relative import) from the new signature.
  const m1 = path.join(workspace, 'src/m1.ts');
  writeFileSync(m1, readFileSync(m1, 'utf8').replace('export function make1(seed: number)', 'export function make1(seed: string)'));
  const expected = ['src/m0.ts TS2322', 'src/m1.ts TS2322', 'src/m1.ts TS2345', 'src/m2.ts TS2345'];
  const second = await checkTypes(workspace, 'src/m1.ts', committed('src/m1.ts'));
  expect(baselineTaken).toBe(false);
  expect(second.introduced[0]!.file).toBe('src/m1.ts');
  expect(second.introduced.map((d) => `${d.file} TS${d.code}`).sort()).toEqual(expected);

  // Once the baseline is in, the whole project is compared: the same errors, nothing from before the task among them.
  await prepared;
  const third = await checkTypes(workspace, 'src/m1.ts', committed('src/m1.ts'));
  expect(third.introduced.map((d) => `${d.file} TS${d.code}`).sort()).toEqual(expected);
  expect(third.preExisting).toBe(0);
}, 60_000);
