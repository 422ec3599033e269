import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { runProcess } from '../../../src/activities/process/run-process.js';
import { testSandbox } from '../../support/sandbox.js';
import { makeWorkspace } from '../../support/workspace.js';

const run = (command: string, timeoutMs = 10_000, signal?: AbortSignal, cwd = makeWorkspace()) =>
  runProcess({ command, cwd, timeoutMs, env: { PATH: process.env.PATH }, sandbox: testSandbox, signal });

test('exit code and interleaved output', async () => {
  const result = await run('echo out; echo err >&2; exit 3');
  expect(result).toMatchObject({ exitCode: 3, timedOut: false, cancelled: false });
  expect(result.output).toBe('out\nerr\n');
});

test('runs in the given directory', async () => {
  const cwd = makeWorkspace({ 'marker.txt': 'here' });
  const result = await run('cat marker.txt', 5_000, undefined, cwd);
  expect(result.output).toBe('here');
});

test('a timeout kills the whole process group, grandchildren included', async () => {
  const cwd = makeWorkspace();
  const started = Date.now();
  const result = await run('(sleep 3 && touch survivor) & sleep 30', 1_000, undefined, cwd);
  expect(result.timedOut).toBe(true);
  expect(Date.now() - started).toBeLessThan(6_000);
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  expect(existsSync(path.join(cwd, 'survivor'))).toBe(false);
}, 15_000);

test('cancelling kills the process group at once', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const started = Date.now();
  const result = await run('sleep 30', 60_000, controller.signal);
  expect(result.cancelled).toBe(true);
  expect(Date.now() - started).toBeLessThan(5_000);
});
