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

/** Sub-commands that install, remove, publish or rewrite history, for the programs that have them. */
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
export function riskOf(command: string): string | undefined {
  const line = readCommandLine(command);
  if (line.unseen.length > 0) return `runs code that cannot be read before it runs: ${line.unseen[0]}`;
  for (const simple of line.commands) {
    const reason = riskOfSimple(simple);
    if (reason) return `${simple.program ?? 'a redirection'} ${reason}`;
  }
  return undefined;
}

export function isRiskyCommand(command: string): boolean {
  return riskOf(command) !== undefined;
}

function riskOfSimple({ program, args, writes }: SimpleCommand): string | undefined {
  if (writes.length > 0) return `writes ${writes[0]} by redirection`;
  if (program === undefined) return undefined;
  const byProgram = RISKY_BY_PROGRAM.get(program) ?? (program.startsWith('mkfs') ? 'formats a disk' : undefined);
  if (byProgram) return byProgram;
  if (program === 'find') return findRisk(args);
  if (program === 'git') return gitRisk(args);
  const pip = /^python(\d(\.\d+)?)?$/.test(program) && args[0] === '-m' ? args.slice(1) : undefined;
  const [tool, toolArgs] = pip ? [pip[0] === 'pip3' ? 'pip' : pip[0], pip.slice(1)] : [program === 'pip3' ? 'pip' : program, args];
  const subcommands = RISKY_SUBCOMMANDS[tool];
  const subcommand = subcommands && firstOperand(toolArgs);
  return subcommand && subcommands.has(subcommand) ? `${subcommand}: changes what is installed or published` : undefined;
}

/** `find … -delete`, and `-exec`/`-execdir`/`-ok` running a risky command. */
function findRisk(args: string[]): string | undefined {
  if (args.includes('-delete')) return '-delete removes files';
  const exec = args.findIndex((arg) => /^-(exec|execdir|ok|okdir)$/.test(arg));
  if (exec === -1) return undefined;
  const end = args.findIndex((arg, index) => index > exec && (arg === ';' || arg === '+'));
  const inner = args.slice(exec + 1, end === -1 ? undefined : end).filter((arg) => arg !== '{}');
  const risk = inner.length > 0 ? riskOf(inner.join(' ')) : undefined;
  return risk && `-exec runs what ${risk}`;
}

function gitRisk(args: string[]): string | undefined {
  const subcommand = firstOperand(args);
  if (!subcommand) return undefined;
  const rest = args.slice(args.indexOf(subcommand) + 1);
  if (RISKY_SUBCOMMANDS.git.has(subcommand)) return `${subcommand} rewrites or publishes history`;
  if (subcommand === 'checkout' && rest.includes('--')) return 'checkout -- discards changes';
  if (subcommand === 'branch' && rest.some((arg) => /^-[a-zA-Z]*D/.test(arg) || arg === '--delete')) return 'branch -D deletes a branch';
  if (subcommand === 'stash' && ['drop', 'clear'].includes(rest[0])) return `stash ${rest[0]} discards changes`;
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
