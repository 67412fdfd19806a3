// The table screen's round model (templates/static/round-model.js) without a browser: its
// local checks over places and fields, "same players and bets", and the live check's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  HIDDEN_UNDER, validate, hasBlockingErrors, setsHands, isActive, applySeats, readAnswer, lowerPlaceName
} from '../../templates/static/round-model.js';

/** A round as readRound would find it: places by id with an action and card texts. */
function round(spec) {
  const places = [];
  const fields = [];
  for (const [id, action, cards] of spec) {
    const place = {
      id, lower: lowerPlaceName(id), title: id, hiddenUnder: HIDDEN_UNDER,
      action: { value: action }, bet: { name: id + '_bet', value: '' }, fields: {}
    };
    for (const [kind, text] of Object.entries(cards)) {
      const count = kind === 'front' ? 3 : kind === 'dealt' ? 13 : 5;
      const f = { input: { value: text }, name: id + '_' + kind, kind, count, place, quiet: false, parsed: null, local: [] };
      place.fields[kind] = f;
      fields.push(f);
    }
    places.push(place);
  }
  return { places, fields, hiddenUnder: HIDDEN_UNDER, serverErrors: {} };
}
const messages = (r) => Object.fromEntries(r.fields.filter((f) => f.local.length).map((f) => [f.name, f.local]));

test('every problem of the round is found at once: a bad card, a count, a card in two places', () => {
  const r = round([
    ['seat1', 'play', { back: 'As Ks Qs Js 1x', middle: '9h 9d 9c 4s', front: 'Ad Kd 2c', dealt: '' }],
    ['seat2', 'play', { back: '2c 3d 4d 5d 6d', middle: '', front: '', dealt: '' }],
    ['dealer', 'play', { back: '', middle: '', front: '' }],
  ]);
  validate(r);
  assert.deepEqual(messages(r), {
    seat1_back: ['card 5 `1x` is not a card (rank 1?)'],
    seat1_middle: ['middle needs 5 cards, has 4'],
    seat1_front: ['2c is also in seat 2 back'],
    seat2_back: ['2c is also in seat 1 front'],
  });
  assert.equal(hasBlockingErrors(r), true);
});

test('a surrendered seat\'s cards are not checked; a royalty keeps only its dealt cards', () => {
  const r = round([
    ['seat1', 'surrender', { back: 'nonsense', dealt: '' }],
    ['seat2', 'royalty', { back: 'As', middle: '', front: '', dealt: 'As Ks' }],
  ]);
  validate(r);
  assert.deepEqual(messages(r), { seat2_dealt: ['dealt needs 13 cards, has 2'] });
  assert.equal(hasBlockingErrors(r), false);
  assert.equal(setsHands(r.places[0]), false);
  assert.equal(setsHands(r.places[1]), false);
  assert.equal(isActive(r.places[1].fields.dealt), true);
  assert.equal(isActive(r.places[1].fields.back), false);
});

test('set hands that are not the dealt cards are named', () => {
  const r = round([['seat1', 'play', {
    back: 'As Ks Qs Js Ts', middle: '9h 9d 9c 4s 4h', front: 'Ad Kd 3c',
    dealt: 'As Ks Qs Js Ts 9h 9d 9c 4s 4h Ad Kd 2c'
  }]]);
  validate(r);
  assert.deepEqual(messages(r), {
    seat1_front: ['set uses 3c, which is not in the dealt cards'],
    seat1_dealt: ['dealt 2c is not in the set hands'],
  });
});

test('"same players and bets" puts empty seats in play and keeps a chosen action', () => {
  const r = round([['seat1', '', {}], ['seat2', 'surrender', {}], ['seat3', '', {}]]);
  r.serverErrors.seat1_bet = 'enter the bet';
  applySeats(r, 'seat1=500;seat2=200;seat9=1');
  assert.deepEqual(r.places.map((p) => [p.action.value, p.bet.value]), [['play', '500'], ['surrender', '200'], ['', '']]);
  assert.deepEqual(r.serverErrors, {});
});

test('the check\'s answer is read defensively; errors without a field on screen are kept apart', () => {
  const a = readAnswer({
    revision: 7, draft_key: 'k1', stored: 'Saved as typed (revision 7), with 2 problems to fix',
    field_errors: { seat1_bet: 'below the minimum', round: 'the round is settled', seat2_back: '' },
    place_notes: { seat3: 'foul: middle above back' }, preview_html: '<table></table>', can_confirm: false,
    confirm_question: 'Confirm 1 seat, house PHP +800.00?'
  }, (name) => name !== 'round');
  assert.deepEqual(a, {
    revision: '7', draftKey: 'k1', confirmQuestion: 'Confirm 1 seat, house PHP +800.00?',
    fieldErrors: { seat1_bet: 'below the minimum' }, stray: ['the round is settled'],
    notes: { seat3: 'foul: middle above back' }, previewHtml: '<table></table>', canConfirm: false,
    stored: 'Saved as typed (revision 7), with 2 problems to fix', problems: 3
  });
  const empty = readAnswer({ field_errors: 'nonsense' }, () => true);
  assert.equal(empty.stored, 'Saved');
  assert.equal(empty.problems, 0);
  assert.equal(empty.revision, null);
});
