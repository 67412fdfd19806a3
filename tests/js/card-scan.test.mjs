// The table screen's card scan (templates/static/card-scan.js): what a code read by the camera
// gives as a card number, under node's test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { cardFromScan, canScan } from '../../templates/static/card-scan.js';

test('a code holding a card number gives it as stored: no spaces or dashes, in capitals', () => {
  assert.equal(cardFromScan('RC1001'), 'RC1001');
  assert.equal(cardFromScan(' rc-1001 \n'), 'RC1001');
  assert.equal(cardFromScan('4006 3811 3343'), '400638113343');
  assert.equal(cardFromScan('ABCD'), 'ABCD');
  assert.equal(cardFromScan('A'.repeat(20)), 'A'.repeat(20));
});

test('a code holding anything else is no card number', () => {
  for (const junk of ['', '   ', 'RC1', 'A'.repeat(21), 'https://example.com/RC1001', 'RC 10.01',
    'RC1001;DROP', 'Ñ1001', '-'.repeat(10), 'x'.repeat(65), null, undefined, 1001]) {
    assert.equal(cardFromScan(junk), null, JSON.stringify(junk));
  }
});

test('the camera is offered only with a barcode detector and getUserMedia', () => {
  const getUserMedia = () => Promise.resolve();
  const withBoth = { BarcodeDetector: function () {}, navigator: { mediaDevices: { getUserMedia } } };
  assert.equal(canScan(withBoth), true);
  assert.equal(canScan({ navigator: { mediaDevices: { getUserMedia } } }), false);
  assert.equal(canScan({ BarcodeDetector: function () {}, navigator: {} }), false);
  assert.equal(canScan({ BarcodeDetector: function () {}, navigator: { mediaDevices: {} } }), false);
});
