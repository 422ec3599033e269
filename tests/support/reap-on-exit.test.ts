import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';
import { eventually } from './polling.js';

/** A process that starts two long ones through `reapOnExit` (one in a process group of its own) and exits without stopping them. */
const LEAVES_TWO = `
import { spawn } from 'node:child_process';
import { reapOnExit } from ${JSON.stringify(path.resolve('tests/support/reap-on-exit.ts'))};
const plain = reapOnExit(spawn('sleep', ['60'], { stdio: 'ignore' }));
const grouped = reapOnExit(spawn('sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore', detached: true }), { group: true });
await new Promise((resolve) => setTimeout(resolve, 300));
console.log(JSON.stringify([plain.pid, grouped.pid]));
process.exit(1);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('what a test started and did not stop is killed when its process exits, a process group whole', async () => {
  let output = '';
  try {
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', LEAVES_TWO], { encoding: 'utf8' });
  } catch (error) {
    output = (error as { stdout: string }).stdout;
  }
  const [plain, grouped] = JSON.parse(output) as number[];
  // The group's own `sleep` is a grandchild: only killing the whole group ends it.
  const groupMembers = () => execFileSync('ps', ['-o', 'pid=', '-g', String(grouped)], { encoding: 'utf8' }).trim();
  const groupGone = () => {
    try {
      return groupMembers() === '';
    } catch {
      return true;
    }
  };
  const gone = async () => ({ plain: !alive(plain), group: !alive(grouped) && groupGone() });
  const ended = await eventually(gone, (state) => state.plain && state.group, 'still running', { timeoutMs: 10_000 }).catch(gone);
  expect(ended).toEqual({ plain: true, group: true });
});
