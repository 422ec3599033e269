import { formatCount } from '../../text/format.js';
import type { CodeIndex } from './code-index.js';

/** Characters per token of code and paths, on the low side, so a map estimated within its budget is within it. */
export const CHARS_PER_TOKEN = 3.5;
/** The share of the budget the directories may take; the definitions get the rest. */
const DIRECTORY_SHARE = 0.3;
/** Definitions considered for the map: a file's line lists only those among the most used overall. */
const RANKED_SHOWN = 300;
/** Names this short say little out of context (`id`, `fn`, `x`). */
const MIN_NAME_LENGTH = 3;

/** A definition ranked by the files that use its name (import, call, construct or name it as a type). */
export interface RankedDefinition {
  name: string;
  kind: string;
  file: string;
  line: number;
  usedIn: number;
}

/** Kinds ranked: what other files import and call. Methods are found through their class, and by find_symbol. */
const RANKED_KINDS = new Set(['function', 'class', 'interface', 'type', 'enum', 'constant', 'variable', 'module']);
/** Tests define helpers for tests: worth half as much as the code they test. */
const TEST_PATH = /(^|\/)(tests?|spec|__tests__|testing)\/|(^|\/)test_[^/]*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$/;

/**
 * The most used definitions: each ranked by how many other files use its name, shared out among the files that
 * define that name (a `run` defined in 40 files does not get every caller of each), as a repository map ranks them.
 * Dunder names (`__init__`), very short names and methods are left out; definitions in tests count half.
 */
export function rankDefinitions(index: CodeIndex): RankedDefinition[] {
  const definingFiles = new Map<string, Set<string>>();
  for (const [name, , file] of index.definitions) {
    let files = definingFiles.get(name);
    if (!files) definingFiles.set(name, (files = new Set()));
    files.add(file);
  }
  const ranked: Array<RankedDefinition & { score: number }> = [];
  for (const [name, kind, file, line] of index.definitions) {
    if (name.length < MIN_NAME_LENGTH || /^__.*__$/.test(name) || !RANKED_KINDS.has(kind)) continue;
    const defining = definingFiles.get(name)!.size;
    const usedIn = index.usedIn[name] ?? 0;
    if (usedIn === 0) continue;
    ranked.push({ name, kind, file, line, usedIn, score: (usedIn / defining) * (TEST_PATH.test(file) ? 0.5 : 1) });
  }
  return ranked
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.file < b.file ? -1 : 1))
    .map(({ score: _score, ...definition }) => definition);
}

/**
 * The code map as the project layer shows it, within `budgetTokens`: what was read, the directories two levels down
 * with their file counts (the largest first when they do not all fit), then the most used definitions grouped by
 * file in rank order, each with its kind, line and how many other files use it.
 */
export function renderCodeMap(index: CodeIndex, budgetTokens: number): string {
  const budget = Math.floor(budgetTokens * CHARS_PER_TOKEN);
  const partial = index.parsedFiles < index.sourceFiles ? ` (${formatCount(index.parsedFiles)} of them parsed, within the limits)` : '';
  const head = [
    `${formatCount(index.files)} files${index.commit ? ` at commit ${index.commit.slice(0, 12)}` : ''}; ` +
      `${formatCount(index.sourceFiles)} in ${index.languages.join(', ') || 'no language the map reads'}${partial}. ` +
      'find_symbol finds where a name is defined and used.',
  ];
  const directories = fitLines(directoryLines(index), Math.floor(budget * DIRECTORY_SHARE));
  const used = [...head, '', 'Directories (files below each):', ...directories].join('\n').length;
  const definitions = fitLines(definitionLines(rankDefinitions(index).slice(0, RANKED_SHOWN)), budget - used - 80);
  const parts = [...head, '', 'Directories (files below each):', ...directories];
  if (definitions.length > 0) parts.push('', 'Most used definitions (file: name kind:line, files using it):', ...definitions);
  return parts.join('\n');
}

/** Top-level directories shown by name; the rest, and any of fewer than 3 files, share one line. */
const SHOWN_DIRECTORIES = 15;
const SMALL_DIRECTORY_FILES = 3;

function directoryLines(index: CodeIndex): string[] {
  const top = index.directories.filter(([directory]) => directory.split('/').length === 2).sort((a, b) => b[1] - a[1]);
  const below = (parent: string) =>
    index.directories
      .filter(([directory]) => directory.startsWith(parent) && directory.split('/').length === 3)
      .sort((a, b) => b[1] - a[1]);
  const shown = top.filter(([, files]) => files >= SMALL_DIRECTORY_FILES).slice(0, SHOWN_DIRECTORIES);
  const rest = top.filter((entry) => !shown.includes(entry));
  const lines = shown.map(([directory, files]) => {
    const children = below(directory);
    const named = children.filter(([, count]) => count >= SMALL_DIRECTORY_FILES).slice(0, 8);
    const more = children.length - named.length;
    const list = named.map(([child, count]) => `${child.slice(directory.length)} ${formatCount(count)}`).join(', ');
    const tail = more > 0 ? `${list ? ', ' : ''}${formatCount(more)} more` : '';
    return `${directory} ${formatCount(files)}${list || tail ? `: ${list}${tail}` : ''}`;
  });
  if (rest.length > 0) {
    const files = rest.reduce((sum, [, count]) => sum + count, 0);
    lines.push(
      `${formatCount(rest.length)} more directories with ${formatCount(files)} files: ${rest
        .slice(0, 6)
        .map(([directory]) => directory)
        .join(', ')}…`,
    );
  }
  return lines;
}

function definitionLines(ranked: RankedDefinition[]): string[] {
  const byFile = new Map<string, RankedDefinition[]>();
  for (const definition of ranked) {
    const list = byFile.get(definition.file);
    if (list) list.push(definition);
    else byFile.set(definition.file, [definition]);
  }
  return [...byFile.entries()].map(
    ([file, definitions]) =>
      `${file}: ${definitions
        .slice(0, 12)
        .map((definition) => `${definition.name} ${definition.kind}:${definition.line} (${formatCount(definition.usedIn)})`)
        .join(', ')}`,
  );
}

/** The first lines that fit in `budget` characters, newlines included. */
function fitLines(lines: string[], budget: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  return kept;
}
