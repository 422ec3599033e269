import { readCommandLine, type SimpleCommand } from '../../shell/simple-commands.js';

/** Programs that are risky whatever their arguments, by what they do. */
const RISKY_PROGRAMS: [string, string[]][] = [
  ['deletes or overwrites files', ['rm', 'rmdir', 'shred', 'truncate', 'unlink', 'mv', 'dd']],
  ['talks to the network', ['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp']],
  [
    'drives other systems',
    [
      'docker',
      'podman',
      'kubectl',
      'helm',
      'terraform',
      'aws',
      'gcloud',
      'az',
      'psql',
      'mysql',
      'mongo',
      'mongosh',
      'redis-cli',
      'sqlite3',
    ],
  ],
  ['changes permissions or processes', ['chmod', 'chown', 'chgrp', 'kill', 'pkill', 'killall', 'crontab', 'systemctl']],
  ['escalates privileges', ['sudo', 'su', 'doas', 'pkexec', 'chroot']],
  ['stops the machine or formats a disk', ['shutdown', 'reboot', 'halt', 'poweroff', 'mkfs', 'fdisk', 'mount', 'umount']],
];
const RISKY_BY_PROGRAM = new Map(
  RISKY_PROGRAMS.flatMap(([reason, programs]) => programs.map((program): [string, string] => [program, reason])),
);

/** Sub-commands that install, remove, publish, rewrite history or reach a remote, for the programs that have them. */
const RISKY_SUBCOMMANDS: Record<string, Set<string>> = {
  git: new Set(['push', 'reset', 'clean', 'rebase', 'restore', 'filter-branch', 'update-ref', 'reflog', 'gc', 'prune']),
  npm: new Set(['install', 'i', 'ci', 'add', 'remove', 'rm', 'uninstall', 'un', 'publish', 'update', 'up', 'upgrade', 'link', 'unpublish']),
  pnpm: new Set(['install', 'i', 'add', 'remove', 'rm', 'uninstall', 'publish', 'update', 'up', 'upgrade', 'link', 'dlx']),
  yarn: new Set(['install', 'add', 'remove', 'publish', 'upgrade', 'up', 'link', 'dlx']),
  bun: new Set(['install', 'i', 'add', 'remove', 'rm', 'publish', 'update', 'link', 'x']),
  pip: new Set(['install', 'uninstall', 'download']),
  uv: new Set(['add', 'remove', 'pip', 'sync', 'tool']),
  poetry: new Set(['add', 'remove', 'install', 'update', 'publish']),
  cargo: new Set(['install', 'uninstall', 'publish']),
  go: new Set(['install']),
  gem: new Set(['install', 'uninstall', 'push']),
  'apt-get': new Set(['install', 'remove', 'purge', 'upgrade', 'dist-upgrade']),
  apt: new Set(['install', 'remove', 'purge', 'upgrade']),
};
/**
 * Held too since the classifier holds code it cannot read (patch `approvalHoldsUnreadCode`): git reaching a remote,
 * and package runners under a package manager's name.
 */
const RISKY_SUBCOMMANDS_NOW: Record<string, Set<string>> = {
  git: new Set(['clone', 'fetch', 'pull', 'ls-remote', 'remote', 'submodule', 'archive']),
  npm: new Set(['exec', 'x', 'init', 'create']),
  pnpm: new Set(['exec', 'create']),
  pipx: new Set(['run', 'install', 'inject', 'upgrade', 'uninstall']),
};

/** Options that take the next word as their value, so it is not read as the sub-command. */
const VALUED_GLOBAL_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--prefix', '--cwd', '--dir', '--filter']);

/**
 * Why the `approval: "risky"` policy holds a command for a human, or `undefined` when it may run: it deletes or
 * overwrites work, changes what is installed, talks to the network or to other systems, escalates privileges,
 * writes a file by redirection, or runs code the classifier cannot see (a command word from an expansion, a pipe
 * into a shell, text that does not parse). Every simple command counts, wherever the parser finds it: inside
 * `bash -c` strings, `eval`, `$(…)`, `<(…)`, functions and loops. Reading, building and testing run without asking.
 * The sandbox is what contains a command; this only decides what waits for a human.
 */
