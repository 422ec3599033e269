import { readFileSync } from 'node:fs';
import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { create, edit, read, run, runTests, search } from './tools.js';

/** The module as the fixture has it: a move keeps its content as it is. */
const UTILS = readFileSync(new URL('../cases/py-refactor-move-module/repo/shop/utils.py', import.meta.url), 'utf8');
const OLD_IMPORT = 'from shop.utils import';
const NEW_IMPORT = 'from shop.prices import';

/** Finds every use, moves the module, rewrites the imports, deletes the old file, runs the tests. */
export const solve: Responder = byTurn([
  { text: 'Finding every use of shop.utils.', toolCalls: [search('shop\\.utils|from \\.utils'), read('shop/utils.py')] },
  { text: 'The new module, with the same content.', toolCalls: [create('shop/prices.py', UTILS)] },
  {
    text: 'Pointing the imports at it.',
    toolCalls: [
      edit('shop/cart.py', [OLD_IMPORT, NEW_IMPORT]),
      edit('shop/report.py', [OLD_IMPORT, NEW_IMPORT]),
      edit('tests/test_prices.py', [OLD_IMPORT, NEW_IMPORT]),
    ],
  },
  { text: 'Deleting the old module.', toolCalls: [run('rm shop/utils.py')] },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Moved parse_price and format_price to shop/prices.py, updated the three imports, deleted shop/utils.py; tests pass.' },
]);

/** Half a refactor: a module under another name, the old one left in place, no import changed. */
export const botch: Responder = byTurn([
  { text: 'Reading the helpers.', toolCalls: [read('shop/utils.py')] },
  { text: 'Copying them to a pricing module.', toolCalls: [create('shop/pricing.py', UTILS)] },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'The price helpers are now in shop/pricing.py.' },
]);
