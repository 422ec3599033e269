import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { ToolInput } from '../../shared/tools.js';
import { readRegularFile } from '../tools/read-regular-file.js';
import { formatLine } from '../tools/search-codebase.js';
import type { FoundLine, SearchEngine } from '../tools/search/search-engine.js';
import { defaultSearchEngine } from '../tools/search/search-engines.js';
import { observe, ok, refuse, type ToolOutcome } from '../tools/tool-outcome.js';
import { codeIndexOf } from './code-map.js';
import { languageOf } from './languages.js';
import { startParseThread } from './parse-thread.js';

/** Lines of the name a search collects to tell definitions from uses. */
const SCANNED_LINES = 200;
/** Files parsed to find the definitions among those lines; larger ones are skipped. */
const MAX_PARSED_FILES = 60;
const MAX_PARSED_FILE_BYTES = 2_000_000;
const MAX_LINE_CHARS = 200;
/** What precedes a defined name in the languages the map reads: `function`, `class`, `def`, `func (r T)`, `const`… */
const DEFINITION_SHAPE = '\\b(function\\*?|class|interface|type|enum|namespace|module|def|func|const|let|var)\\s+(\\([^)]*\\)\\s*)?';

/**
 * `find_symbol`: where a name is defined and where it is used, now, in the workspace. The lines come from a
 * whole-word search (`search_codebase`'s engine and rules); the files among them, and those the code index knows
 * define the name, are parsed with tree-sitter on the parser thread, and the lines where a grammar sees the name
 * defined are the definitions. The rest are uses.
 */
export async function findSymbol(
  workspace: string,
  input: ToolInput<'find_symbol'>,
  engine: SearchEngine = defaultSearchEngine(),
): Promise<ToolOutcome> {
  return observe(async () => {
    if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(input.name))
      refuse(`find_symbol takes one name, such as parseConfig or Parser; got ${input.name}`);
    const root = await realpath(workspace);
    const context = currentContext();
    const name = input.name.replace(/\$/g, '\\$');
    const search = (glob?: string, pattern = `\\b${name}\\b`) =>
      engine.search(root, {
        pattern,
        glob,
        caseInsensitive: false,
        maxResults: SCANNED_LINES,
        maxLineChars: MAX_LINE_CHARS,
        signal: context?.cancellationSignal,
        heartbeat: context && (() => context.heartbeat()),
      });
    const found = await search();
    // Where a name is used in many places its definition may sort after the first lines: look for it by its shape,
    // and in the files the code index knows define it; those files are parsed first.
    const lines: FoundLine[] = [];
    if (found.total > found.shown.length) lines.push(...(await search(undefined, `${DEFINITION_SHAPE}${name}\\b`)).shown);
    const known = await knownDefinitionFiles(root, input.name);
    const missing = known.filter((file) => !lines.some((line) => line.file === file));
    if (missing.length > 0) lines.push(...(await search(missing.length === 1 ? missing[0] : `{${missing.join(',')}}`)).shown);
    lines.push(...found.shown.filter((line) => !lines.some((seen) => seen.file === line.file && seen.line === line.line)));
    const definitions = await definitionsAmong(root, input.name, lines, context?.cancellationSignal);
    const isDefinition = (line: FoundLine) => definitions.has(`${line.file}:${line.line}`);
    const defined = lines.filter(isDefinition);
    const uses = found.shown.filter((line) => !isDefinition(line));
    const usesTotal = found.total - defined.length;
    const heading = `${input.name}: ${defined.length} definition${defined.length === 1 ? '' : 's'}, ${usesTotal} other line${usesTotal === 1 ? '' : 's'} naming it`;
    const parts = [heading];
    if (defined.length > 0)
      parts.push('Definitions:', ...defined.map((line) => `${formatLine(line)}  (${definitions.get(`${line.file}:${line.line}`)})`));
    else parts.push('No definition found in TypeScript, JavaScript, Python or Go; the lines below name it.');
    if (uses.length > 0) parts.push('Uses:', ...uses.slice(0, input.max_results).map(formatLine));
    if (usesTotal > Math.min(uses.length, input.max_results))
      parts.push(`… ${usesTotal - Math.min(uses.length, input.max_results)} more; search_codebase narrows by file_glob`);
    return ok(parts.join('\n'));
  });
}

/** Files the workspace's cached code index says define `name` (at the commit it was built from). */
async function knownDefinitionFiles(root: string, name: string): Promise<string[]> {
  const index = await codeIndexOf(root, { onlyCached: true }).catch(() => undefined);
  if (!index) return [];
  return [...new Set(index.definitions.filter(([defined]) => defined === name).map(([, , file]) => file))].slice(0, MAX_PARSED_FILES);
}

/** `file:line` → kind for each line where a grammar sees `name` defined, among the files `lines` are in. */
async function definitionsAmong(root: string, name: string, lines: FoundLine[], signal?: AbortSignal): Promise<Map<string, string>> {
  const files = [...new Set(lines.map((line) => line.file))].filter((file) => languageOf(file)).slice(0, MAX_PARSED_FILES);
  const sources = [];
  for (const file of files) {
    const bytes = await readRegularFile(root, path.join(root, file), MAX_PARSED_FILE_BYTES);
    if (typeof bytes !== 'string') sources.push({ file, language: languageOf(file)!.name, text: bytes.toString('utf8') });
  }
  const found = new Map<string, string>();
  if (sources.length === 0) return found;
  const thread = startParseThread(signal);
  try {
    for (const parsed of await thread.parse(sources)) {
      for (const [defined, kind, line] of parsed.definitions) if (defined === name) found.set(`${parsed.file}:${line}`, kind);
    }
  } finally {
    await thread.close();
  }
  return found;
}

function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