export function riskOf(command: string, holdsUnreadCode = true): string | undefined {
  const line = readCommandLine(command);
  if (line.unseen.length > 0) return `runs code that cannot be read before it runs: ${line.unseen[0]}`;
  for (const simple of line.commands) {
    const reason = riskOfSimple(simple, holdsUnreadCode);
    if (reason) return `${simple.program ?? 'a redirection'} ${reason}`;
  }
  return undefined;
}

/**
 * `holdsUnreadCode` false is the classifier of runs from before patch `approvalHoldsUnreadCode`, which let inline
 * code, scripts, package runners, git's remotes and programs named by variables or `git -c` through.
 */
export function isRiskyCommand(command: string, holdsUnreadCode = true): boolean {
  return riskOf(command, holdsUnreadCode) !== undefined;
}

function riskOfSimple({ program, args, writes, assigns }: SimpleCommand, holdsUnreadCode: boolean): string | undefined {
  if (writes.length > 0) return `writes ${writes[0]} by redirection`;
  const runsCode = holdsUnreadCode ? assigns.find((name) => CODE_VARIABLES.has(name)) : undefined;
  if (runsCode) return `sets ${runsCode}, which makes a program run code it names`;
  if (program === undefined) return undefined;
  const byProgram = RISKY_BY_PROGRAM.get(program) ?? (program.startsWith('mkfs') ? 'formats a disk' : undefined);
  if (byProgram) return byProgram;
  const unread = holdsUnreadCode ? unreadCode(program, args) : undefined;
  if (unread) return unread;
  if (program === 'find') return findRisk(args, holdsUnreadCode);
  if (program === 'git') return gitRisk(args, holdsUnreadCode);
  const pip = /^python(\d(\.\d+)?)?$/.test(program) && args[0] === '-m' ? args.slice(1) : undefined;
  const [tool, toolArgs] = pip ? [pip[0] === 'pip3' ? 'pip' : pip[0], pip.slice(1)] : [program === 'pip3' ? 'pip' : program, args];
  const subcommand = firstOperand(toolArgs);
  const held =
    subcommand && (RISKY_SUBCOMMANDS[tool]?.has(subcommand) || (holdsUnreadCode && RISKY_SUBCOMMANDS_NOW[tool]?.has(subcommand)));
  return held ? `${subcommand}: changes what is installed or published, or runs what it fetches` : undefined;
}

