import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import { createSandbox, SandboxUnavailableError } from '../../../src/activities/process/sandbox.js';
import { privateEntries, toolchainRoots } from '../../../src/activities/process/sandbox-mounts.js';
import { eventually } from '../../support/polling.js';
import { spawnWorker } from '../../support/worker-process.js';
import { makeWorkspace } from '../../support/workspace.js';

/** A directory holding a `bwrap` that fails the way it does where namespaces are not allowed. */
function lockedDownBwrap(): string {
  const bin = path.join(makeWorkspace(), 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
  chmodSync(path.join(bin, 'bwrap'), 0o755);
  return bin;
}

describe('start-up check', () => {
  test('no bubblewrap: refused, naming the package and the opt-out', () => {
    expect(() => createSandbox({ PATH: '/nonexistent' })).toThrow(SandboxUnavailableError);
    expect(() => createSandbox({ PATH: '/nonexistent' })).toThrow(/apt-get install bubblewrap.*CODELOOP_SANDBOX=off/);
  });

  test("namespaces not allowed: refused with bubblewrap's own reason", () => {
    const env = { PATH: `${lockedDownBwrap()}:${process.env.PATH}` };
    expect(() => createSandbox(env)).toThrow(/cannot start here \(bwrap: No permissions to create new namespace\).*CODELOOP_SANDBOX=off/);
  });

  test('CODELOOP_SANDBOX=off is the only way round it, and says what it means', () => {
    const sandbox = createSandbox({ PATH: '/nonexistent', CODELOOP_SANDBOX: 'off' });
    expect(sandbox.mode).toBe('off');
    expect(sandbox.description).toContain('UNSANDBOXED');
    expect(() => createSandbox({ CODELOOP_SANDBOX: 'maybe' })).toThrow(
      'CODELOOP_SANDBOX must be "on" or "off" ("off" runs the agent\'s commands unsandboxed); got "maybe"',
    );
  });

  test('the worker refuses to start without the sandbox, and starts with a warning when it is off', async () => {
    const refused = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
      env: {
        ...process.env,
        PATH: `${lockedDownBwrap()}:${process.env.PATH}`,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        CODELOOP_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^the command sandbox cannot start here .*CODELOOP_SANDBOX=off/),
    ]);

    const worker = await spawnWorker({ CODELOOP_SANDBOX: 'off', CODELOOP_TASK_QUEUE: `sandbox-off-${process.pid}` });
    try {
      // The warning is the line after the one the worker is waited for by: it may arrive a moment later.
      const warning = "codeloop worker: WARNING: CODELOOP_SANDBOX=off: the agent's commands run UNSANDBOXED";
      const said = await eventually(
        async () => worker.output(),
        (output) => output.includes(warning),
        'no warning',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      expect(said).toContain(warning);
    } finally {
      await worker.stop();
    }
  }, 90_000);
});

describe('mounts', () => {
  test('toolchains on PATH are bound by their top directory, system directories never twice', () => {
    const roots = toolchainRoots(
      [
        '/usr/bin',
        '/bin',
        '/root/.pyenv/shims',
        '/root/.pyenv/plugins/x/shims',
        '/usr/local/go/bin',
        '/nonexistent/bin',
        'relative/bin',
      ].join(':'),
    );
    expect(roots).not.toContain('/usr/bin');
    expect(roots.filter((root) => root.startsWith('/root/.pyenv'))).toEqual(
      process.env.PATH?.includes('/root/.pyenv') ? ['/root/.pyenv'] : [],
    );
    expect(roots).not.toContain('/nonexistent');
  });

  test('entries other users may not read are found for masking', () => {
    const root = makeWorkspace({ 'public.txt': 'x', 'keys/private.key': 'k', 'config/credentials.toml': 't' });
    chmodSync(path.join(root, 'config/credentials.toml'), 0o600);
    chmodSync(path.join(root, 'keys'), 0o700);
    const found = privateEntries(root, 3).map(({ file, directory }) => [path.relative(root, file), directory]);
    expect(found.sort()).toEqual([
      ['config/credentials.toml', false],
      ['keys', true],
    ]);
  });
});
