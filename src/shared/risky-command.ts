/**
 * Commands the `approval: "risky"` policy holds for a human: they delete or overwrite work, change what is
 * installed, talk to the network or to other systems. Reading, building and testing run without asking.
 */
const RISKY: RegExp[] = [
  /(^|[\s;&|(])(rm|rmdir|shred|truncate|unlink)\s/,
  /(^|[\s;&|(])mv\s/,
  /\bgit\s+(push|reset|clean|rebase|checkout\s+--|restore|branch\s+-D|stash\s+drop|filter-branch)\b/,
  /\b(npm|pnpm|yarn)\s+(install|i|add|remove|uninstall|publish|update|upgrade)\b/,
  /\b(pip3?|uv|poetry)\s+(install|uninstall|add|remove)\b/,
  /\b(curl|wget|ssh|scp|rsync|nc|telnet|ftp)\b/,
  /\b(docker|kubectl|helm|terraform|aws|gcloud|az)\b/,
  /\b(psql|mysql|mongo|mongosh|redis-cli|sqlite3)\b/,
  /\b(chmod|chown|kill|pkill|killall)\b/,
  /(^|[^>])>\s*(?!\/dev\/null)[^\s&]/,
];

export function isRiskyCommand(command: string): boolean {
  return RISKY.some((pattern) => pattern.test(command));
}
