import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { deleteWorkspaceFile } from '../../../src/activities/tools/delete-file.js';
import { moveWorkspaceFile } from '../../../src/activities/tools/move-file.js';
import { makeWorkspace } from '../../support/workspace.js';

describe('delete_file', () => {
  test('deletes a file and reports it as the change', async () => {
    const workspace = makeWorkspace({ 'shop/utils.py': 'x = 1\n', 'shop/cart.py': '' });
    expect(await deleteWorkspaceFile(workspace, { path: 'shop/utils.py' })).toEqual({
      content: 'deleted shop/utils.py',
      isError: false,
      changedFile: 'shop/utils.py',
    });
    expect(existsSync(path.join(workspace, 'shop/utils.py'))).toBe(false);
    expect(existsSync(path.join(workspace, 'shop/cart.py'))).toBe(true);
  });

  test('a missing file is an error on a first attempt, and already done on a retry', async () => {
    const workspace = makeWorkspace({});
    expect(await deleteWorkspaceFile(workspace, { path: 'gone.py' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('does not exist'),
    });
    expect(await deleteWorkspaceFile(workspace, { path: 'gone.py' }, { attempt: 2 })).toMatchObject({ isError: false });
  });

  test('refuses directories, symlinks, .git, the workspace itself and paths outside', async () => {
    const outside = makeWorkspace({ 'secret.txt': 'keep' });
    const workspace = makeWorkspace({ 'dir/a.txt': 'a', 'target.txt': 't' });
    mkdirSync(path.join(workspace, '.git'));
    writeFileSync(path.join(workspace, '.git/config'), '[core]\n');
    symlinkSync(path.join(workspace, 'target.txt'), path.join(workspace, 'link.txt'));
    const refusals = await Promise.all(
      ['dir', 'link.txt', '.git/config', '.GIT/config', '.', '../x', path.join(outside, 'secret.txt')].map(async (requested) => ({
        requested,
        outcome: await deleteWorkspaceFile(workspace, { path: requested }),
      })),
    );
    for (const { requested, outcome } of refusals) expect(outcome.isError, requested).toBe(true);
    expect(readFileSync(path.join(workspace, 'target.txt'), 'utf8')).toBe('t');
    expect(readFileSync(path.join(workspace, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('keep');
    expect(existsSync(path.join(workspace, 'link.txt'))).toBe(true);
  });
});

describe('move_file', () => {
  test('moves a file, making directories on the way, and reports both paths as changed', async () => {
    const workspace = makeWorkspace({ 'shop/utils.py': 'def price():\n    return 1\n' });
    expect(await moveWorkspaceFile(workspace, { from: 'shop/utils.py', to: 'shop/prices/core.py' })).toEqual({
      content: 'moved shop/utils.py to shop/prices/core.py',
      isError: false,
      changedFile: 'shop/prices/core.py',
      alsoChanged: ['shop/utils.py'],
    });
    expect(readFileSync(path.join(workspace, 'shop/prices/core.py'), 'utf8')).toBe('def price():\n    return 1\n');
    expect(existsSync(path.join(workspace, 'shop/utils.py'))).toBe(false);
  });

  test('never overwrites, never touches .git or outside; a retry after the move succeeds', async () => {
    const outside = makeWorkspace({});
    const workspace = makeWorkspace({ 'a.txt': 'a', 'b.txt': 'b' });
    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: 'b.txt' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('b.txt already exists'),
    });
    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: '.git/hooks/pre-commit' })).toMatchObject({ isError: true });
    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: path.join(outside, 'a.txt') })).toMatchObject({ isError: true });
    expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('a');
    expect(existsSync(path.join(outside, 'a.txt'))).toBe(false);
    expect(existsSync(path.join(workspace, '.git'))).toBe(false);

    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: 'c.txt' })).toMatchObject({ isError: false });
    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: 'c.txt' })).toMatchObject({ isError: true });
    expect(await moveWorkspaceFile(workspace, { from: 'a.txt', to: 'c.txt' }, { attempt: 2 })).toMatchObject({ isError: false });
  });
});
