import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { gitEnvironment } from './git-environment.js';

export interface GitExit {
  /** git's exit code; -1 when it could not run or its output was too large. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The helper's whole program, run by `node -e`: one JSON request per line in (`id`, `args`, `cwd`, and `env`, added to
 * the helper's own), one reply per line out, any number at once. git's stdin is closed at once, as if it had none; the
 * helper ends when its own stdin does.
 */
const HELPER = `
const { execFile } = require('node:child_process');
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, args, cwd, env } = JSON.parse(line);
  const child = execFile('git', args, { cwd, env: { ...process.env, ...env }, maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
    const code = !error ? 0 : typeof error.code === 'number' ? error.code : -1;
    const reply = { id, code, stdout, stderr: code === -1 ? String(stderr) + error.message : stderr };
    process.stdout.write(JSON.stringify(reply) + '\\n');
  });
  child.stdin.end();
});
lines.on('close', () => process.exit(0));
`;

/**
 * Runs git from a small helper process instead of the worker. A process spawned by the worker blocks the worker's
 * event loop while it forks (about 3.5 ms per git run through execa, measured), and that loop also dispatches
 * activities and completes workflow tasks; a batch runs six or more git commands per task. Through the helper the worker
 * only writes and reads a line (about 0.2 ms). The helper holds the worker's process open only while a command runs,
 * ends when the worker does (its stdin closes), and if it dies the commands in flight fail and the next starts a new one.
 */
class GitHost {
  private helper?: ChildProcess;
  private readonly waiting = new Map<number, { resolve: (exit: GitExit) => void; reject: (error: Error) => void }>();
  private nextId = 0;

  run(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitExit> {
    const helper = this.helper ?? this.start();
    const id = this.nextId++;
    return new Promise<GitExit>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.hold(true);
      helper.stdin!.write(`${JSON.stringify({ id, args, cwd, env })}\n`);
    });
  }

  private start(): ChildProcess {
    // The helper, and every git it runs, has codeloop's fixed environment for git, never the worker's: see gitEnvironment.
    const helper = spawn(process.execPath, ['-e', HELPER], {
      env: gitEnvironment(),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.helper = helper;
    readline.createInterface({ input: helper.stdout! }).on('line', (line) => {
      const { id, ...exit } = JSON.parse(line) as GitExit & { id: number };
      this.waiting.get(id)?.resolve(exit);
      this.settled(id);
    });
    const lost = (why: string) => {
      if (this.helper === helper) this.helper = undefined;
      for (const [id, waiter] of this.waiting) {
        waiter.reject(new Error(`the git helper process ${why}; the command did not finish`));
        this.settled(id);
      }
    };
    helper.on('error', (error) => lost(`failed: ${error.message}`));
    helper.on('exit', (code, signal) => lost(`ended (${signal ?? `exit ${code}`})`));
    helper.stdin!.on('error', () => undefined); // reported by 'exit'
    this.hold(false);
    return helper;
  }

  private settled(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.hold(false);
  }

  /** The helper keeps the worker's process alive only while a command is in flight. */
  private hold(on: boolean): void {
    const helper = this.helper;
    if (!helper) return;
    for (const handle of [helper, helper.stdin, helper.stdout] as ({ ref(): void; unref(): void } | null)[])
      if (on) handle?.ref();
      else handle?.unref();
  }
}

export const gitHost = new GitHost();
