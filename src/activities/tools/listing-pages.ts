import { formatCount } from '../../text/format.js';

/** Entries a listing shows whole; a longer one is summarised and paged. */
export const WHOLE_LISTING_ENTRIES = 500;
/** Entries on one page of a long listing. */
export const PAGE_ENTRIES = 250;
/** Directories the summary of a long listing names at most. */
const SUMMARY_DIRECTORIES = 60;

/**
 * A long listing as the model can use it: first the shape (the directories two levels down, each with the number of
 * files below it, largest first when they do not all fit), then one page of the entries, and how to get the next.
 * The root of a large repository is thousands of paths, which say less than the counts do and cost a turn's context.
 */
export function pageListing(entries: string[], page: number, heading: string, prefix: string): string {
  const pages = Math.ceil(entries.length / PAGE_ENTRIES);
  if (page > pages) return `${heading}: there are ${pages} pages; ask for page 1 to ${pages}`;
  const first = (page - 1) * PAGE_ENTRIES;
  const shown = entries.slice(first, first + PAGE_ENTRIES).map((entry) => prefix + entry);
  const next =
    page < pages ? `\n… page ${page} of ${pages}: list_files with page: ${page + 1} for more, or a narrower path or pattern` : '';
  const summary = page === 1 ? `${summarise(entries, prefix)}\n\n` : '';
  return `${heading}, page ${page} of ${pages} (entries ${first + 1}-${first + shown.length}):\n${summary}${shown.join('\n')}${next}`;
}

/** The directories up to two levels below the listed one, each with the files below it. */
function summarise(entries: string[], prefix: string): string {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    if (entry.endsWith('/')) continue;
    const parts = entry.split('/').slice(0, -1);
    for (let depth = 1; depth <= Math.min(2, parts.length); depth++) {
      const directory = `${parts.slice(0, depth).join('/')}/`;
      counts.set(directory, (counts.get(directory) ?? 0) + 1);
    }
  }
  const topLevelFiles = entries.filter((entry) => !entry.endsWith('/') && !entry.includes('/')).length;
  let directories = [...counts.entries()];
  if (directories.length > SUMMARY_DIRECTORIES) {
    const kept = new Set(
      [...directories]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, SUMMARY_DIRECTORIES)
        .map(([directory]) => directory),
    );
    directories = directories.filter(([directory]) => kept.has(directory));
  }
  const lines = directories
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([directory, files]) => `${'  '.repeat(directory.split('/').length - 2)}${prefix}${directory}  ${formatCount(files)} files`);
  const left = counts.size - directories.length;
  return [
    `Directories, with the files below each (within the depth listed):`,
    ...lines,
    ...(left > 0 ? [`… ${left} smaller directories`] : []),
    ...(topLevelFiles > 0 ? [`(${formatCount(topLevelFiles)} files directly here)`] : []),
  ].join('\n');
}
