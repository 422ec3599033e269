/**
 * A count with thousands separators, the same in the CLI and the Web UI details: 12,345. Integers are grouped by
 * hand: `toLocaleString` builds a number formatter on every call, and a task's details render four counts on each
 * step of its workflow. Anything else is left to it.
 */
export const formatCount = (value: number): string =>
  Number.isSafeInteger(value) ? String(value).replace(/\B(?=(\d{3})+$)/g, ',') : value.toLocaleString('en-US');

/** A duration as people read it: 42s, 3m 5s, 2h 10m, 3d 4h. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}
