/**
 * Normalises an error so that the same failure seen twice hashes the same: line and column numbers, paths, memory
 * addresses, timestamps, durations and long quoted strings are what change between attempts, not the error.
 */
export function normalizeError(text: string): string {
  return text
    .replace(/0x[0-9a-f]+/gi, '<addr>')
    .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>')
    .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<time>')
    .replace(/(?:[A-Za-z]:)?(?:[\w.@-]*\/)+[\w.@-]+/g, '<path>')
    .replace(/(["'`])(?:(?!\1).){21,}\1/g, '<str>')
    .replace(/\b[\w-]+\.(py|ts|tsx|js|mjs|cjs|jsx|json|ya?ml|toml|go|rs|java|rb)\b/g, '<file>')
    .replace(/\bline \d+\b/gi, 'line <n>')
    .replace(/:\d+(:\d+)?\b/g, ':<n>')
    .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b/g, '<dur>')
    .replace(/\b\d+\b/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** A short stable hash of the normalised error. */
export function errorSignature(text: string): string {
  return fnv1a(normalizeError(text).slice(0, 600));
}

/** FNV-1a, 32 bits, as 8 hex digits: deterministic and dependency-free, so it is safe in workflow code. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
