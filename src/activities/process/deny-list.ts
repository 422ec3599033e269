/**
 * Command patterns the agent may never run, with the reason given back to it. The working directory is locked
 * to the workspace and secrets are scrubbed; this list stops the commands that do damage beyond the workspace or
 * cannot be undone.
 */
const DENIED: { pattern: RegExp; reason: string }[] = [
  { pattern: /\bmkfs(\.\w+)?\b/, reason: 'formats a filesystem' },
  { pattern: /\bdd\b[^|;&]*\bof=\/dev\//, reason: 'writes to a raw device' },
  { pattern: />\s*\/dev\/(sd|nvme|hd|vd|xvd|disk)/, reason: 'writes to a raw device' },
  { pattern: /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/, reason: 'fork bomb' },
  { pattern: /\b(shutdown|reboot|halt|poweroff)\b|\binit\s+[06]\b/, reason: 'stops the machine' },
  { pattern: /\bsudo\b|\bsu\s+(-|root\b)|\bdoas\b/, reason: 'privilege escalation' },
  { pattern: /\bch(mod|own)\s+(-[a-zA-Z]*R[a-zA-Z]*\s+)\S+\s+\/(\s|$)/, reason: 'changes permissions of the whole filesystem' },
  { pattern: /\bgit\s+push\b[^;&|]*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)/, reason: 'force-pushes over remote history' },
  { pattern: /\bkill\s+(-\S+\s+)*-1\b|\bkillall\b|\bpkill\s+-9\s+-u\b/, reason: 'kills processes beyond the command' },
  { pattern: /\b(curl|wget)\b[^|;&]*\|\s*(ba|z|da)?sh\b/, reason: 'pipes a download straight into a shell' },
];

const PROTECTED_TARGETS = new Set(['/', '/*', '~', '~/', '~/*', '$HOME', '$HOME/', '${HOME}', '..', '../', '../*', '.', './', './*', '*']);

/** `rm -r` (in any flag spelling) aimed at the root, home, a parent, or the whole workspace. */
function deletesEverything(segment: string): boolean {
  const words = segment.trim().split(/\s+/);
  const rm = words.findIndex((word) => word === 'rm' || word.endsWith('/rm'));
  if (rm === -1) return false;
  const args = words.slice(rm + 1);
  const recursive = args.some((arg) => /^-[a-zA-Z]*[rR]/.test(arg) || arg === '--recursive');
  return recursive && args.some((arg) => PROTECTED_TARGETS.has(arg.replace(/^["']|["']$/g, '')));
}

/** The reason a command is refused, or `undefined` when it may run. */
export function deniedReason(command: string): string | undefined {
  if (command.split(/;|&&|\|\||\||\n/).some(deletesEverything)) {
    return 'recursive delete of the root, home, a parent directory or the whole workspace';
  }
  return DENIED.find(({ pattern }) => pattern.test(command))?.reason;
}
