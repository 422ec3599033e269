import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { ask, edit, read, runTests } from './tools.js';

const FORMAT = '    """1234 cents as "12.34"."""\n    return f"{cents // 100}.{cents % 100:02d}"';
const TEST = '    assert total_line(1234).startswith("Total: ")\n';

/** Asks before deciding a business question, then does what the answer says. */
export const solve: Responder = byTurn([
  { text: 'Reading the formatting code.', toolCalls: [read('invoice/format.py'), read('tests/test_format.py')] },
  {
    text: 'The currency is the accounting team’s call, as the task says.',
    toolCalls: [ask('Which currency should invoice totals show, and does its symbol go before or after the amount?')],
  },
  {
    text: 'Euro after the amount, as answered.',
    toolCalls: [
      edit('invoice/format.py', [FORMAT, '    """1234 cents as "12.34 €"."""\n    return f"{cents // 100}.{cents % 100:02d} €"']),
    ],
  },
  {
    text: 'A test for it.',
    toolCalls: [
      edit('tests/test_format.py', [TEST, `${TEST}\n\ndef test_totals_are_in_euro():\n    assert total_line(1234) == "Total: 12.34 €"\n`]),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Invoice totals now read "12.34 €", as the accounting team asked; a test covers it.' },
]);
