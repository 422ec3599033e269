import { findExecutable } from '../activities/process/find-executable.js';
import type { SandboxMode } from '../shared/command-access.js';
import { aptInstall } from './apt-install.js';

/**
 * Makes sure bubblewrap, the sandbox every agent command runs in, is installed: on first use of `npm start` or
 * `npm run demo` it is installed from the system's packages where that can be done without asking (root with
 * apt-get), the way the Temporal CLI is installed into `.tools/`. Elsewhere it says what to run. The worker itself
 * only checks, and refuses to start without it (see `createSandbox`). With the sandbox `off` there is nothing to do.
 */
export function ensureBubblewrap(mode: SandboxMode, log: (line: string) => void = (line) => console.error(line)): void {
  if (mode === 'off' || findExecutable('bwrap')) return;
  if (aptInstall('bubblewrap', 'bwrap', "the sandbox for the agent's commands", log)) return;
  throw new Error(
    'bubblewrap is not installed and could not be installed here: install it (Debian/Ubuntu: sudo apt-get install bubblewrap; ' +
      "Fedora: sudo dnf install bubblewrap), or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
  );
}

/**
 * Makes sure ripgrep, which `search_codebase` runs, is installed, the way bubblewrap is. A worker without it still
 * works, with the slower built-in search (its start-up log says so), so this only warns when it cannot install.
 */
export function ensureRipgrep(log: (line: string) => void = (line) => console.error(line)): void {
  if (findExecutable('rg') || aptInstall('ripgrep', 'rg', 'which search_codebase runs', log)) return;
  log(
    'codeloop: ripgrep is not installed and could not be installed here; search_codebase falls back to its slower built-in search. ' +
      'Install it (Debian/Ubuntu: sudo apt-get install ripgrep; Fedora: sudo dnf install ripgrep; or cargo install ripgrep)',
  );
}
