import { createTwoFilesPatch } from 'diff';

/**
 * Unified diff of the whole change with `a/` and `b/` headers and 3 lines of context, the form `git diff` prints
 * and models read best; empty when nothing changed. The `Index:` and `====` lines the `diff` package adds are
 * dropped, since no tool expects them.
 */
export function createUnifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 });
  const lines = patch.split('\n');
  const header = lines.findIndex((line) => line.startsWith('--- '));
  return lines.slice(Math.max(header, 0)).join('\n');
}
