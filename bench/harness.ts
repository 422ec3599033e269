import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime } from '@temporalio/worker';
import { createCodeloopWorkers } from '../src/create-workers.js';
import { startDevServer, type DevServer } from '../src/server/dev-server.js';
import { workflowBundlerOptions } from '../src/workflow-bundle.js';
import { createWorkerLogger } from '../src/worker-logger.js';
import { freePort } from '../tests/support/free-port.js';
import type { FakeMessagesApi } from '../tests/support/fake-messages-api.js';

export const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsDir = path.join(benchDir, 'results');
const outDir = path.join(benchDir, '.out');

/** One headless dev server and one workflow bundle for a whole bench run, so compared figures share a setup. */
export interface BenchEnv {
  server: DevServer;
  client: Client;
  nativeConnection: NativeConnection;
  bundlePath: string;
  close(): Promise<void>;
}

export async function startBenchEnv(dynamicConfig?: Record<string, unknown>): Promise<BenchEnv> {
  mkdirSync(outDir, { recursive: true });
  const server = await startDevServer({ port: await freePort(), dynamicConfig });
  const bundle = await bundleWorkflowCode({ ...workflowBundlerOptions, logger: silent });
  const bundlePath = path.join(outDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  // Whole histories of long runs exceed gRPC's default 4 MB message limit.
  const connection = await Connection.connect({
    address: server.address,
    channelArgs: { 'grpc.max_receive_message_length': 256 * 1024 * 1024 },
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  return {
    server,
    client: new Client({ connection }),
    nativeConnection,
    bundlePath,
    async close() {
      await nativeConnection.close();
      await connection.close();
      await server.stop();
    },
  };
}

/**
 * The workflows as they were at `ref` (a commit, tag or branch of this repository), bundled from a detached worktree
 * under bench/.out, to run against today's activities in the same bench run: a before/after measured side by side.
 */
export async function bundleAt(ref: string): Promise<{ commit: string; bundlePath: string }> {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: benchDir, encoding: 'utf8' }).trim();
  const tree = path.join(outDir, `at-${commit}`);
  if (!existsSync(tree)) execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: benchDir, stdio: 'ignore' });
  // Bundled as that commit bundled its workflows: with `builtOnce` preloaded once it had it.
  const preload = path.join(tree, 'src/shared/built-once.ts');
  const preloadModules = existsSync(preload) ? [preload] : [];
  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(tree, 'src/workflows/index.ts'), preloadModules, logger: silent });
  const bundlePath = path.join(outDir, `workflow-bundle-${commit}.js`);
  writeFileSync(bundlePath, bundle.code);
  return { commit, bundlePath };
}

export async function withWorkers<T>(
  env: BenchEnv,
  fake: FakeMessagesApi,
  taskQueue: string,
  body: () => Promise<T>,
  bundlePath = env.bundlePath,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<T> {
  const workers = await createCodeloopWorkers({
    connection: env.nativeConnection,
    taskQueue,
    hostId: 'bench',
    workflowBundlePath: bundlePath,
    // Payloads inline unless a bench sets a store: the bench's own client reads results without codecs.
    env: {
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      CODELOOP_MODEL: 'bench-model',
      CODELOOP_PAYLOAD_STORE: 'off',
      ...extraEnv,
    },
  });
  const running = workers.run();
  try {
    return await body();
  } finally {
    workers.shutdown();
    await running;
  }
}

export function installQuietRuntime(): void {
  Runtime.install({ logger: createWorkerLogger('ERROR') });
}

/** Writes one benchmark's section; RESULTS.md is rebuilt from every section, so one bench can be re-run alone. */
export function writeSection(name: string, markdown: string): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, `${name}.md`), `${markdown.trim()}\n`);
  const sections = readdirSync(resultsDir)
    .filter((file) => file.endsWith('.md'))
    .sort();
  const body = sections.map((file) => readFileSync(path.join(resultsDir, file), 'utf8')).join('\n');
  writeFileSync(
    path.join(benchDir, 'RESULTS.md'),
    `# Benchmark results\n\nProduced by \`npm run bench\` (each section names the command that measured it and when).\nMachine: ${machine()}.\n\n${body}`,
  );
}

export function machine(): string {
  return `${process.platform}/${process.arch}, Node ${process.version}`;
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The nearest-rank percentile: the smallest value with at least `p`% of the values at or below it. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const stamp = () => new Date().toISOString().slice(0, 16).replace('T', ' ');

export const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (message: string) => console.error(message) };
