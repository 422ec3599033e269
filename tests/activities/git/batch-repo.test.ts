import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { prepareBatchRepo } from '../../../src/activities/git/batch-repo.js';
import { makeGitRepo } from '../../support/workspace.js';

test('with CODELOOP_WORKTREES_DIR, two repositories of one batch get integration worktrees of their own', async () => {
  const worktreesDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-worktrees-'));
  const [first, second] = [makeGitRepo(), makeGitRepo()];
  const a = await prepareBatchRepo({ repo: first, batchId: 'nightly' }, worktreesDir);
  const b = await prepareBatchRepo({ repo: second, batchId: 'nightly' }, worktreesDir);
  expect(a.integrationPath).not.toBe(b.integrationPath);
  for (const prepared of [a, b]) expect(prepared.integrationPath.startsWith(`${worktreesDir}/`)).toBe(true);
  // Each worktree is its own repository's: the same directory name, a different hash of the path.
  expect(path.basename(path.dirname(path.dirname(a.integrationPath)))).toMatch(new RegExp(`^${path.basename(first)}-[0-9a-f]{8}$`));
});
