import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { edit, runTests, search } from './tools.js';

/** Finds every use, renames each, checks none is left, runs the tests. */
export const solve: Responder = byTurn([
  { text: 'Finding every use of getUsr.', toolCalls: [search('getUsr')] },
  {
    text: 'Renaming the definition and each use.',
    toolCalls: [
      edit('src/users.ts', ['export function getUsr(id: number): User {', 'export function getUser(id: number): User {']),
      edit(
        'src/report.ts',
        ["import { getUsr, listUserIds } from './users.js';", "import { getUser, listUserIds } from './users.js';"],
        ['      const user = getUsr(id);', '      const user = getUser(id);'],
      ),
      edit(
        'test/users.test.ts',
        ["import { getUsr } from '../src/users.js';", "import { getUser } from '../src/users.js';"],
        [
          "  assert.equal(getUsr(2).name, 'Alan Turing');\n  assert.throws(() => getUsr(3), /no user 3/);",
          "  assert.equal(getUser(2).name, 'Alan Turing');\n  assert.throws(() => getUser(3), /no user 3/);",
        ],
      ),
    ],
  },
  { text: 'Checking nothing is left under the old name.', toolCalls: [search('getUsr')] },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Renamed getUsr to getUser in src/users.ts, src/report.ts and the tests; no use of the old name is left. Tests pass.' },
]);
