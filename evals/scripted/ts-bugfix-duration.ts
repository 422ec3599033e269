import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { edit, read, runTests } from './tools.js';

const ANCHOR = "test('minutes and seconds', () => {";

/** Reads, fixes the hour, adds a regression test, runs the tests. */
export const solve: Responder = byTurn([
  { text: 'Reading the parser and its tests.', toolCalls: [read('src/duration.ts'), read('test/duration.test.ts')] },
  { text: 'An hour is 3600 seconds.', toolCalls: [edit('src/duration.ts', ['{ h: 360, m: 60, s: 1 }', '{ h: 3600, m: 60, s: 1 }'])] },
  {
    text: 'A regression test.',
    toolCalls: [
      edit('test/duration.test.ts', [
        ANCHOR,
        `test('hours', () => {\n  assert.equal(parseDuration('1h'), 3600);\n  assert.equal(parseDuration('1h30m'), 5400);\n});\n\n${ANCHOR}`,
      ]),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'SECONDS_PER_UNIT had 360 for an hour; it is 3600 now, and a test covers 1h and 1h30m.' },
]);