/** Variables through which a shell, a runtime or git runs code or a program they name. */
const CODE_VARIABLES = new Set([
  ...['BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'PS4', 'SHELLOPTS', 'BASHOPTS', 'IFS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT'],
  ...['NODE_OPTIONS', 'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'PYTHONSTARTUP', 'PYTHONINSPECT', 'PYTHONPATH', 'PYTHONHOME'],
  ...['GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_ASKPASS', 'GIT_EXEC_PATH'],
  ...['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'PAGER', 'EDITOR', 'VISUAL', 'BROWSER', 'SSH_ASKPASS'],
]);

/** Interpreters that take a program on their command line, and the options that give it. */
const INLINE_CODE: Record<string, RegExp> = {
  python: /^-[A-Za-z]*c/,
  node: /^(-[A-Za-z]*[ep]|--eval|--print)(=|$)/,
  perl: /^-[A-Za-z]*[eE]/,
  ruby: /^-[A-Za-z]*e/,
  php: /^-[A-Za-z]*r/,
  lua: /^-[A-Za-z]*e/,
  bun: /^(-e|--eval|-p|--print|x)$/,
  deno: /^(eval|-e)$/,
  Rscript: /^-e$/,
  awk: /system\(|\|\s*"|"\s*\|/,
};
const SHELL_PROGRAMS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);
/** Runners that fetch a package when needed and run it: nothing of what they run can be read first. */
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'uvx', 'pnpx']);

/**
 * Code the classifier cannot read before it runs: an interpreter given its program inline (`python3 -c`, `node -e`),
 * a script file given to a shell or sourced, a package runner (`npx`, `uvx`), an awk program that runs commands. A
 * shell's `-c` string is read (see `readCommandLine`) and counts by its own commands.
 */
function unreadCode(program: string, args: string[]): string | undefined {
  const family = /^python(\d(\.\d+)?)?$/.test(program) ? 'python' : /^[gnm]?awk$/.test(program) ? 'awk' : program;
  const inline = INLINE_CODE[family];
  if (inline && args.some((arg) => inline.test(arg))) return 'runs code given inline, which is not read before it runs';
  if (PACKAGE_RUNNERS.has(program)) return 'runs a package it may fetch, which is not read before it runs';
  if (program === 'source' || program === '.') return 'runs a script, which is not read before it runs';
  if (SHELL_PROGRAMS.has(program)) {
    const operands = args.filter((arg) => !arg.startsWith('-') && !arg.startsWith('+'));
    if (!args.some((arg) => /^-[A-Za-z]*c/.test(arg)) && operands.length > 0)
      return `runs the script ${operands[0]}, which is not read before it runs`;
  }
  return undefined;
}

/** `find … -delete`, and `-exec`/`-execdir`/`-ok` running a risky command. */
function findRisk(args: string[], holdsUnreadCode: boolean): string | undefined {
  if (args.includes('-delete')) return '-delete removes files';
  const exec = args.findIndex((arg) => /^-(exec|execdir|ok|okdir)$/.test(arg));
  if (exec === -1) return undefined;
  const end = args.findIndex((arg, index) => index > exec && (arg === ';' || arg === '+'));
  const inner = args.slice(exec + 1, end === -1 ? undefined : end).filter((arg) => arg !== '{}');
  const risk = inner.length > 0 ? riskOf(inner.join(' '), holdsUnreadCode) : undefined;
  return risk && `-exec runs what ${risk}`;
}

/** `git -c` settings that name a program (an alias to a shell command, a helper, a driver, a filter, an ssh command). */
const GIT_PROGRAM_SETTING =
  /^(alias\..*=\s*!|core\.(sshcommand|pager|editor|hookspath|fsmonitor|askpass|gitproxy)=|.*\.(helper|driver|textconv|command|clean|smudge|process|program)=)/i;

function gitRisk(args: string[], holdsUnreadCode: boolean): string | undefined {
  const setting = args.find((arg, index) => args[index - 1] === '-c' && GIT_PROGRAM_SETTING.test(arg));
  if (setting && holdsUnreadCode) return `-c ${setting.split('=')[0]} names a program for git to run`;
  const subcommand = firstOperand(args);
  if (!subcommand) return undefined;
  const rest = args.slice(args.indexOf(subcommand) + 1);
  if (RISKY_SUBCOMMANDS.git.has(subcommand)) return `${subcommand} rewrites or publishes history`;
  if (holdsUnreadCode && RISKY_SUBCOMMANDS_NOW.git.has(subcommand)) return `${subcommand} reaches a remote or another repository`;
  if (subcommand === 'checkout' && rest.includes('--')) return 'checkout -- discards changes';
  if (subcommand === 'branch' && rest.some((arg) => /^-[a-zA-Z]*D/.test(arg) || arg === '--delete')) return 'branch -D deletes a branch';
  if (subcommand === 'stash' && ['drop', 'clear'].includes(rest[0])) return `stash ${rest[0]} discards changes`;
  const configured = subcommand === 'config' && holdsUnreadCode ? rest.filter((arg) => !arg.startsWith('-')) : [];
  if (configured.length > 1 && GIT_PROGRAM_SETTING.test(`${configured[0]}=${configured[1]}`))
    return `config ${configured[0]} names a program for git to run`;
  return undefined;
}

/** The first word that is not an option (nor the value of one). */
function firstOperand(args: string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === '--') return args[index + 1];
    if (!args[index].startsWith('-')) return args[index];
    if (VALUED_GLOBAL_OPTIONS.has(args[index])) index += 1;
  }
  return undefined;
}
