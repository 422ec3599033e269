import { fork, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../project-root.js';
import type { TypeCheckReply, TypeCheckRequest } from './type-check-process.js';
import { NEEDS_COMMITTED, type TypeCheckResult } from './type-check-engine.js';

export { formatTypeDiagnostics, type TypeCheckResult, type TypeDiagnostic } from './type-check-engine.js';

/** The type-check process's heap: a project that needs more ends that process, never the worker. */
export const CHECKER_HEAP_MB = 2048;
/** The longest one check or baseline may take; past it the process is ended and the project is not checked again. */
export const CHECK_TIME_LIMIT_MS = 120_000;

/** The incremental checker does not check this project (over its limits); the reason says why, for the model. */
export class TypeCheckUnavailable extends Error {}

/**
 * Projects the checker gave up on, by real path, with why: too large to parse, over the heap, or over the time
 * limit. Their edits get no incremental type feedback (the gates at the end still run the project's own check).
 */
const givenUp = new Map<string, string>();

/**
 * Type errors of a `.ts` edit in a workspace with a `tsconfig.json`, against the project as committed, from the
 * type-check process (see `type-check-process.ts`). `committed` reads a file's committed text (in the sandbox) when
 * the project has no baseline yet; `undefined` means the file is new. Throws `TypeCheckUnavailable` for a project the
 * checker does not check.
 */
export async function checkTypes(
  workspace: string,
  file: string,
  committed: (file: string) => Promise<string | undefined>,
): Promise<TypeCheckResult> {
  const root = realpathSync(workspace);
  const first = await checker.ask(root, { kind: 'check', workspace: root, file, committed: { known: false } });
  if (first !== NEEDS_COMMITTED) return first as TypeCheckResult;
  const text = await committed(file);
  return (await checker.ask(root, { kind: 'check', workspace: root, file, committed: { known: true, text } })) as TypeCheckResult;
}

/**
 * Takes the project as it is now as its baseline, in the type-check process: called when a task binds its workspace,
 * so "before the task" means exactly that. The process first reads (parses and binds) every file, which edits wait
 * for, then checks the whole project in the background; an edit checked meanwhile is compared in the files the edits
 * changed and those that import them, so the first edit's feedback never waits for the whole check.
 */
export async function prepareTypeCheck(workspace: string): Promise<void> {
  const root = realpathSync(workspace);
  const read = checker.ask(root, { kind: 'parse', workspace: root }).then(
    () => true,
    () => false,
  );
  const prepared = read.then(() => undefined);
  preparing.set(root, prepared);
  const parsed = await read;
  if (preparing.get(root) === prepared) preparing.delete(root);
  if (parsed) await checker.ask(root, { kind: 'baseline', workspace: root }).catch(() => undefined);
}

/** Baselines whose files the checker has not read yet, by workspace: it reads them when it gets to the request. */
const preparing = new Map<string, Promise<void>>();

/**
 * Waits until the checker has read the workspace's files for its baseline, if it is doing so: an edit written before
 * would become part of "before the task", and its own errors would go unreported. At once when none is pending.
 */
export async function typeCheckPrepared(workspace: string): Promise<void> {
  const pending = preparing.get(safeRealpath(workspace));
  if (pending) await pending;
}

function safeRealpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

type Request = { kind: 'parse' | 'baseline'; workspace: string } | Omit<Extract<TypeCheckRequest, { kind: 'check' }>, 'id'>;

/**
 * The worker's side of the type-check process: started at the first request, with a heap cap and TypeScript loaded
 * through tsx (it runs the source, like the worker); replies come by request id. A request over the time limit ends
 * the process; a process that ends (its heap, a crash) fails what it held, and the next
 * request starts a new one. The process keeps the worker alive only while a request is in flight.
 */
class TypeChecker {
  private child?: ChildProcess;
  private nextId = 0;
  private readonly waiting = new Map<number, { root: string; sentAt: number; resolve: (reply: TypeCheckReply) => void }>();
  /** The time limit of the oldest request waiting: the one the process has worked on longest. */
  private headTimer?: NodeJS.Timeout;
  private timedOut = false;

  async ask(root: string, request: Request): Promise<unknown> {
    const refused = givenUp.get(root);
    if (refused) throw new TypeCheckUnavailable(refused);
    const reply = await this.send(root, request);
    if (reply.ok) return reply.result;
    if (reply.tooLarge) givenUp.set(root, reply.message);
    throw reply.tooLarge ? new TypeCheckUnavailable(reply.message) : new Error(reply.message);
  }

  private send(root: string, request: Request): Promise<TypeCheckReply> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, { root, sentAt: Date.now(), resolve });
      if (this.waiting.size === 1) this.armHead();
      this.hold(true);
      child.send({ ...request, id } satisfies TypeCheckRequest);
    });
  }

  private start(): ChildProcess {
    const entry = path.join(projectRoot, 'src/activities/verification/type-check-process.ts');
    const child = fork(entry, [], {
      execArgv: ['--import', 'tsx', `--max-old-space-size=${CHECKER_HEAP_MB}`],
      // Nothing of the worker's environment: the checker reads files and needs no secret.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.on('message', (reply: TypeCheckReply) => this.settle(reply.id, reply));
    // A send to a process that just ended; its 'exit' answers what was waiting.
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      // The oldest request waiting is the one the process had worked on longest (a baseline gives way only to checks
      // of edits, which take a fraction of its time): its project is given up; the others only lost their answer.
      const [current, ...rest] = this.waiting.keys();
      if (current === undefined) return;
      const { root } = this.waiting.get(current)!;
      const why = this.timedOut
        ? `checking it took over ${CHECK_TIME_LIMIT_MS / 1000} s, the incremental checker's limit`
        : /heap out of memory|Reached heap limit/.test(stderr)
          ? `checking it took the type-check process over its ${CHECKER_HEAP_MB} MB heap`
          : `the type-check process ended (${signal ?? `exit ${code}`}) while checking it`;
      this.timedOut = false;
      givenUp.set(root, why);
      this.settle(current, { id: current, ok: false, tooLarge: true, message: why });
      for (const id of rest) this.settle(id, { id, ok: false, tooLarge: false, message: 'the type-check process ended; not checked' });
    });
    this.hold(false);
    return child;
  }

  private settle(id: number, reply: TypeCheckReply): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    this.armHead();
    if (this.waiting.size === 0) this.hold(false);
    waiter.resolve(reply);
  }

  private armHead(): void {
    clearTimeout(this.headTimer);
    const child = this.child;
    const [oldest] = this.waiting.values();
    if (!oldest || !child) return;
    this.headTimer = setTimeout(
      () => {
        this.timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(0, oldest.sentAt + CHECK_TIME_LIMIT_MS - Date.now()),
    );
    this.headTimer.unref();
  }

  /** The process keeps the worker's process alive only while a request is in flight. */
  private hold(on: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.channel, child.stderr] as ({ ref(): void; unref(): void } | null | undefined)[])
      if (on) handle?.ref();
      else handle?.unref();
  }
}

const checker = new TypeChecker();
