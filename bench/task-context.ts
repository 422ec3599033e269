import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeDelivery } from '../src/activities/delivery/describe-delivery.js';
import { runProcess } from '../src/activities/process/run-process.js';
import { createSandbox } from '../src/activities/process/sandbox.js';
import type { WorkspaceShell } from '../src/activities/tools/run-command.js';
import { BatchInputSchema, type BatchTask } from '../src/shared/batch-input.js';
import type { BatchTaskState } from '../src/shared/batch-state.js';
import { interfaceMismatches } from '../src/shared/delivery.js';
import type { ProjectContext } from '../src/shared/project-context.js';
import { TaskInputSchema } from '../src/shared/task-input.js';
import { childInput } from '../src/workflows/batch/child-input.js';
import { taskContext } from '../src/workflows/batch/task-context.js';
import { buildSystemPrompt } from '../src/workflows/task/prompt.js';
import { stamp, table, writeSection, type BenchEnv } from './harness.js';

/** A PRD of one section per planned feature, each `repeat` sentences (about 100 characters each) long. */
function prdOf(features: string[], repeat: number): string {
  const section = (feature: string) =>
    `## ${feature}\n${`The ${feature} feature stores, lists and validates its records; errors name the field and the value. `.repeat(repeat)}`;
  return `# Bookkeeping tool\nA command-line tool for a small shop.\n\n${features.map(section).join('\n\n')}`;
}

/** Each feature's module: five public functions, as a task would write them. */
const moduleOf = (feature: string) =>
  ['add', 'remove', 'list', 'find', 'validate']
    .map((verb) => `def ${verb}_${feature}(store, ${feature}_id, *, strict=False):\n    return store.get(${feature}_id)\n`)
    .join('\n\n');

const PROJECT: ProjectContext = {
  instructions: [],
  techStack: ['Python'],
  fileTree: 'README.md\npyproject.toml\nsrc/\n  shop/\n    __init__.py',
  greenfield: false,
};

/**
 * Bytes of each task's system prompt (what its first request carries besides the tools) without and with the
 * context a batch now gives: the PRD, the plan in brief and its dependencies' delivered blocks, read from real merges
 * by the same pass the batch runs (Python's `ast` in the sandbox). A chain of features, each using the one before.
 */
export async function benchTaskContext(_env: BenchEnv): Promise<void> {
  const sandbox = createSandbox(process.env);
  const shell: WorkspaceShell = (command, options) =>
    runProcess({ command, cwd: options.workspace, timeoutMs: options.timeoutMs, env: process.env, sandbox, access: options.access });
  const rows: (string | number)[][] = [];
  // The last plan's PRD is past the 20,000-character budget: each task gets its own section.
  for (const [count, repeat] of [
    [3, 9],
    [8, 9],
    [8, 35],
  ]) {
    const features = ['customers', 'invoices', 'payments', 'stock', 'suppliers', 'orders', 'refunds', 'reports'].slice(0, count);
    const prd = prdOf(features, repeat);
    const tasks: BatchTask[] = features.map((feature, index) => ({
      id: feature,
      title: `Build ${feature}`,
      description: `Implement the ${feature} module as the PRD says.`,
      dependsOn: index === 0 ? [] : [features[index - 1]],
      acceptance: [`${feature} has add, remove, list, find and validate`],
      files: [`src/shop/${feature}.py`],
      provides: [`add_${feature}(store, ${feature}_id, strict)`],
      prdSections: [feature],
    }));
    const batch = BatchInputSchema.parse({ workspace: '/w', prd, tasks });
    const states = await deliveredStates(shell, tasks);
    const before: number[] = [];
    const after: number[] = [];
    for (const [index, task] of tasks.entries()) {
      const where = { workspace: '/w', hostQueue: 'q' };
      const plain = TaskInputSchema.parse(childInput(batch, task, states[index], where));
      const given = TaskInputSchema.parse(childInput(batch, task, states[index], where, taskContext(batch, tasks, task, states)));
      before.push(Buffer.byteLength(buildSystemPrompt(plain, PROJECT)));
      after.push(Buffer.byteLength(buildSystemPrompt(given, PROJECT)));
    }
    const mean = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value, 0) / values.length);
    rows.push([
      `${count} tasks, PRD ${(prd.length / 1024).toFixed(1)} KB`,
      mean(before),
      mean(after),
      mean(after) - mean(before),
      `~${Math.round((mean(after) - mean(before)) / 4)}`,
      Math.max(...after),
    ]);
  }
  writeSection(
    '66-task-context',
    `## What each batch task is told

\`npm run bench -- context\`, ${stamp()}. The system prompt of each task of a planned chain (each feature uses the one
before it), without the batch's context (as before: the task's own description and acceptance only) and with it:
the PRD (whole up to 20,000 characters, else the task's own section, as in the last row), the plan in brief, and the delivered block of its completed dependency,
read from a real merge of five Python functions by \`ast\` in the sandbox. Bytes per task prompt, mean over the
plan's tasks; tokens at ~4 bytes a token. The prompt is cached after the first request of a task, so the added
bytes are paid in full once per task and at the cache-read price on later turns.

${table(['plan', 'bytes before', 'bytes after', 'added', 'added tokens', 'largest after'], rows)}`,
  );
}

/** Every task merged in order into a scratch repository, each state holding its delivery as the batch reads it. */
async function deliveredStates(shell: WorkspaceShell, tasks: BatchTask[]): Promise<BatchTaskState[]> {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-context-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo })
      .toString()
      .trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README.md'), '# shop\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  const states: BatchTaskState[] = [];
  for (const task of tasks) {
    const before = git('rev-parse', 'HEAD');
    execFileSync('mkdir', ['-p', path.join(repo, 'src/shop')]);
    writeFileSync(path.join(repo, `src/shop/${task.id}.py`), moduleOf(task.id));
    git('add', '-A');
    git('commit', '-q', '-m', task.id);
    const delivered = await describeDelivery(shell, { taskId: task.id, cwd: repo, before, after: 'HEAD', provides: task.provides });
    states.push({
      id: task.id,
      title: task.title,
      dependsOn: task.dependsOn,
      status: 'completed',
      childWorkflowId: task.id,
      attempts: 1,
      summary: `Added src/shop/${task.id}.py with add, remove, list, find and validate, and tests for each; the tests pass.`,
      delivered,
      interfaceMismatches: interfaceMismatches(task.provides ?? [], delivered.names),
    });
  }
  return states;
}
