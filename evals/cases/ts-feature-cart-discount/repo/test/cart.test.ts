import test from 'node:test';
import assert from 'node:assert/strict';
import { Cart } from '../src/cart.js';

test('lines of the same sku add up', () => {
  const cart = new Cart();
  cart.add({ sku: 'tea', priceCents: 350, quantity: 2 });
  cart.add({ sku: 'tea', priceCents: 350, quantity: 1 });
  cart.add({ sku: 'cake', priceCents: 425, quantity: 1 });
  assert.equal(cart.subtotalCents(), 1475);
  assert.equal(cart.totalCents(), 1475);
});

test('a quantity below 1 is refused', () => {
  assert.throws(() => new Cart().add({ sku: 'tea', priceCents: 350, quantity: 0 }), /quantity/);
});
