import type { Word } from 'unbash';
import { isOption, programName } from './command-word.js';

/**
 * Programs that run another program named by their arguments, with the options that take a value (so the value is
 * not taken for that program): `env X=1 nice -n 5 timeout 10 rm …` runs `rm`. `positional` counts arguments the
 * wrapper itself takes before the program (timeout's duration).
 */
const WRAPPERS: Record<string, { valued: string[]; positional?: number; assignments?: boolean }> = {
  env: { valued: ['-u', '--unset', '-C', '--chdir'], assignments: true },
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ['-a'] },
  nice: { valued: ['-n', '--adjustment'] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  time: { valued: ['-f', '--format', '-o', '--output'] },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  ionice: { valued: ['-c', '--class', '-n', '--classdata', '-p', '--pid'] },
  chronic: { valued: [] },
  unbuffer: { valued: [] },
  busybox: { valued: [] },
  xargs: {
    valued: [
      '-I',
      '-n',
      '-P',
      '-L',
      '-d',
      '-E',
      '-s',
      '-a',
      '--max-args',
      '--max-procs',
      '--delimiter',
      '--arg-file',
      '--max-lines',
      '--eof',
      '--max-chars',
    ],
  },
};

/** The words of the program a wrapper chain finally runs; the words themselves when there is no wrapper. */
export function unwrap(words: readonly Word[]): readonly Word[] {
  let rest = words;
  for (let hops = 0; rest.length > 0 && hops < 16; hops += 1) {
    const wrapper = WRAPPERS[programName(rest[0].value)];
    if (!wrapper) return rest;
    let index = 1;
    let positional = wrapper.positional ?? 0;
    while (index < rest.length) {
      const value = rest[index].value;
      if (value === '--') {
        index += 1;
        break;
      }
      if (isOption(value)) index += wrapper.valued.includes(value) ? 2 : 1;
      else if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) index += 1;
      else if (positional > 0) {
        positional -= 1;
        index += 1;
      } else break;
    }
    rest = rest.slice(index);
  }
  return rest;
}
