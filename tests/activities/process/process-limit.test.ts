import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createProcessLimit } from '../../../src/activities/process/process-limit.js';

const limit = createProcessLimit(64);

test.runIf(limit)("a worker starting up removes a dead worker's empty groups, never a live one's that waits for its command", async () => {
  const base = limit!.location;
  // A live worker between creating its group and starting its command: the group is still empty.
  const entered = limit!.enter(['true']);
  const [group] = readdirSync(base).filter((name) => name.startsWith(`cmd-${process.pid}-`));
  // A dead worker's leftover: no process has that pid (pid_max is below 2^22).
  const stale = path.join(base, 'cmd-4194999-deadbeef');
  mkdirSync(stale);

  createProcessLimit(64); // what another worker does when it starts

  expect(existsSync(stale)).toBe(false);
  expect(existsSync(path.join(base, group))).toBe(true);
  const [file, ...args] = entered.argv;
  expect(spawnSync(file, args).status).toBe(0);
  await entered.release();
  expect(existsSync(path.join(base, group))).toBe(false);
  if (existsSync(stale)) rmdirSync(stale);
});
