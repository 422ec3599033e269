import { spawnSync } from 'node:child_process';
import { findExecutable } from '../activities/process/find-executable.js';
import type { SandboxMode } from '../shared/command-access.js';

/**
 * Makes sure bubblewrap, the sandbox every agent command runs in, is installed: on first use of `npm start` or
 * `npm run demo` it is installed from the system's packages where that can be done without asking (root with
 * apt-get), the way the Temporal CLI is installed into `.tools/`. Elsewhere it says what to run. The worker itself
 * only checks, and refuses to start without it (see `createSandbox`). With the sandbox `off` there is nothing to do.
 */
export function ensureBubblewrap(mode: SandboxMode, log: (line: string) => void = (line) => console.error(line)): void {
  if (mode === 'off' || findExecutable('bwrap')) return;
  const aptGet = findExecutable('apt-get');
  if (process.platform === 'linux' && aptGet && process.getuid?.() === 0) {
    log("codeloop: installing bubblewrap, the sandbox for the agent's commands (apt-get install bubblewrap)");
    const install = () =>
      spawnSync(aptGet, ['install', '-y', '-qq', 'bubblewrap'], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    if (install().status !== 0) {
      spawnSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
      install();
    }
    if (findExecutable('bwrap')) return;
  }
  throw new Error(
    'bubblewrap is not installed and could not be installed here: install it (Debian/Ubuntu: sudo apt-get install bubblewrap; ' +
      "Fedora: sudo dnf install bubblewrap), or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
  );
}
