import { readCommandLine, type SimpleCommand } from '../../shell/simple-commands.js';

/**
 * What the agent may never run, with the reason given back to it: commands that do damage beyond the workspace or
 * cannot be undone. Checked on every simple command the shell parser finds (quoting, `bash -c`, `eval` and
 * substitutions included), so `\rm -rf /` and `bash -c 'rm -rf /'` are refused like `rm -rf /`. The sandbox
 * contains what runs anyway; this refuses the commands no task has a reason to run.
 */
const DENIED: { reason: string; matches: (command: SimpleCommand) => boolean }[] = [
  { reason: 'formats a filesystem', matches: ({ program }) => program?.startsWith('mkfs') ?? false },
  {
    reason: 'writes to a raw device',
    matches: ({ program, args, writes }) =>
      (program === 'dd' && args.some((arg) => /^of=\/dev\/(?!null$)/.test(arg))) || writes.some(isDisk),
  },
  {
    reason: 'stops the machine',
    matches: ({ program, args }) =>
      ['shutdown', 'reboot', 'halt', 'poweroff'].includes(program ?? '') || (program === 'init' && /^[06]$/.test(args[0] ?? '')),
  },
  { reason: 'privilege escalation', matches: ({ program }) => ['sudo', 'su', 'doas', 'pkexec'].includes(program ?? '') },
  {
    reason: 'changes permissions of the whole filesystem',
    matches: ({ program, args }) => ['chmod', 'chown', 'chgrp'].includes(program ?? '') && args.some(isRecursiveFlag) && args.some(isRoot),
  },
  {
    reason: 'force-pushes over remote history',
    matches: ({ program, args }) =>
      program === 'git' &&
      args.includes('push') &&
      args.some((arg) => /^(--force|--force-with-lease|-[a-zA-Z]*f[a-zA-Z]*)(=.*)?$/.test(arg) || /^\+\S/.test(arg)),
  },
  {
    reason: 'kills processes beyond the command',
    matches: ({ program, args }) =>
      program === 'killall' || (program === 'kill' && args.includes('-1')) || (program === 'pkill' && args.includes('-u')),
  },
  {
    reason: 'pipes a download straight into a shell',
    matches: ({ program, pipedFrom }) => isShell(program) && pipedFrom.some((earlier) => earlier === 'curl' || earlier === 'wget'),
  },
  { reason: 'recursive delete of the root, home, a parent directory or the whole workspace', matches: deletesEverything },
];

/** A fork bomb defines a function that pipes into itself in the background; it parses as ordinary commands. */
const FORK_BOMB = /(\S+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;

/** The reason a command is refused, or `undefined` when it may run. */
export function deniedReason(command: string): string | undefined {
  if (FORK_BOMB.test(command)) return 'fork bomb';
  const { commands } = readCommandLine(command);
  for (const simple of commands) {
    const denied = DENIED.find(({ matches }) => matches(simple));
    if (denied) return denied.reason;
  }
  return undefined;
}

/** `rm -r` (in any flag spelling) or `find … -delete` aimed at the root, a home, a parent, or the whole workspace. */
function deletesEverything({ program, args }: SimpleCommand): boolean {
  if (program === 'rm') return args.some(isRecursiveFlag) && args.some(isProtectedTarget);
  if (program === 'find') return args.includes('-delete') && args.some(isProtectedTarget);
  return false;
}

function isRecursiveFlag(arg: string): boolean {
  return /^-[a-zA-Z]*[rR]/.test(arg) || arg === '--recursive';
}

/** `/`, `//`, `/.`, `/*`, `~`, `$HOME/`, `..`, `../..`, `.`, `*` and the like: everything, not a part of it. */
function isProtectedTarget(arg: string): boolean {
  const target = arg.replace(/\/+/g, '/').replace(/(\/\.)+$|\/\*$|\/$/g, '') || '/';
  return /^(\/|\/\*|~|\$HOME|\$\{HOME\}|(\.\.\/?)+\*?|\.|\*|\.\/\*)$/.test(target) || isRoot(arg);
}

function isRoot(arg: string): boolean {
  return /^\/+(\.\/*|\*)?$/.test(arg);
}

function isDisk(target: string): boolean {
  return /^\/dev\/(sd|nvme|hd|vd|xvd|disk|mmcblk)/.test(target);
}

function isShell(program: string | undefined): boolean {
  return ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash'].includes(program ?? '');
}
