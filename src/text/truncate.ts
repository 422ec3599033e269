/**
 * Keeps the first and last halves of a long text with a marker between them. Command output matters most at
 * both ends: what ran, and how it ended.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n… [${omitted} characters omitted] …\n${text.slice(text.length - half)}`;
}

/** Cuts a text at `maxChars`, saying so, for places where the end matters less than the start. */
export function truncateEnd(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n… [truncated: ${text.length - maxChars} more characters]`;
}
