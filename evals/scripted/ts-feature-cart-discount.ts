import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { edit, read, runTests } from './tools.js';

const CLASS_START = 'export class Cart {\n  private readonly lines: CartLine[] = [];';
const TOTAL = '  totalCents(): number {\n    return this.subtotalCents();\n  }';
const TEST_ANCHOR = "test('a quantity below 1 is refused', () => {";

/** Reads, adds the table and the method, adds tests, runs them. */
export const solve: Responder = byTurn([
  { text: 'Reading the cart and its tests.', toolCalls: [read('src/cart.ts'), read('test/cart.test.ts')] },
  {
    text: 'A table of codes, applyDiscount, and the discount in totalCents.',
    toolCalls: [
      edit(
        'src/cart.ts',
        [
          CLASS_START,
          '/** Discount codes and the share of the subtotal each takes off. */\nexport const DISCOUNTS: Record<string, number> = { SAVE10: 0.1, SAVE25: 0.25 };\n\n' +
            `${CLASS_START}\n  private discount = 0;`,
        ],
        [
          TOTAL,
          '  applyDiscount(code: string): void {\n    const discount = DISCOUNTS[code];\n' +
            '    if (discount === undefined) throw new Error(`unknown discount code ${code}`);\n    this.discount = discount;\n  }\n\n' +
            '  totalCents(): number {\n    return Math.floor(this.subtotalCents() * (1 - this.discount));\n  }',
        ],
      ),
    ],
  },
  {
    text: 'Tests for the codes.',
    toolCalls: [
      edit('test/cart.test.ts', [
        TEST_ANCHOR,
        "test('SAVE10 takes 10% off, rounded down', () => {\n  const cart = new Cart();\n  cart.add({ sku: 'tea', priceCents: 355, quantity: 1 });\n" +
          "  cart.applyDiscount('SAVE10');\n  assert.equal(cart.totalCents(), 319);\n});\n\n" +
          "test('an unknown code is refused', () => {\n  assert.throws(() => new Cart().applyDiscount('NOPE'), /NOPE/);\n});\n\n" +
          TEST_ANCHOR,
      ]),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Cart.applyDiscount(code) takes SAVE10 or SAVE25 from DISCOUNTS and refuses others; totalCents() rounds down. Tests pass.' },
]);
