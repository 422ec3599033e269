import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { edit, read, run } from './tools.js';

const TEST_SCRIPT = '"test": "node node_modules/typescript/bin/tsc -p tsconfig.json && node --test --test-reporter=tap dist/test/"';

/** Reads package.json, adds the one script after the test script, runs it. */
export const solve: Responder = byTurn([
  { text: 'Reading package.json.', toolCalls: [read('package.json')] },
  {
    text: 'Adding the typecheck script beside the test script.',
    toolCalls: [
      edit('package.json', [
        `    ${TEST_SCRIPT}\n`,
        `    ${TEST_SCRIPT},\n    "typecheck": "node node_modules/typescript/bin/tsc --noEmit -p tsconfig.json"\n`,
      ]),
    ],
  },
  { text: 'Trying it.', toolCalls: [run('npm run typecheck --silent')] },
  { text: 'Added "typecheck": tsc --noEmit with the project\'s own compiler; it passes, and package.json is otherwise unchanged.' },
]);
