// The dealer screen's card parser (templates/static/cards.js), under node's test runner:
// `node --test tests/js/` (run by scripts/test).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { parseToken, parseText, tokenize, cardLabel } from '../../templates/static/cards.js';

test('cards are read as the server reads them', () => {
  const cases = [
    ['As', 'As'], ['as', 'As'], ['10h', 'Th'], ['Td', 'Td'], ['2c', '2c'],
    ['K\u2660', 'Ks'], ['q\u2665\uFE0F', 'Qh'], ['J\u2666', 'Jd'], ['9\u2663', '9c'],
  ];
  for (const [typed, card] of cases) {
    assert.deepEqual(parseToken(typed), { card }, typed);
  }
});

test('a token that is not a card says what looks wrong', () => {
  const cases = [
    ['A', 'no suit?'], ['s', 'no rank?'], ['1s', 'rank 1?'], ['Ax', 'suit x?'],
    ['AsKs', 'missing a space?'], ['11h', 'rank 11?'],
    ['hello', 'a card is a rank then a suit, like Ah or 10s'],
  ];
  for (const [typed, hint] of cases) {
    assert.deepEqual(parseToken(typed), { hint }, typed);
  }
});

test('a field is split on spaces and commas, bad tokens reported by position', () => {
  const parsed = parseText('As, Kd 1x ');
  assert.deepEqual(parsed.tokens, ['As', 'Kd', '1x']);
  assert.deepEqual(parsed.cards, ['As', 'Kd', null]);
  assert.deepEqual(parsed.errors, [{ index: 2, token: '1x', hint: 'rank 1?' }]);
  assert.equal(parsed.trailingSep, true);
  assert.deepEqual(tokenize(' , '), []);
});

test('cards are named for screen readers', () => {
  assert.equal(cardLabel('Th'), '10 of hearts');
  assert.equal(cardLabel('As'), 'Ace of spades');
  assert.equal(cardLabel('7c'), '7 of clubs');
});

test('cards typed together are read one by one, as the server reads them', () => {
  assert.deepEqual(tokenize('AsKsQs 10h9\u2660'), ['As', 'Ks', 'Qs', '10h', '9\u2660']);
  assert.deepEqual(parseText('askd').cards, ['As', 'Kd']);
  // The card being typed stays a token of its own; anything else stays whole and is reported.
  assert.deepEqual(tokenize('AsK'), ['As', 'K']);
  assert.deepEqual(tokenize('Ahh'), ['Ahh']);
  assert.deepEqual(tokenize('xAs'), ['xAs']);
  assert.deepEqual(parseText('AsKx').errors, [{ index: 0, token: 'AsKx', hint: 'a card is a rank then a suit, like Ah or 10s' }]);
});
