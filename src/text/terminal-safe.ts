/**
 * Text for a terminal with every control character shown rather than obeyed: an agent's question, a command it ran
 * or an answer can hold escape sequences that move the cursor, erase a line or retitle the window, and so hide the
 * risky part of an approval question. Line feeds and tabs stay; everything else of C0, DEL and C1 becomes `\xNN`.
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
