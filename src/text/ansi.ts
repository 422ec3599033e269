/**
 * ANSI escape sequences: colours and styles (CSI `ESC [ … m`), cursor moves and erasures, and OSC titles and links.
 * Runners colour their output even with `NO_COLOR` set when a project forces it (`--color=yes` in addopts, chalk's
 * `FORCE_COLOR` in a script); to the model, and to the parsers that read test ids, the codes are noise.
 */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** The text without its escape sequences. */
export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}
