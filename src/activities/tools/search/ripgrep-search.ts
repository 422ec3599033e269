import { spawnSync } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { runReadOnly, type ReadOnlyResult } from '../../process/read-only-run.js';
import type { Sandbox } from '../../process/sandbox.js';
import { rootScopedRules } from '../gitignore-rules.js';
import { isInside } from '../glob-in-workspace.js';
import { refuse } from '../tool-outcome.js';
import { fixedListGlobs, parseCounts, parseLines, type FileCount } from './ripgrep-output.js';
import { cutLine, MAX_SEARCHED_FILE_BYTES, type SearchEngine, type SearchRequest } from './search-engine.js';
import { planSearch, type SearchPlan, type SearchRoot } from './search-plan.js';

/** How long one ripgrep run may take: seconds on the largest trees, so this only stops what has gone wrong. */
export const RIPGREP_TIME_LIMIT_MS = 30_000;
/** The per-file counts of one search: a line per matching file, so this is hundreds of thousands of files. */
const MAX_COUNT_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Columns ripgrep prints of a matching line; the tool cuts further, so this only bounds a minified line's cost. */
const MAX_PRINTED_COLUMNS = 4_000;

/**
 * `search_codebase` by ripgrep, inside the sandbox with the workspace read-only: a program that walks and reads the
 * workspace sees only what a sandboxed command sees, so containment holds by construction, and it follows no
 * symlink (`-L` is never given). ripgrep reads no ignore file of its own (`--no-ignore`): the workspace's gitignore
 * rules are read on the host as every file tool reads them (regular files inside the workspace only) and handed to
 * it as one ignore file on its standard input; the fixed list of dependency, cache and build directories is a set of
 * exclusions below the start. `file_glob` is planned on the host (`planSearch`) and its exact match applied to what
 * ripgrep found, so ripgrep searches the files the built-in search would.
 *
 * A search takes a walk that lists the `.gitignore` files, one that counts matching lines per file, and one over
 * just the files that hold the lines shown, so the result is the same in any run: the first lines by path, and the
 * total.
 */
