// Hidden from the agent: discount codes as the task describes them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Cart } from '../src/cart.js';

const cartOf = (priceCents: number) => {
  const cart = new Cart();
  cart.add({ sku: 'item', priceCents, quantity: 1 });
  return cart;
};

test('SAVE10 and SAVE25 take their percentage off the total', () => {
  const ten = cartOf(1000);
  ten.applyDiscount('SAVE10');
  assert.equal(ten.totalCents(), 900);
  const quarter = cartOf(1000);
  quarter.applyDiscount('SAVE25');
  assert.equal(quarter.totalCents(), 750);
});

test('the discounted total is rounded down to a whole cent', () => {
  const cart = cartOf(999);
  cart.applyDiscount('SAVE25');
  assert.equal(cart.totalCents(), 749);
});

test('an unknown code is refused and changes nothing', () => {
  const cart = cartOf(1000);
  assert.throws(() => cart.applyDiscount('FREE'), /FREE/);
  assert.equal(cart.totalCents(), 1000);
});

test('the subtotal is before the discount', () => {
  const cart = cartOf(1000);
  cart.applyDiscount('SAVE10');
  assert.equal(cart.subtotalCents(), 1000);
});
