import { execFileSync, spawn } from 'node:child_process';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createSandbox } from '../src/activities/process/sandbox.js';
import { createToolActivities, createSearchEngine, type ToolOutcome } from '../src/activities/tools/index.js';
import { builtInSearch } from '../src/activities/tools/search/built-in-search.js';
import type { WorkspaceShell } from '../src/activities/tools/index.js';
import { percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';
import { buildSearchTree, evictFromPageCache } from './search-tree.js';

/** Four kinds of pattern: a common literal, a regex with classes, a case-insensitive one, a literal found nowhere. */
const PATTERNS = [
  { kind: 'literal, many matches', pattern: 'def __init__', ignoreCase: false },
  { kind: 'regex with classes', pattern: 'class \\w+Error\\(', ignoreCase: false },
  { kind: 'case-insensitive', pattern: 'utf-?8', ignoreCase: true },
  { kind: 'literal found nowhere', pattern: 'codeloop_bench_no_such_name', ignoreCase: false },
] as const;
const WARM_RUNS = 5;
const GOAL_RATIO = 2;

/**
 * `search_codebase` on a large tree against ripgrep itself: the standard libraries of four CPythons (see
 * `buildSearchTree`), each pattern through the real activity (the function the worker registers, with the worker's
 * own engine: ripgrep in the sandbox) and through `rg --line-number` on the host over the same tree, output read to
 * the end, alternating run by run so both see the same machine. The first call of each is on a cold page cache.
 */
export async function benchSearch(_env: BenchEnv): Promise<void> {
  const tree = buildSearchTree();
  const sandbox = createSandbox(process.env);
  const engine = createSearchEngine(sandbox);
  const noShell: WorkspaceShell = () => Promise.reject(new Error('the search bench runs no command'));
  const activities = createToolActivities({ shell: noShell, search: engine });
  const before = createToolActivities({ shell: noShell, search: builtInSearch });
  const activity = async (pattern: string, ignoreCase: boolean, tools = activities) => {
    const input = { pattern, max_results: 20, ...(ignoreCase ? { case_insensitive: true } : {}) };
    const outcome: ToolOutcome = await new MockActivityEnvironment().run(tools.searchCodebase, { workspace: tree.root, input });
    if (outcome.isError) throw new Error(`search_codebase /${pattern}/ failed: ${outcome.content}`);
    return outcome.content.split('\n')[0]!;
  };
  const timed = async (body: () => Promise<unknown>) => {
    const started = performance.now();
    await body();
    return performance.now() - started;
  };
  const rows: (string | number)[][] = [];
  const totals = { activity: 0, rg: 0, coldActivity: 0, coldRg: 0, builtIn: 0 };
  let evicted = true;
  for (const { kind, pattern, ignoreCase } of PATTERNS) {
    evicted = evictFromPageCache(tree.root) && evicted;
    const coldRg = await timed(() => ripgrep(tree.root, pattern, ignoreCase));
    evicted = evictFromPageCache(tree.root) && evicted;
    const coldActivity = await timed(() => activity(pattern, ignoreCase));
    const [ours, theirs]: number[][] = [[], []];
    let summary = '';
    for (let run = 0; run < WARM_RUNS; run++) {
      theirs.push(await timed(() => ripgrep(tree.root, pattern, ignoreCase)));
      ours.push(await timed(async () => (summary = await activity(pattern, ignoreCase))));
    }
    const builtIn = await timed(() => activity(pattern, ignoreCase, before));
    totals.builtIn += builtIn;
    const [activityP50, rgP50] = [percentile(ours, 50), percentile(theirs, 50)];
    totals.activity += activityP50;
    totals.rg += rgP50;
    totals.coldActivity += coldActivity;
    totals.coldRg += coldRg;
    rows.push([
      kind,
      `\`${pattern}\`${ignoreCase ? ' (-i)' : ''}`,
      summary.replace(/:$/, '').replace(/ for \/.*$/, ''),
      ms(rgP50),
      ms(activityP50),
      ratio(activityP50, rgP50),
      ms(coldRg),
      ms(coldActivity),
      ratio(coldActivity, coldRg),
      ms(builtIn),
    ]);
  }
  rows.push([
    '**total**',
    '',
    '',
    ms(totals.rg),
    ms(totals.activity),
    ratio(totals.activity, totals.rg),
    ms(totals.coldRg),
    ms(totals.coldActivity),
    ratio(totals.coldActivity, totals.coldRg),
    ms(totals.builtIn),
  ]);
  const markdown = `## search_codebase on a large tree, against ripgrep

\`npm run bench -- search\`, ${stamp()}. The tree: the standard libraries of CPython ${tree.versions.join(', ')}
as installed but for \`site-packages\` (${describeTree(tree.root)}, \`__pycache__\` included), built by \`bench/search-tree.ts\` the same way on every machine that has
those interpreters. Each pattern through the \`searchCodebase\` activity as the worker registers it (${engine.description};
20 lines shown, the rest counted) and through \`rg --line-number\` on the host over the same tree (every line printed and
read), alternating, ${WARM_RUNS} warm runs each, medians in ms. The cold columns are each one's first call after the tree's
files were dropped from the page cache (\`posix_fadvise(DONTNEED)\`${evicted ? '' : ': NOT available here, so they are warm'};
directory entries stay cached). The last column is the built-in search a worker without ripgrep uses (the search
before ripgrep), one warm run. Goal: within ${GOAL_RATIO}x of ripgrep per pattern and in total.

${table(['kind', 'pattern', 'result', 'rg', 'activity', 'ratio', 'rg cold', 'activity cold', 'ratio cold', 'built-in'], rows)}
`;
  writeSection('65-search', markdown);
  console.log(markdown);
}

/** ripgrep as a developer runs it over the tree: every matching line, read to the end. */
function ripgrep(root: string, pattern: string, ignoreCase: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('rg', ['--line-number', ...(ignoreCase ? ['--ignore-case'] : []), '-e', pattern, '.'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`rg exited ${code}`))));
  });
}

function describeTree(root: string): string {
  const files = Number(execFileSync('sh', ['-c', 'find . -type f | wc -l'], { cwd: root, encoding: 'utf8' }).trim());
  const size = execFileSync('du', ['-sh', '.'], { cwd: root, encoding: 'utf8' }).split('\t')[0];
  return `${files.toLocaleString('en-US')} files, ${size}`;
}

const ms = (value: number) => value.toFixed(0);
const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(2)}x`;
