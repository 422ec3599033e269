import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../src/activities/process/run-process.js';
import { createSandbox, type Sandbox } from '../src/activities/process/sandbox.js';
import { percentile, stamp, table, writeSection, type BenchEnv } from './harness.js';

const WORKLOADS = [
  { name: '`true`', command: 'true', runs: 200 },
  { name: 'a small test run (`node --test`, 3 tests)', command: 'node --test', runs: 30 },
];

/**
 * What the sandbox costs per command: the same commands through `runProcess`, sandboxed (bubblewrap, a pids cgroup)
 * and unsandboxed (`CODELOOP_SANDBOX=off`), alternating one by one so both see the same machine load.
 */
export async function benchSandboxCost(_env: BenchEnv): Promise<void> {
  const sandboxed = createSandbox(process.env);
  const unsandboxed = createSandbox({ ...process.env, CODELOOP_SANDBOX: 'off' });
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'codeloop-bench-sandbox-'));
  const test = "import test from 'node:test';\nimport assert from 'node:assert';\n";
  writeFileSync(
    path.join(workspace, 'a.test.mjs'),
    `${test}test('a', () => assert.equal(1, 1));\ntest('b', () => {});\ntest('c', () => {});\n`,
  );
  const rows: (string | number)[][] = [];
  for (const workload of WORKLOADS) {
    const on: number[] = [];
    const off: number[] = [];
    for (let run = 0; run < workload.runs; run++) {
      off.push(await timeRun(unsandboxed, workload.command, workspace));
      on.push(await timeRun(sandboxed, workload.command, workspace));
    }
    const [onP50, offP50] = [percentile(on, 50), percentile(off, 50)];
    rows.push([
      workload.name,
      workload.runs,
      fixed(offP50),
      fixed(percentile(off, 95)),
      fixed(onP50),
      fixed(percentile(on, 95)),
      fixed(onP50 - offP50),
    ]);
  }
  const markdown = `## Sandbox cost per command

\`npm run bench -- sandbox\`, ${stamp()}. The same command through \`runProcess\` unsandboxed (\`CODELOOP_SANDBOX=off\`:
coreutils \`timeout\` + \`bash -c\`) and sandboxed (${sandboxed.description}), alternating one run each way; wall
time from spawn to result, in ms. Goal: at most 15 ms added at p50.

${table(['command', 'runs each', 'unsandboxed p50', 'unsandboxed p95', 'sandboxed p50', 'sandboxed p95', 'added p50'], rows)}
`;
  writeSection('60-sandbox', markdown);
  console.log(markdown);
}

async function timeRun(sandbox: Sandbox, command: string, workspace: string): Promise<number> {
  const started = performance.now();
  const result = await runProcess({ command, cwd: workspace, timeoutMs: 60_000, env: process.env, sandbox });
  if (result.exitCode !== 0) throw new Error(`${command} failed ${sandbox.mode === 'on' ? 'sandboxed' : 'unsandboxed'}: ${result.output}`);
  return performance.now() - started;
}

const fixed = (value: number) => value.toFixed(1);
