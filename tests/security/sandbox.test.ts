import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProcess } from '../../src/activities/process/run-process.js';
import { createSandbox, MAX_FILE_KIB, MAX_PROCESSES } from '../../src/activities/process/sandbox.js';
import { runWorkspaceCommand } from '../../src/activities/tools/run-command.js';
import { runWorkspaceTests } from '../../src/activities/tools/run-tests.js';
import { lintFile } from '../../src/activities/verification/lint.js';
import { runGate } from '../../src/activities/verification/run-gate.js';
import { startTaskBranch } from '../../src/activities/git/task-branch.js';
import { runSandboxed, sandboxedShell, testSandbox } from '../support/sandbox.js';
import { makeGitRepo, makeWorkspace } from '../support/workspace.js';

/**
 * What a hostile model's commands try, run the way the worker runs them (the real sandbox, the worker's real
 * environment), each asserting the outcome: nothing outside the workspace read or written, no secret shown, no
 * process left behind.
 */

const SECRET = `sk-ant-secret-${process.pid}-${Date.now()}`;
const WORKER_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  ANTHROPIC_API_KEY: SECRET,
  DATABASE_URL: `postgres://u:${SECRET}@db/x`,
  MYSQL_PWD: SECRET,
  SLACK_WEBHOOK_URL: `https://hooks.example/${SECRET}`,
  AWS_SECRET_ACCESS_KEY: SECRET,
  GITHUB_TOKEN: SECRET,
};
const shell = sandboxedShell(WORKER_ENV);
const run = (command: string, workspace = makeWorkspace(), timeout = 30) => runWorkspaceCommand(shell, workspace, { command, timeout });

/** A directory outside every workspace, holding a file no command may read or change. */
const outside = mkdtempSync(path.join(os.tmpdir(), 'codeloop-outside-'));
writeFileSync(path.join(outside, 'secret.txt'), SECRET);

beforeAll(() => {
  // The worker process itself holds the secret, as a real worker holds its key.
  process.env.CODELOOP_TEST_WORKER_SECRET = SECRET;
});
afterAll(() => {
  delete process.env.CODELOOP_TEST_WORKER_SECRET;
});

/** Processes on the host whose command line holds `marker`. */
function survivors(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => !line.includes('pgrep'));
  } catch {
    return [];
  }
}

describe('secrets', () => {
  test("the worker's environment cannot be read through /proc (grandparent environ trick)", async () => {
    const result = await run(
      "GP=$(awk '{print $4}' /proc/$PPID/stat); tr '\\0' '\\n' < /proc/$GP/environ; cat /proc/*/environ | tr '\\0' '\\n'; ls /proc",
    );
    expect(result.content).not.toContain(SECRET);
    // Only the sandbox's own processes exist in its /proc: a handful of pids, none of them the worker.
    const pids = result.content
      .split('\n')
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
    expect(pids.length).toBeLessThan(10);
    expect(pids).not.toContain(process.pid);
  });

  test('the environment is an allow-list: connection strings and passwords under any name stay out', async () => {
    const result = await run('env');
    expect(result.isError).toBe(false);
    expect(result.content).not.toContain(SECRET);
    for (const name of ['DATABASE_URL', 'MYSQL_PWD', 'SLACK_WEBHOOK_URL', 'ANTHROPIC_API_KEY', 'TEMPORAL_ADDRESS'])
      expect(result.content).not.toContain(`${name}=`);
    expect(result.content).toContain('PATH=');
    expect(result.content).toContain('HOME=/home/codeloop');
  });

  test('a task that lists a variable by name gets that one and no other', async () => {
    const workspace = makeWorkspace();
    const result = await shell('echo "db=$DATABASE_URL pwd=$MYSQL_PWD"', {
      workspace,
      timeoutMs: 10_000,
      access: { network: 'off', env: ['DATABASE_URL'] },
    });
    expect(result.output).toContain(`db=postgres://u:${SECRET}@db/x pwd=\n`);
  });

  test("the worker's home, /root, /etc/shadow, other workspaces and files outside are not readable", async () => {
    const other = makeWorkspace({ 'private.txt': SECRET });
    const home = os.homedir();
    const result = await run(
      [
        `cat ${outside}/secret.txt`,
        `cat ${other}/private.txt`,
        `ls -a ${home}`,
        'ls -a /root',
        'cat /etc/shadow',
        `ls ${home}/.ssh`,
        `cat ${home}/.npmrc`,
      ].join('; '),
    );
    expect(result.content).not.toContain(SECRET);
    expect(result.content).not.toMatch(/^root:/m);
    expect(result.content).toContain(`${home}/.ssh': No such file or directory`);
    // The home shows only the toolchains on PATH (bound read-only), never its dotfiles.
    expect(result.content).not.toContain('.bashrc');
    expect(result.content).not.toContain('.gitconfig');
  });

  test('the command is not root and holds no capabilities', async () => {
    const result = await run('id -u; grep CapEff /proc/self/status');
    expect(result.content).toMatch(/\n1000\nCapEff:\s+0+\n?$/);
  });
});