export function createRipgrepEngine(rg: string, sandbox: Sandbox, options: { timeLimitMs?: number } = {}): SearchEngine {
  const timeLimitMs = options.timeLimitMs ?? RIPGREP_TIME_LIMIT_MS;
  const version = /ripgrep ([\d.]+)/.exec(spawnSync(rg, ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1] ?? 'unknown';
  const pcre2 = spawnSync(rg, ['--pcre2-version'], { encoding: 'utf8' }).status === 0;
  const where =
    sandbox.mode === 'on' ? 'in the sandbox, the workspace read-only' : 'UNSANDBOXED (CODELOOP_SANDBOX=off), following no symlink';
  const run = (root: string, request: SearchRequest, argv: string[], rules?: string) =>
    runReadOnly(sandbox, {
      argv: [rg, '--no-config', ...argv],
      workspace: root,
      inputFile: rules === undefined ? undefined : { content: rules, placeholder: RULES_FILE },
      timeoutMs: timeLimitMs,
      maxOutputBytes: MAX_COUNT_OUTPUT_BYTES,
      signal: request.signal,
      onProgress: request.heartbeat,
    });

  return {
    name: 'ripgrep',
    description: `search_codebase runs ripgrep ${version} (${rg}) ${where}${pcre2 ? '' : '; no PCRE2, so look-around and backreferences are refused'}`,
    async search(root, request) {
      const exec: Run = (argv, rules) => run(root, request, argv, rules);
      const plan = await planSearch(root, request.glob);
      if (plan.directories.length === 0 && plan.files.length === 0)
        return { total: 0, shown: [], files: plan.tooLarge, tooLarge: plan.tooLarge };
      const rules = await ignoreRules(root, plan, exec);
      request.heartbeat?.();
      const paths = [...plan.directories.map((entry) => entry.real), ...plan.files.map((entry) => entry.real)];
      const counting = [
        '--count',
        '--with-filename',
        '--null',
        '--max-filesize',
        String(MAX_SEARCHED_FILE_BYTES),
        '--ignore-file',
        RULES_FILE,
        ...fixedListGlobs(),
      ];
      const { result: counted, flags } = await countMatches(
        exec,
        request,
        rules,
        [...counting, '-e', request.pattern, '--', ...paths],
        pcre2,
        timeLimitMs,
      );
      const counts = shownCounts(parseCounts(counted.stdout), plan);
      request.heartbeat?.();
      const total = counts.reduce((sum, entry) => sum + entry.count, 0);
      if (total === 0) return { total, shown: [], ...(await countFiles(plan, rules, exec)) };
      const chosen = firstFiles(counts, request.maxResults);
      await refuseOutside(root, chosen);
      const printed = await exec([
        ...flags,
        ...['--line-number', '--with-filename', '--no-heading', '--null', '--max-count', String(request.maxResults)],
        ...[
          '--max-columns',
          String(MAX_PRINTED_COLUMNS),
          '--max-columns-preview',
          '-e',
          request.pattern,
          '--',
          ...chosen.map((entry) => entry.real),
        ],
      ]);
      failOn(printed, request, timeLimitMs);
      const order = new Map(chosen.map((entry, index) => [entry.real, { index, shown: entry.shown }]));
      const shown = parseLines(printed.stdout)
        .filter((line) => order.has(line.file))
        .sort((a, b) => order.get(a.file)!.index - order.get(b.file)!.index || a.line - b.line)
        .slice(0, request.maxResults)
        .map((line) => ({ file: order.get(line.file)!.shown, line: line.line, text: cutLine(line.text, request.maxLineChars) }));
      return { total, shown };
    },
  };
}

/** Runs ripgrep with `argv`; with `rules`, the ignore file `RULES_FILE` stands for holds them. */
type Run = (argv: string[], rules?: string) => Promise<ReadOnlyResult>;

/** The word in ripgrep's arguments that becomes the path of the ignore file. */
const RULES_FILE = '<rules>';

/** The flags every search run shares: no ignore files of ripgrep's own, hidden files, the case and the regex engine. */
function searchFlags(request: SearchRequest, pcre2: boolean): string[] {
  return [
    '--no-ignore',
    '--hidden',
    '--color',
    'never',
    request.caseInsensitive ? '--ignore-case' : '--case-sensitive',
    ...(pcre2 ? ['--pcre2'] : ['--crlf']),
  ];
}

/**
 * Runs the counting walk with the default engine, and again with PCRE2 when the pattern needs it (look-around,
 * backreferences, a JavaScript-style escape such as `\/`): the model writes the regular expressions it knows.
 */
async function countMatches(
  run: Run,
  request: SearchRequest,
  rules: string,
  counting: string[],
  pcre2: boolean,
  timeLimitMs: number,
): Promise<{ result: ReadOnlyResult; flags: string[] }> {
  const attempt = async (usePcre2: boolean) => {
    const flags = searchFlags(request, usePcre2);
    return { result: await run([...flags, ...counting], rules), flags };
  };
  let outcome = await attempt(false);
  if (isRegexError(outcome.result) && pcre2) {
    const retried = await attempt(true);
    if (!isRegexError(retried.result)) outcome = retried;
  }
  failOn(outcome.result, request, timeLimitMs);
  return outcome;
}

/**
 * The ignore file for this search: the names-only filter `file_glob` allows (everything else ignored, directories
 * kept), then the workspace's gitignore rules, read on the host from the `.gitignore` files a walk found in the
 * places searched and in the directories above them.
 */
async function ignoreRules(root: string, plan: SearchPlan, run: Run): Promise<string> {
  const directories = new Set<string>(['']);
  for (const { real } of plan.directories) {
    const parts = real === '.' ? [] : real.split('/');
    for (let depth = 1; depth < parts.length; depth++) directories.add(parts.slice(0, depth).join('/'));
  }
  if (plan.directories.length > 0) {
    const listed = await run([
      ...['--files', '--null', '--no-ignore', '--hidden', '--glob', '.gitignore', ...fixedListGlobs(), '--'],
      ...plan.directories.map((entry) => entry.real),
    ]);
    for (const file of splitNull(listed.stdout)) directories.add(path.posix.dirname(stripDot(file)).replace(/^\.$/, ''));
  }
  const names = plan.names ? ['*', '!*/', ...plan.names.map((name) => `!${name}`)] : [];
  return [...names, await rootScopedRules(root, [...directories])].join('\n');
}

/** Per-file counts under the names the glob used, only for files the glob matches. */
function shownCounts(counts: FileCount[], plan: SearchPlan): Array<FileCount & { real: string; shown: string }> {
  return counts
    .map((entry) => ({ ...entry, real: stripDot(entry.file), shown: shownPath(stripDot(entry.file), plan) }))
    .filter((entry) => plan.matches === undefined || plan.matches(entry.shown))
    .sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
}

function shownPath(real: string, plan: SearchPlan): string {
  if (plan.files.length === 0 && plan.directories.length === 1 && plan.directories[0]!.real === '.' && plan.directories[0]!.shown === '')
    return real;
  const file = plan.files.find((entry) => entry.real === real);
  if (file) return file.shown;
  const start = longestStart(real, plan.directories);
  if (!start) return real;
  const rest = start.real === '.' ? real : real.slice(start.real.length + 1);
  return start.shown === '' ? rest : `${start.shown}/${rest}`;
}

function longestStart(real: string, starts: SearchRoot[]): SearchRoot | undefined {
  return starts.filter((start) => start.real === '.' || real.startsWith(`${start.real}/`)).sort((a, b) => b.real.length - a.real.length)[0];
}

/** The files, in path order, that hold the first `wanted` matching lines. */
function firstFiles<T extends FileCount>(counts: T[], wanted: number): T[] {
  const chosen: T[] = [];
  let lines = 0;
  for (const entry of counts) {
    if (lines >= wanted) break;
    chosen.push(entry);
    lines += entry.count;
  }
  return chosen;
}

/**
 * Checks again, on the host, that each file whose lines will be shown sits in a directory whose real path is inside
 * the workspace: what ripgrep walked was, and this keeps it so even if a directory was swapped for a symlink meanwhile.
 */
async function refuseOutside(root: string, chosen: Array<{ real: string }>): Promise<void> {
  for (const directory of new Set(chosen.map((entry) => path.dirname(path.join(root, entry.real))))) {
    const real = await realpath(directory).catch(() => undefined);
    if (real === undefined || !isInside(root, real))
      refuse('the workspace changed while it was searched (a directory is now a link out of it); search again');
  }
}

/** When nothing matched: how many files the glob selects, and how many of them are over the size limit. */
async function countFiles(plan: SearchPlan, rules: string, run: Run): Promise<{ files: number; tooLarge: number }> {
  if (plan.directories.length === 0) return { files: plan.files.length + plan.tooLarge, tooLarge: plan.tooLarge };
  const list = async (extra: string[]) => {
    const listed = await run(
      [
        '--files',
        '--null',
        '--no-ignore',
        '--hidden',
        ...extra,
        '--ignore-file',
        RULES_FILE,
        ...fixedListGlobs(),
        '--',
        ...plan.directories.map((entry) => entry.real),
      ],
      rules,
    );
    return splitNull(listed.stdout).filter((file) => plan.matches === undefined || plan.matches(shownPath(stripDot(file), plan))).length;
  };
  const [all, small] = await Promise.all([list([]), list(['--max-filesize', String(MAX_SEARCHED_FILE_BYTES)])]);
  return { files: all + plan.files.length + plan.tooLarge, tooLarge: all - small + plan.tooLarge };
}

function isRegexError(result: ReadOnlyResult): boolean {
  return (
    result.exitCode === 2 &&
    result.stdout.length === 0 &&
    /regex parse error|error parsing regex|PCRE2: error compiling/i.test(result.stderr)
  );
}

/** A run that could not search: a pattern neither engine takes, a run past its time, or ripgrep failing outright. */
function failOn(result: ReadOnlyResult, request: SearchRequest, timeLimitMs: number): void {
  if (result.timedOut) {
    refuse(`the search for /${request.pattern}/ took longer than ${timeLimitMs / 1000} s and was stopped; narrow file_glob or the pattern`);
  }
  if (result.truncated) refuse(`the search for /${request.pattern}/ matched in too many files to count; narrow file_glob or the pattern`);
  if (isRegexError(result))
    refuse(`invalid regular expression ${request.pattern}: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
  // A file or start that vanished or cannot be read is reported and skipped; only a refused invocation is a fault.
  if (result.exitCode !== 0 && result.exitCode !== 1 && /^error:/m.test(result.stderr))
    throw new Error(`ripgrep failed: ${result.stderr.trim()}`);
}

function splitNull(output: Buffer): string[] {
  return output
    .toString('utf8')
    .split('\0')
    .filter((file) => file !== '');
}

function stripDot(file: string): string {
  return file.startsWith('./') ? file.slice(2) : file;
}
