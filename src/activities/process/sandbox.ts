import { spawnSync } from 'node:child_process';
import { loadConfig, type SandboxConfig } from '../../config.js';
import { DEFAULT_ACCESS, type CommandAccess, type SandboxMode } from '../../shared/command-access.js';
import { findExecutable } from './find-executable.js';
import { createProcessLimit } from './process-limit.js';
import { gitMounts, readOnlyMounts } from './sandbox-mounts.js';

export { DEFAULT_ACCESS, type CommandAccess } from '../../shared/command-access.js';

/** How one command starts: the program, its arguments, and a clean-up once it is over. */
export interface Launch {
  file: string;
  args: string[];
  /** The home the command sees. */
  home: string;
  release(): Promise<void>;
}

/** Runs `bash -c` either inside bubblewrap or, with `CODELOOP_SANDBOX=off`, directly on the host. */
export interface Sandbox {
  readonly mode: SandboxMode;
  /** One line for the worker's start-up log. */
  readonly description: string;
  /** `readOnly`: the workspace is bound read-only, for programs that only read it (search). */
  launch(command: string, options: { workspace: string; access: CommandAccess; timeoutSeconds: number; readOnly?: boolean }): Launch;
}

/** Processes one command may have at once; a fork bomb stops here. */
export const MAX_PROCESSES = 1024;
/** The largest file a command may write (`RLIMIT_FSIZE`, in 1 KiB blocks for `ulimit -f`): 1 GiB. */
export const MAX_FILE_KIB = 1024 * 1024;
/** The private /tmp is memory; it gets a ceiling too. */
const TMP_BYTES = 1024 * 1024 * 1024;
/** The command's user inside: not root, and not the worker. */
const SANDBOX_UID = '1000';
const SANDBOX_HOME = '/home/codeloop';
/** coreutils `timeout` enforces the deadline of an unsandboxed command even if the worker dies mid-command. */
const KILL_GRACE_SECONDS = 2;

export class SandboxUnavailableError extends Error {}

/**
 * The sandbox every process the agent causes runs in: `run_command`, `run_tests`, gates and linters alike.
 * bubblewrap gives each command new user, PID, IPC, UTS, mount and network namespaces: it runs as an unprivileged
 * user, sees only its own processes, reads only the system, the toolchains and its workspace, writes only its
 * workspace, a private /tmp and a private home, reaches no network unless the task says so, and everything it
 * started dies with it (the PID namespace ends when its first process does).
 *
 * Checked once when the worker starts: where namespaces cannot be made, the worker refuses to start unless
 * `CODELOOP_SANDBOX=off` says to run commands unsandboxed.
 *
 * `settings` are `CODELOOP_SANDBOX` and `CODELOOP_SANDBOX_READONLY`, loaded from `env` unless given. `env` is also
 * where `PATH` (the toolchains to bind) and `HOME` (the unsandboxed command's home) come from: the host's layout, not
 * configuration.
 */
export function createSandbox(env: NodeJS.ProcessEnv = process.env, settings: SandboxConfig = loadConfig(env).sandbox): Sandbox {
  if (settings.mode === 'off') return unsandboxed(env);
  const bwrap = findExecutable('bwrap', [], env.PATH ?? process.env.PATH ?? '');
  if (!bwrap) {
    throw new SandboxUnavailableError(
      'the command sandbox needs bubblewrap, which is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap), ' +
        "or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
    );
  }
  const mounts = readOnlyMounts(env.PATH ?? '', settings.readOnly);
  const limit = createProcessLimit(MAX_PROCESSES);
  const sandbox: Sandbox = {
    mode: 'on',
    description:
      `commands run sandboxed by ${bwrap}` +
      (limit
        ? `, at most ${MAX_PROCESSES} processes each (${limit.location})`
        : '; no process-count limit: this host lets the worker create no pids cgroup'),
    launch(command, { workspace, access, readOnly }) {
      const args = [
        ...['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'],
        ...['--uid', SANDBOX_UID, '--gid', SANDBOX_UID, '--hostname', 'codeloop'],
        ...(access.network === 'on' ? ['--share-net'] : []),
        // The private /tmp and home first, so that toolchains and read-only binds under /tmp stay visible.
        ...['--proc', '/proc', '--dev', '/dev', '--size', String(TMP_BYTES), '--tmpfs', '/tmp', '--tmpfs', SANDBOX_HOME],
        ...mounts,
        ...[readOnly ? '--ro-bind' : '--bind', workspace, workspace, ...gitMounts(workspace), '--chdir', workspace],
        ...['bash', '-c', `ulimit -f ${MAX_FILE_KIB}; ${command}`],
      ];
      const entered = limit?.enter([bwrap, ...args]) ?? { argv: [bwrap, ...args], release: async () => undefined };
      return { file: entered.argv[0], args: entered.argv.slice(1), home: SANDBOX_HOME, release: entered.release };
    },
  };
  probe(sandbox);
  return sandbox;
}

function unsandboxed(env: NodeJS.ProcessEnv): Sandbox {
  return {
    mode: 'off',
    description: "CODELOOP_SANDBOX=off: the agent's commands run UNSANDBOXED with the worker's own rights and network",
    launch(command, { timeoutSeconds }) {
      const args = [`--kill-after=${KILL_GRACE_SECONDS}`, String(timeoutSeconds), 'bash', '-c', `ulimit -f ${MAX_FILE_KIB}; ${command}`];
      return { file: 'timeout', args, home: env.HOME ?? '/tmp', release: async () => undefined };
    },
  };
}

/** A sandbox that cannot start a trivial command would fail every task; better to say so at start-up. */
function probe(sandbox: Sandbox) {
  const launch = sandbox.launch('true', { workspace: process.cwd(), access: DEFAULT_ACCESS, timeoutSeconds: 10 });
  const result = spawnSync(launch.file, launch.args, { encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH ?? '' } });
  void launch.release();
  if (result.status === 0) return;
  const why = (result.stderr || result.error?.message || `exit ${result.status}`).trim();
  throw new SandboxUnavailableError(
    `the command sandbox cannot start here (${why}). bubblewrap needs user namespaces: allow them ` +
      "(sysctl kernel.unprivileged_userns_clone=1; in Docker, see the README's Safety section), " +
      "or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
  );
}
