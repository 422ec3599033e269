import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeCodeMap } from '../src/activities/code-map/code-map.js';
import { checkTypes, typeCheckPrepared } from '../src/activities/verification/type-check.js';
import { createWorkspaceActivities, DESCRIBE_BUDGET_MS } from '../src/activities/workspace.js';
import { generateProject } from './lint-per-edit.js';
import { percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';

const MODULES = 500;
const load = () => os.loadavg()[0]!.toFixed(1);
/** How long a task's first model call takes before its first edit, in the second run: a short one. */
const FIRST_CALL_MS = 3_000;

/**
 * What a task's start costs on a large TypeScript project before the model gets any feedback: describing the
 * workspace (which must not wait for the code map's first build past its one-second budget), and the first edit's
 * type feedback (the type check's first run starts in the background when the workspace is described, and the first
 * edit waits for the rest of it). The project is generated: 500 modules that import each other, committed to git,
 * with the code-map cache empty at the start.
 */
export async function benchFirstFeedback(_env: BenchEnv): Promise<void> {
  process.env.XDG_CACHE_HOME = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-cache-'));
  const { describeWorkspace } = createWorkspaceActivities({ hostId: 'bench', hostQueue: 'codeloop@bench', sandbox: 'off' });
  const ms = (value: number) => Math.round(value);
  const rows: (string | number)[][] = [];
  const edit = (workspace: string, k: number) => {
    const file = path.join(workspace, 'src', `m${k}.ts`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('return total * 2;', 'return total * 3;'));
    return `src/m${k}.ts`;
  };
  const committed = (workspace: string) => async (file: string) => {
    try {
      return execFileSync('git', ['show', `HEAD:./${file}`], { cwd: workspace, encoding: 'utf8' });
    } catch {
      return undefined;
    }
  };
  let lines = 0;
  for (const delay of [0, FIRST_CALL_MS]) {
    const workspace = generateProject(MODULES);
    lines = Number(execFileSync('sh', ['-c', 'cat src/*.ts | wc -l'], { cwd: workspace, encoding: 'utf8' }).trim());
    const started = performance.now();
    const described = await describeWorkspace(workspace);
    const describeMs = performance.now() - started;
    console.error(`first-feedback: described in ${ms(describeMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    const editedAt = performance.now();
    // As `edit_file` does: the edit is written once the checker has read the project for its baseline.
    await typeCheckPrepared(workspace);
    await checkTypes(workspace, edit(workspace, 7), committed(workspace));
    const firstEdit = performance.now() - editedAt;
    console.error(`first-feedback: first edit's type feedback in ${ms(firstEdit)} ms`);
    const later: number[] = [];
    for (const k of [100, 200, 300, 400]) {
      const at = performance.now();
      await checkTypes(workspace, edit(workspace, k), committed(workspace));
      later.push(performance.now() - at);
    }
    const mapStarted = performance.now();
    await describeCodeMap(workspace);
    const mapRest = performance.now() - mapStarted;
    const again = performance.now();
    const warm = await describeWorkspace(workspace);
    const warmMs = performance.now() - again;
    rows.push([
      delay === 0 ? 'first edit at once' : `first edit ${delay / 1000} s after the start`,
      ms(describeMs),
      described.codeMap ? 'yes' : 'no (file tree)',
      ms(firstEdit),
      ms(percentile(later, 50)),
      ms(mapRest),
      `${ms(warmMs)} (${warm.codeMap ? 'with map' : 'no map'})`,
    ]);
  }
  writeSection(
    '66-first-feedback',
    `## First feedback on a large TypeScript project

\`npm run bench -- first-feedback\`, ${stamp()}. A generated project of ${MODULES.toLocaleString('en-US')} modules and
${lines.toLocaleString('en-US')} lines of TypeScript, committed to git, code-map cache empty; the machine is shared (2 cores, other
work running), so figures are upper bounds. "describe" is \`describeWorkspace\`, which holds a task's start: it waits for
the code map at most the rest of a ${DESCRIBE_BUDGET_MS} ms budget, and the map's build goes on in the background
("map build, rest" is how much longer it took after the first edits; the next description, on the same commit, gets the
map from the cache). The type check's first run starts in its own process when the workspace is described: it parses
and binds every file, which an edit waits for (as \`edit_file\` does), then checks the whole project a file at a time in
the background. An edit checked before that check ends is compared in the changed files and the files that import
them; later edits are incremental over the whole project. The load average (1 min) was ${load()} at the end.

${table(
  [
    'run',
    'describe (ms)',
    'map in the first description',
    'first edit type feedback (ms)',
    'later edits p50 (ms)',
    'map build, rest (ms)',
    'describe again (ms)',
  ],
  rows,
)}
`,
  );
}