describe('writes stay in the workspace', () => {
  test('writing to the host outside the workspace fails; /tmp and the home are private', async () => {
    const workspace = makeWorkspace();
    const marker = `codeloop-escape-${process.pid}`;
    const result = await run(
      [
        `echo x > ${outside}/written.txt`,
        `echo x > /tmp/${marker}`,
        `echo x > ~/${marker}`,
        `touch /var/tmp/${marker}`,
        `touch /etc/${marker}`,
        'echo ok > inside.txt',
      ].join('; '),
      workspace,
    );
    expect(existsSync(path.join(outside, 'written.txt'))).toBe(false);
    expect(existsSync(path.join('/tmp', marker))).toBe(false);
    expect(existsSync(path.join(os.homedir(), marker))).toBe(false);
    expect(existsSync(path.join('/var/tmp', marker))).toBe(false);
    expect(existsSync(path.join('/etc', marker))).toBe(false);
    expect(existsSync(path.join(workspace, 'inside.txt'))).toBe(true);
    expect(result.content).toContain(`/etc/${marker}': Read-only file system`);
  });

  test('a read-only toolchain directory under /tmp stays visible over the private /tmp, and stays read-only', async () => {
    const toolchain = mkdtempSync(path.join(os.tmpdir(), 'codeloop-toolchain-'));
    writeFileSync(path.join(toolchain, 'tool.txt'), 'tool');
    const env = { ...process.env, CODELOOP_SANDBOX_READONLY: toolchain };
    const result = await runProcess({
      command: `cat ${toolchain}/tool.txt; echo x > ${toolchain}/written.txt`,
      cwd: makeWorkspace(),
      timeoutMs: 10_000,
      env,
      sandbox: createSandbox(env),
    });
    expect(result.output).toMatch(/^tool.*Read-only file system/s);
    expect(existsSync(path.join(toolchain, 'written.txt'))).toBe(false);
  });

  test('run_tests with a package.json test script that writes outside: it runs, sandboxed', async () => {
    const target = path.join(outside, 'from-test-script.txt');
    const workspace = makeWorkspace({
      'package.json': JSON.stringify({ scripts: { test: `echo pwned > ${target}; rm -rf ${outside}; echo ran` } }),
    });
    const result = await runWorkspaceTests(shell, workspace, {});
    expect(result.content).toContain('ran');
    expect(existsSync(target)).toBe(false);
    expect(existsSync(path.join(outside, 'secret.txt'))).toBe(true);
  });

  test('a codeloop.json gate that writes outside runs sandboxed', async () => {
    const target = path.join(outside, 'from-gate.txt');
    const workspace = makeWorkspace();
    const result = await runGate(shell, workspace, { name: 'evil', command: `touch ${target}`, timeoutSeconds: 30 });
    expect(result.passed).toBe(false);
    expect(existsSync(target)).toBe(false);
  });

  test('a linter the workspace provides (a stand-in eslint) runs sandboxed', async () => {
    const target = path.join(outside, 'from-linter.txt');
    const workspace = makeWorkspace({ 'eslint.config.js': 'export default [];\n', 'a.js': 'x\n' });
    mkdirSync(path.join(workspace, 'node_modules/.bin'), { recursive: true });
    writeFileSync(path.join(workspace, 'node_modules/.bin/eslint'), `#!/bin/sh\ntouch ${target}\ncat /proc/*/environ\nexit 0\n`, {
      mode: 0o755,
    });
    const report = await lintFile(shell, workspace, 'a.js');
    expect(report?.linter).toBe('eslint');
    expect(existsSync(target)).toBe(false);
  });

  test(".git is read-only inside: no hook or config the worker's git would run can be planted", async () => {
    const repo = makeGitRepo();
    const result = await run(
      'echo "#!/bin/sh" > .git/hooks/post-commit; git config core.fsmonitor "touch /tmp/x"; echo changed > README.md',
      repo,
    );
    expect(existsSync(path.join(repo, '.git/hooks/post-commit'))).toBe(false);
    expect(spawnSync('git', ['config', '--get', 'core.fsmonitor'], { cwd: repo, encoding: 'utf8' }).stdout).toBe('');
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('changed\n');
    expect(result.content).toContain('Read-only file system');
  }, 20_000);

  test("a task worktree is seen at its checkout's path, with the checkout's dependencies copy-on-write: the task's writes never reach the checkout", async () => {
    const secret = mkdtempSync(path.join(os.tmpdir(), 'codeloop-secret-'));
    writeFileSync(path.join(secret, 'token'), 'do-not-read\n');
    const repo = makeGitRepo({ '.gitignore': 'node_modules\n', 'app.js': 'task\n' });
    mkdirSync(path.join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(path.join(repo, 'node_modules', 'dep', 'index.js'), 'dep\n');
    const started = await startTaskBranch({ workspace: repo, taskId: 'cow-deps' });
    if (started.inPlace) throw new Error('expected a branch');
    writeFileSync(path.join(started.worktree, 'app.js'), 'changed by the task\n');
    const inside = await run(
      'pwd; cat app.js; cat node_modules/dep/index.js; echo x > node_modules/dep/index.js && mkdir -p node_modules/.cache && echo c > node_modules/.cache/x && echo wrote; git status --porcelain; git show HEAD:app.js',
      started.workspace,
    );
    expect(inside.isError).toBeFalsy();
    expect(inside.content).toMatch(new RegExp(`\\n${repo}\\nchanged by the task\\ndep\\nwrote\\n M app.js\\ntask\\n?$`));
    // The checkout's own files and dependencies are untouched; the next command of the task sees its own writes.
    expect(readFileSync(path.join(repo, 'app.js'), 'utf8')).toBe('task\n');
    expect(readFileSync(path.join(repo, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('dep\n');
    expect(existsSync(path.join(repo, 'node_modules', '.cache'))).toBe(false);
    expect((await run('cat node_modules/dep/index.js node_modules/.cache/x', started.workspace)).content).toMatch(/\nx\nc\n?$/);
    // The agent's own link to a directory of the worker's leads nowhere inside.
    const repointed = await run(`ln -s ${secret} elsewhere; cat elsewhere/token || echo unreachable`, started.workspace);
    expect(repointed.content).not.toContain('do-not-read');
    expect(repointed.content).toContain('unreachable');
  }, 30_000);
});

describe('network', () => {
  let server: ReturnType<typeof createServer>;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the worker host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => server.close());

  const connect = () =>
    `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), timeout=3); print(s.recv(100).decode())"`;

  test("off by default: a server on the worker's loopback (the Temporal frontend, say) cannot be reached", async () => {
    const result = await run(connect());
    expect(result.isError).toBe(true);
    expect(result.content).not.toContain('hello from the worker host');
    expect(result.content).toMatch(/Connection refused|Network is unreachable/);
  });

  test('network "on" shares the host network', async () => {
    const workspace = makeWorkspace();
    const result = await shell(connect(), { workspace, timeoutMs: 10_000, access: { network: 'on', env: [] } });
    expect(result.output).toContain('hello from the worker host');
  });
});

describe('zero survivors', () => {
  test('setsid, setsid -f, nohup and a double-forked setsid daemon are all gone when the command returns', async () => {
    const marker = `4${process.pid % 1000}.${Date.now() % 100000}`;
    const daemon = `python3 -c "import os,time\nif os.fork()==0:\n  os.setsid()\n  if os.fork()==0:\n    time.sleep(${marker}1)\n  os._exit(0)"`;
    const started = Date.now();
    const result = await run(
      `setsid sleep ${marker}2 & setsid -f sleep ${marker}3; nohup sleep ${marker}4 >/dev/null 2>&1 & ${daemon}; echo started`,
    );
    expect(result.content).toContain('started');
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors(marker)).toEqual([]);
  });

  test('a daemon that keeps stdout open does not hold the command past its end', async () => {
    const marker = `5${process.pid % 1000}.${Date.now() % 100000}`;
    const daemon = `python3 -c "import os,time\nif os.fork()==0:\n  os.setsid()\n  if os.fork()==0:\n    print('daemon up', flush=True); time.sleep(${marker})\n  os._exit(0)"`;
    const started = Date.now();
    const result = await run(daemon, makeWorkspace(), 60);
    expect(result.content).toContain('exit code 0');
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors(marker)).toEqual([]);
  });

  test('a timeout ends everything the command started, and says so in seconds', async () => {
    const marker = `6${process.pid % 1000}.${Date.now() % 100000}`;
    const result = await run(`setsid sleep ${marker} & sleep 30`, makeWorkspace(), 1);
    expect(result.content).toContain('timed out after 1 s');
    expect(result.content).not.toContain('exit code');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors(marker)).toEqual([]);
  });

  test('a cancelled command ends at once, everything it started with it', async () => {
    const marker = `7${process.pid % 1000}.${Date.now() % 100000}`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = Date.now();
    const cancelled = await runProcess({
      command: `setsid sleep ${marker} & sleep 30`,
      cwd: makeWorkspace(),
      timeoutMs: 60_000,
      env: process.env,
      sandbox: testSandbox,
      signal: controller.signal,
    });
    expect(cancelled.cancelled).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors(marker)).toEqual([]);
  });
});

