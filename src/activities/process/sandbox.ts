import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type SandboxConfig } from '../../config.js';
import { DEFAULT_ACCESS, type CommandAccess, type SandboxMode } from '../../shared/command-access.js';
import { findExecutable } from './find-executable.js';
import { createProcessLimit } from './process-limit.js';
import { readOnlyMounts } from './sandbox-mounts.js';
import { workspaceMounts, type Overlay } from './workspace-mounts.js';
import type { TaskNetwork } from '../environment/task-network.js';

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
  /** bubblewrap's path, for a sandbox that uses it (the task network namespace's holder runs in one too). */
  readonly bwrap?: string;
  /**
   * `network`: the task's own network namespace (see `TaskNetwork`), for a command that joins it. `readOnly`: the
   * workspace is bound read-only, for programs that only read it (search).
   */
  launch(
    command: string,
    options: { workspace: string; access: CommandAccess; timeoutSeconds: number; network?: TaskNetwork; readOnly?: boolean },
  ): Launch;
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
export function createSandbox(
  env: NodeJS.ProcessEnv = process.env,
  settings: SandboxConfig = loadConfig(env).sandbox,
  /** `overlays: false` shows a checkout's dependencies read-only, as on a host that cannot mount overlays (bench, tests). */
  options: { overlays?: boolean } = {},
): Sandbox {
  if (settings.mode === 'off') return unsandboxed(env);
  const bwrap = findExecutable('bwrap', [], env.PATH ?? process.env.PATH ?? '');
  if (!bwrap) {
    throw new SandboxUnavailableError(
      'the command sandbox needs bubblewrap, which is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap), ' +
        "or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
    );
  }
  const mounts = [...readOnlyMounts(env.PATH ?? '', settings.readOnly), ...rustupMount(env)];
  const limit = createProcessLimit(MAX_PROCESSES);
  const overlays =
    options.overlays === false ? ({ usable: false, why: 'turned off' } as const) : probeOverlays(env.PATH ?? process.env.PATH ?? '');
  const sandbox: Sandbox = {
    mode: 'on',
    bwrap,
    description:
      `commands run sandboxed by ${bwrap}` +
      (limit
        ? `, at most ${MAX_PROCESSES} processes each (${limit.location})`
        : '; no process-count limit: this host lets the worker create no pids cgroup') +
      (overlays.usable
        ? '; dependency directories of a checkout are copy-on-write in its task worktrees'
        : `; dependency directories of a checkout are read-only in its task worktrees (no overlay: ${overlays.why})`),
    launch(command, { workspace, access, network, readOnly = false }) {
      const view = workspaceMounts(workspace, { dependencies: access.dependencies ?? 'checkout', overlays: overlays.usable, readOnly });
      const args = [
        ...['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'],
        ...['--uid', SANDBOX_UID, '--gid', SANDBOX_UID, '--hostname', 'codeloop'],
        ...(access.network === 'on' || network ? ['--share-net'] : []),
        // The private /tmp and home first, so that toolchains and read-only binds under /tmp stay visible.
        ...['--proc', '/proc', '--dev', '/dev', '--size', String(TMP_BYTES), '--tmpfs', '/tmp', '--tmpfs', SANDBOX_HOME],
        ...mounts,
        ...view.args,
        ...packageCacheMounts(settings.packageCache, view.project),
        ...['--chdir', view.cwd],
        ...['bash', '-c', `ulimit -f ${MAX_FILE_KIB}; ${command}`],
      ];
      const argv = [...(network?.enter ?? []), ...withOverlays(view.overlays, [bwrap, ...args])];
      const entered = limit?.enter(argv) ?? { argv, release: async () => undefined };
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

/**
 * rustup's toolchains, read-only where rustup looks for them in the sandbox's home: `cargo` on `PATH` is usually
 * rustup's proxy, which finds no toolchain in an empty home ("rustup could not choose a version of cargo to run").
 */
function rustupMount(env: NodeJS.ProcessEnv): string[] {
  const home = env.RUSTUP_HOME ?? (env.HOME ? path.join(env.HOME, '.rustup') : undefined);
  return home && existsSync(path.join(home, 'toolchains')) ? ['--ro-bind', home, `${SANDBOX_HOME}/.rustup`] : [];
}

/** Where npm, pip and uv keep their caches in the sandbox's home, and the directory of the cache set for each. */
const PACKAGE_CACHES: [inside: string, name: string][] = [
  [`${SANDBOX_HOME}/.npm`, 'npm'],
  [`${SANDBOX_HOME}/.cache/pip`, 'pip'],
  [`${SANDBOX_HOME}/.cache/uv`, 'uv'],
  // Go's build cache (without it every `go test` compiles the standard library's test packages again: 95 s here),
  // its module cache, and cargo's registry.
  [`${SANDBOX_HOME}/.cache/go-build`, 'go-build'],
  [`${SANDBOX_HOME}/go/pkg/mod`, 'go-mod'],
  [`${SANDBOX_HOME}/.cargo/registry`, 'cargo-registry'],
];

/**
 * The package managers' caches, kept between commands and tasks of one repository (a task's installs then reuse what
 * the one before downloaded): one set per repository, so what one project's tasks put there never reaches another's.
 */
function packageCacheMounts(root: string | undefined, project: string): string[] {
  if (!root) return [];
  const set = path.join(root, `${path.basename(project)}-${createHash('sha256').update(project).digest('hex').slice(0, 12)}`);
  return PACKAGE_CACHES.flatMap(([inside, name]) => {
    const dir = path.join(set, name);
    mkdirSync(dir, { recursive: true });
    return ['--bind', dir, inside];
  });
}

/**
 * Mounts the overlays (in a user and mount namespace of their own, as its root) and then runs `argv` (bubblewrap,
 * which makes the sandbox's own namespaces inside that one and sees the overlays where they are mounted). Option
 * strings cannot hold a comma or colon safely; `workspaceMounts` binds such paths read-only instead.
 */
function withOverlays(overlays: Overlay[], argv: string[]): string[] {
  if (overlays.length === 0) return argv;
  const mount =
    'while [ "$1" != -- ]; do mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3,userxattr" "$4" || exit 125; shift 4; done; shift; exec "$@"';
  const specs = overlays.flatMap(({ lower, upper, work, merged }) => [lower, upper, work, merged]);
  return ['unshare', '--user', '--map-root-user', '--mount', '--', 'sh', '-c', mount, 'sh', ...specs, '--', ...argv];
}

/** Whether this host lets the worker mount an overlay in a user namespace of its own (Linux 5.11+, util-linux). */
function probeOverlays(searchPath: string): { usable: true } | { usable: false; why: string } {
  if (!findExecutable('unshare', [], searchPath)) return { usable: false, why: 'unshare (util-linux) is not installed' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-overlay-probe-'));
  try {
    const parts = ['lower', 'upper', 'work', 'merged'].map((part) => path.join(dir, part));
    for (const part of parts) mkdirSync(part);
    const argv = withOverlays(
      [{ lower: parts[0], upper: parts[1], work: parts[2], merged: parts[3] }],
      ['touch', path.join(parts[3], 'x')],
    );
    const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
    if (result.status === 0 && existsSync(path.join(parts[1], 'x'))) return { usable: true };
    return { usable: false, why: (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n')[0] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
      '(sysctl kernel.unprivileged_userns_clone=1; in Docker, see docs/safety.md), ' +
      "or set CODELOOP_SANDBOX=off to run the agent's commands unsandboxed (not recommended)",
  );
}
