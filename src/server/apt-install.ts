import { spawnSync } from 'node:child_process';
import { findExecutable } from '../activities/process/find-executable.js';

/**
 * Installs a Debian package where that can be done without asking (Linux, root, apt-get), refreshing the package
 * lists once if the first attempt fails. Returns whether `command` is on `PATH` afterwards; elsewhere the caller says
 * what to run.
 */
export function aptInstall(packageName: string, command: string, why: string, log: (line: string) => void): boolean {
  const aptGet = findExecutable('apt-get');
  if (process.platform !== 'linux' || !aptGet || process.getuid?.() !== 0) return false;
  log(`codeloop: installing ${packageName}, ${why} (apt-get install ${packageName})`);
  const install = () =>
    spawnSync(aptGet, ['install', '-y', '-qq', packageName], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  if (install().status !== 0) {
    spawnSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
    install();
  }
  return findExecutable(command) !== undefined;
}