describe('limits', () => {
  test(`a fork bomb stops at ${MAX_PROCESSES} processes and the worker lives`, async () => {
    const bomb =
      'python3 -c "import os,time\nn=0\ntry:\n  while True:\n    if os.fork()==0:\n      time.sleep(30); os._exit(0)\n    n+=1\nexcept OSError as e:\n  print(\'stopped at\', n, e.strerror)"';
    const started = Date.now();
    const result = await run(bomb, makeWorkspace(), 20);
    const count = Number(/stopped at (\d+)/.exec(result.content)?.[1]);
    expect(count).toBeGreaterThan(10);
    expect(count).toBeLessThan(MAX_PROCESSES);
    expect(Date.now() - started).toBeLessThan(20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors('time.sleep(30)')).toEqual([]);
  }, 30_000);

  test('a 100 MB writer costs the worker about a megabyte and is reported as the success it was', async () => {
    const before = process.memoryUsage().rss;
    const result = await runSandboxed("head -c 100000000 /dev/zero | tr '\\0' a", makeWorkspace(), { timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    expect(result.outputBytes).toBe(100_000_000);
    expect(result.output.length).toBeLessThan(1_300_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(60_000_000);
    const described = await run("head -c 100000000 /dev/zero | tr '\\0' a");
    expect(described.isError).toBe(false);
    expect(described.content).toMatch(
      /exit code 0 in [0-9.]+s\n\(the command wrote 100,000,000 bytes of output; only its beginning and end were kept\)/,
    );
  }, 60_000);

  test('a file past the size limit ends the writer', async () => {
    const workspace = makeWorkspace();
    const result = await run(`head -c ${(MAX_FILE_KIB + 1024) * 1024} /dev/zero > big.bin`, workspace, 120);
    expect(result.isError).toBe(true);
    expect(statSync(path.join(workspace, 'big.bin')).size).toBeLessThanOrEqual(MAX_FILE_KIB * 1024);
    expect(readdirSync(workspace)).toEqual(['big.bin']);
    execFileSync('rm', ['-f', path.join(workspace, 'big.bin')]);
  }, 120_000);
});

test('the sandbox is on for these tests, as on the worker', () => {
  expect(testSandbox.mode).toBe('on');
});
