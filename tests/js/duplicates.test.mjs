// The dealer screen's duplicate check (templates/static/duplicates.js), under node's test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { duplicates } from '../../templates/static/duplicates.js';

const where = (f) => f.place + ' ' + f.kind;

test('a card in one seat\'s dealt cards and another seat\'s middle is marked in both', () => {
  const got = duplicates([
    { name: 'seat1_dealt', place: 'seat 1', kind: 'dealt', cards: ['9h', 'As'] },
    { name: 'seat1_back', place: 'seat 1', kind: 'back', cards: ['As'] },
    { name: 'seat2_middle', place: 'seat 2', kind: 'middle', cards: ['9h'] },
  ], where);
  assert.deepEqual(Object.fromEntries(got), {
    seat1_dealt: '9h is also in seat 2 middle',
    seat2_middle: '9h is also in seat 1 dealt',
  });
});

test('two hands of one place clash; a place\'s dealt cards and its hands do not', () => {
  const got = duplicates([
    { name: 'dealer_dealt', place: 'dealer', kind: 'dealt', cards: ['Kd'] },
    { name: 'dealer_back', place: 'dealer', kind: 'back', cards: ['Kd', '2c'] },
    { name: 'dealer_front', place: 'dealer', kind: 'front', cards: ['2c', '3c', '3c'] },
  ], where);
  assert.deepEqual(Object.fromEntries(got), {
    dealer_back: '2c is also in dealer front',
    dealer_front: '3c is entered twice',
  });
});
