import { AsyncLocalStorage } from 'node:async_hooks';
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram, main } from '../../src/client/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

interface Run {
  env: NodeJS.ProcessEnv;
  stdout: string;
  stderr: string;
}

const current = new AsyncLocalStorage<Run>();
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs one `codeloop` command in this process, as `main` runs it in its own: the same program, with `env` over this
 * process's environment, its output and exit code captured. A spawned command costs about a CPU-second to start and
 * load the Temporal client; in process, one costs what its own work costs. Commands run one at a time (the exit code
 * is the process's), and only they see `env` and have their output taken: whatever else runs in this process, the
 * file's workers included, sees the environment and writes to the streams as before.
 */
export function runCliInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = queue.then(() => runAlone(args, env));
  queue = run.catch(() => undefined);
  return run;
}

async function runAlone(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run: Run = { env: { ...env }, stdout: '', stderr: '' };
  const saved = { env: process.env, console: globalThis.console, exitCode: process.exitCode };
  const streams = { stdout: process.stdout.write, stderr: process.stderr.write };
  const captured = { stdout: sink(run, 'stdout'), stderr: sink(run, 'stderr') };
  const runConsole = new Console({ stdout: captured.stdout, stderr: captured.stderr });
  process.env = environmentOf(saved.env);
  globalThis.console = new Proxy(saved.console, { get: (target, key) => Reflect.get(current.getStore() ? runConsole : target, key) });
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].write = function (this: NodeJS.WriteStream, ...write: Parameters<Writable['write']>) {
      return current.getStore() ? captured[name].write(...write) : streams[name].apply(this, write);
    } as NodeJS.WriteStream['write'];
  }
  process.exitCode = undefined;
  try {
    await current.run(run, () => main(['node', 'codeloop', ...args], withExitOverride(buildProgram())));
    return { code: Number(process.exitCode ?? 0), stdout: run.stdout, stderr: run.stderr };
  } finally {
    process.exitCode = saved.exitCode;
    process.stdout.write = streams.stdout;
    process.stderr.write = streams.stderr;
    globalThis.console = saved.console;
    process.env = saved.env;
  }
}

/** A stream that appends what is written to the run's `stdout` or `stderr`. */
const sink = (run: Run, name: 'stdout' | 'stderr') =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      run[name] += chunk.toString();
      done();
    },
  });

/** Every command throws commander's errors (and `--help`) instead of calling `process.exit`, as `main` expects. */
function withExitOverride(command: Command): Command {
  command.exitOverride();
  for (const sub of command.commands) withExitOverride(sub);
  return command;
}

/**
 * `process.env` as the running command sees it, `env` over `real` (an `undefined` value removes the name, as a spawned
 * process's environment does), and as `real` everywhere else.
 */
function environmentOf(real: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const over = () => current.getStore()?.env;
  const hidden = (key: string | symbol) => typeof key === 'string' && over() !== undefined && key in over()! && over()![key] === undefined;
  const given = (key: string | symbol) => typeof key === 'string' && over()?.[key] !== undefined;
  return new Proxy(real, {
    get: (target, key) => (given(key) ? over()![key as string] : hidden(key) ? undefined : Reflect.get(target, key)),
    has: (target, key) => given(key) || (!hidden(key) && Reflect.has(target, key)),
    set: (target, key, value) => (over() ? ((over()![key as string] = String(value)), true) : Reflect.set(target, key, value)),
    deleteProperty: (target, key) => (over() ? ((over()![key as string] = undefined), true) : Reflect.deleteProperty(target, key)),
    ownKeys: (target) => {
      const keys = new Set([...Reflect.ownKeys(target), ...Object.keys(over() ?? {})]);
      return [...keys].filter((key) => given(key) || (!hidden(key) && Reflect.has(target, key)));
    },
    getOwnPropertyDescriptor: (target, key) =>
      given(key)
        ? { value: over()![key as string], writable: true, enumerable: true, configurable: true }
        : hidden(key)
          ? undefined
          : Reflect.getOwnPropertyDescriptor(target, key),
  });
}
