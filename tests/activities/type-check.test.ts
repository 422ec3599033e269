import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { checkTypes } from '../../src/activities/verification/type-check.js';
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
