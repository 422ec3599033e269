import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ToolRefusal } from '../../../src/activities/tools/tool-outcome.js';
import { resolveInWorkspace } from '../../../src/activities/tools/workspace-path.js';
import { makeWorkspace } from '../../support/workspace.js';

const outside = /outside the workspace/;

test('relative paths inside resolve, new files included', () => {
  const workspace = makeWorkspace({ 'src/a.ts': '' });
  expect(resolveInWorkspace(workspace, 'src/a.ts').relative).toBe('src/a.ts');
  expect(resolveInWorkspace(workspace, './src/../src/a.ts').relative).toBe('src/a.ts');
  expect(resolveInWorkspace(workspace, 'new/dir/b.ts').relative).toBe('new/dir/b.ts');
  expect(resolveInWorkspace(workspace, '.').relative).toBe('.');
});

test('.. escapes are refused', () => {
  const workspace = makeWorkspace();
  expect(() => resolveInWorkspace(workspace, '../x')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'a/../../x')).toThrow(ToolRefusal);
});

test('absolute paths outside are refused; absolute paths inside are allowed', () => {
  const workspace = makeWorkspace({ 'a.txt': '' });
  expect(() => resolveInWorkspace(workspace, '/etc/passwd')).toThrow(outside);
  expect(resolveInWorkspace(workspace, path.join(workspace, 'a.txt')).relative).toBe('a.txt');
});

test('symlinks that lead outside are refused, for files and directories', () => {
  const workspace = makeWorkspace();
  const elsewhere = makeWorkspace({ 'secret.txt': 'x' });
  symlinkSync(path.join(elsewhere, 'secret.txt'), path.join(workspace, 'link.txt'));
  symlinkSync(elsewhere, path.join(workspace, 'linkdir'));
  expect(() => resolveInWorkspace(workspace, 'link.txt')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'linkdir/secret.txt')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'linkdir/new.txt')).toThrow(outside);
});

test('symlinks that stay inside are followed', () => {
  const workspace = makeWorkspace({ 'real/a.txt': '' });
  mkdirSync(path.join(workspace, 'other'));
  symlinkSync(path.join(workspace, 'real'), path.join(workspace, 'other/alias'));
  expect(resolveInWorkspace(workspace, 'other/alias/a.txt').relative).toBe('real/a.txt');
});

test('dangling symlinks are judged by where they point, since a write through them would land there', () => {
  const workspace = makeWorkspace();
  const elsewhere = makeWorkspace();
  symlinkSync(path.join(elsewhere, 'missing.txt'), path.join(workspace, 'escape.txt'));
  symlinkSync(path.join(elsewhere, 'missing-dir'), path.join(workspace, 'escape-dir'));
  symlinkSync('../../outside.txt', path.join(workspace, 'relative-escape.txt'));
  symlinkSync('escape.txt', path.join(workspace, 'chain.txt'));
  expect(() => resolveInWorkspace(workspace, 'escape.txt')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'escape-dir/new.txt')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'relative-escape.txt')).toThrow(outside);
  expect(() => resolveInWorkspace(workspace, 'chain.txt')).toThrow(outside);

  symlinkSync('later/target.txt', path.join(workspace, 'inside.txt'));
  expect(resolveInWorkspace(workspace, 'inside.txt').relative).toBe('later/target.txt');
});

test('a symlink loop is refused instead of followed forever', () => {
  const workspace = makeWorkspace();
  symlinkSync('ping', path.join(workspace, 'pong'));
  symlinkSync('pong', path.join(workspace, 'ping'));
  expect(() => resolveInWorkspace(workspace, 'ping')).toThrow(/more than 40 symlinks/);
  expect(() => resolveInWorkspace(workspace, 'ping/x.txt')).toThrow(ToolRefusal);
});
