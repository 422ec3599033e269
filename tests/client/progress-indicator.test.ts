import { describe, expect, test } from 'vitest';
import { Progress } from '../../src/client/progress.js';

/** A stream that records what is written to it, a terminal or not. */
function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { isTTY, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

const CLEAR_LINE = '\r\x1b[2K';

describe('on a terminal', () => {
  test('each status erases the previous one and draws the next spinner frame', () => {
    const { stream, written } = fakeStream(true);
    const progress = new Progress(stream);
    expect(progress.interactive).toBe(true);
    progress.status('running · iteration 1/30');
    progress.status('running · iteration 1/30');
    progress.status('running · iteration 2/30');
    expect(written).toEqual([
      '⠋ running · iteration 1/30',
      CLEAR_LINE,
      '⠙ running · iteration 1/30',
      CLEAR_LINE,
      '⠹ running · iteration 2/30',
    ]);
  });

  test('the spinner wraps after its ten frames', () => {
    const { stream, written } = fakeStream(true);
    const progress = new Progress(stream);
    for (let index = 0; index < 11; index++) progress.status('x');
    const frames = written.filter((chunk) => chunk !== CLEAR_LINE).map((chunk) => chunk.split(' ')[0]);
    expect(frames).toEqual(['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏', '⠋']);
  });

  test('a kept line erases the status line first; clear erases only what is drawn', () => {
    const { stream, written } = fakeStream(true);
    const progress = new Progress(stream);
    progress.log('before any status');
    progress.status('working');
    progress.log('⏸ blocker b1: Ship it?');
    progress.clear();
    expect(written).toEqual(['before any status\n', '⠋ working', CLEAR_LINE, '⏸ blocker b1: Ship it?\n']);
  });
});

describe('not on a terminal', () => {
  test('statuses are plain lines, printed only when they change, with no spinner or escape codes', () => {
    const { stream, written } = fakeStream(false);
    const progress = new Progress(stream);
    expect(progress.interactive).toBe(false);
    progress.status('running · iteration 1/30');
    progress.status('running · iteration 1/30');
    progress.log('  [acting] 1/30 read a.txt');
    progress.status('running · iteration 2/30');
    progress.clear();
    expect(written).toEqual(['running · iteration 1/30\n', '  [acting] 1/30 read a.txt\n', 'running · iteration 2/30\n']);
  });
});
