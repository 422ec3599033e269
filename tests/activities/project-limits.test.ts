import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { listWorkspaceFiles } from '../../src/activities/tools/list-files.js';
import { runWorkspaceTests } from '../../src/activities/tools/run-tests.js';
import { detectGates } from '../../src/activities/verification/gates.js';
import { readWorkspaceConfig } from '../../src/activities/verification/workspace-config.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeWorkspace } from '../support/workspace.js';

const shell = sandboxedShell(process.env);
const config = (value: unknown) => ({ 'codeloop.json': JSON.stringify(value) });

describe('timeouts from codeloop.json', () => {
  test('gateTimeoutSeconds is every gate timeout that sets none of its own, detected gates included; test.timeoutSeconds the tests gate', () => {
    const project = { 'package.json': JSON.stringify({ scripts: { test: 'node --test', lint: 'eslint .', build: 'tsc' } }) };
    expect(detectGates(makeWorkspace(project)).map((gate) => gate.timeoutSeconds)).toEqual([300, 300, 300]);
    const detected = detectGates(makeWorkspace({ ...project, ...config({ gateTimeoutSeconds: 900, test: { timeoutSeconds: 3600 } }) }));
    expect(detected.map((gate) => [gate.name, gate.timeoutSeconds])).toEqual([
      ['lint', 900],
      ['build', 900],
      ['tests', 3600],
    ]);
    const configured = detectGates(
      makeWorkspace(
        config({
          gateTimeoutSeconds: 1200,
          gates: [
            { name: 'e2e', command: 'npm run e2e', timeoutSeconds: 3000 },
            { name: 'lint', command: 'ruff .' },
          ],
        }),
      ),
    );
    expect(configured).toEqual([
      { name: 'e2e', command: 'npm run e2e', timeoutSeconds: 3000 },
      { name: 'lint', command: 'ruff .', timeoutSeconds: 1200 },
    ]);
  });

  test('up to an hour, named when over', () => {
    expect(() => readWorkspaceConfig(makeWorkspace(config({ test: { timeoutSeconds: 3601 } })))).toThrow(
      /codeloop.json is invalid: test.*3600/,
    );
    expect(() => readWorkspaceConfig(makeWorkspace(config({ gateTimeoutSeconds: 0 })))).toThrow(/gateTimeoutSeconds/);
    expect(readWorkspaceConfig(makeWorkspace(config({ test: 'pytest -q' }))).test).toEqual({ command: 'pytest -q', hooks: true });
  });

  test('run_tests stops at the test timeout codeloop.json sets', async () => {
    const workspace = makeWorkspace(config({ test: { command: 'sleep 30', timeoutSeconds: 1 } }));
    const started = performance.now();
    const outcome = await runWorkspaceTests(shell, workspace, {});
    expect(outcome).toMatchObject({ isError: true, content: expect.stringContaining('timed out after 1 s') });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('list_files on a large directory', { timeout: 60_000 }, () => {
  function makeLargeTree(): string {
    const workspace = makeWorkspace({ 'README.md': '# big\n' });
    for (const [directory, count] of [
      ['src/core', 300],
      ['src/util', 40],
      ['tests', 260],
      ['docs/guide', 5],
    ] as const) {
      mkdirSync(path.join(workspace, directory), { recursive: true });
      for (let index = 0; index < count; index++)
        writeFileSync(path.join(workspace, directory, `f${String(index).padStart(3, '0')}.txt`), '');
    }
    return workspace;
  }

  test('starts with the directories and their file counts, then pages of entries', async () => {
    const workspace = makeLargeTree();
    const first = (await listWorkspaceFiles(workspace, { max_depth: 3 })).content;
    const lines = first.split('\n');
    expect(lines[0]).toBe('612 entries under . (depth 3), page 1 of 3 (entries 1-250):');
    expect(lines.slice(1, 9)).toEqual([
      'Directories, with the files below each (within the depth listed):',
      'docs/  5 files',
      '  docs/guide/  5 files',
      'src/  340 files',
      '  src/core/  300 files',
      '  src/util/  40 files',
      'tests/  260 files',
      '(1 files directly here)',
    ]);
    expect(lines.at(-1)).toBe('… page 1 of 3: list_files with page: 2 for more, or a narrower path or pattern');
    const third = (await listWorkspaceFiles(workspace, { max_depth: 3, page: 3 })).content.split('\n');
    expect(third[0]).toBe('612 entries under . (depth 3), page 3 of 3 (entries 501-612):');
    expect(third).toHaveLength(1 + 112);
    expect(third.at(-1)).toBe('tests/f259.txt');
    expect((await listWorkspaceFiles(workspace, { max_depth: 3, page: 4 })).content).toBe(
      '612 entries under . (depth 3): there are 3 pages; ask for page 1 to 3',
    );
  });

  test('a listing of 500 entries or fewer is shown whole, as before', async () => {
    const workspace = makeLargeTree();
    const content = (await listWorkspaceFiles(workspace, { max_depth: 3, path: 'src' })).content;
    expect(content.split('\n')[0]).toBe('342 entries under src (depth 3):');
    expect(content).not.toContain('page');
  });
});
