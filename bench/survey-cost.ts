import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../src/activities/process/run-process.js';
import { createSandbox } from '../src/activities/process/sandbox.js';
import { surveySandbox } from '../src/activities/sandbox-survey.js';
import type { WorkspaceShell } from '../src/activities/tools/run-command.js';
import { percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';

const RUNS = 20;

/** A fresh scratch project from its files. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-survey-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

const PROJECTS = {
  'Python, src layout (one package to import-check)': { 'pyproject.toml': '[project]\nname = "calc"\n', 'src/calc/__init__.py': '' },
  'Node (package.json, no node_modules)': { 'package.json': '{"scripts":{"test":"node --test"}}' },
};

/**
 * What the sandbox survey adds to a task's start (`surveySandbox`, once per task): cold, on a worker that has not
 * surveyed what `PATH` holds yet (a fresh shell each run), and warm, with that part cached as a worker caches it.
 */
export async function benchSurveyCost(_env: BenchEnv): Promise<void> {
  const sandbox = createSandbox(process.env);
  const newShell = (): WorkspaceShell => (command, options) =>
    runProcess({ command, cwd: options.workspace, timeoutMs: options.timeoutMs, env: process.env, sandbox, access: options.access });
  const rows: (string | number)[][] = [];
  for (const [name, files] of Object.entries(PROJECTS)) {
    const warmShell = newShell();
    await surveySandbox(warmShell, project(files));
    const cold: number[] = [];
    const warm: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      cold.push(await timed(() => surveySandbox(newShell(), project(files))));
      warm.push(await timed(() => surveySandbox(warmShell, project(files))));
    }
    rows.push([
      name,
      RUNS,
      fixed(percentile(cold, 50)),
      fixed(percentile(cold, 95)),
      fixed(percentile(warm, 50)),
      fixed(percentile(warm, 95)),
    ]);
  }
  const markdown = `## The sandbox survey at a task's start

\`npm run bench -- survey\`, ${stamp()}. \`surveySandbox\` on a fresh scratch project each run (${sandbox.description}),
cold (a worker that has not surveyed \`PATH\` yet) and warm (the \`PATH\` part cached, as a worker caches it for ten
minutes), alternating one run each way; wall time in ms, with a load average of ${os.loadavg()[0].toFixed(1)} on the machine
when it ended. It runs once per task, before the first model call.

${table(['project', 'runs each', 'cold p50', 'cold p95', 'warm p50', 'warm p95'], rows)}
`;
  writeSection('65-survey', markdown);
  console.log(markdown);
}

async function timed(body: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await body();
  return performance.now() - started;
}

const fixed = (value: number) => value.toFixed(1);
