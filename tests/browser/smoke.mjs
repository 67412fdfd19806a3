// Smoke test for the dealer table screen: `node --test dev/smoke.mjs` (from /work/wt-frontend).
// Serves dev/mock-table.html at /, templates/static/* (and dev/app.css) at /static/, and a fake
// check endpoint with canned JSON; drives Debian's chromium through playwright-core.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shots = path.join(root, 'shots');
fs.mkdirSync(shots, { recursive: true });

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };

const PREVIEW = `<table>
<caption>Round 128 preview · profile house-banking v3</caption>
<thead><tr><th>Place</th><th>Back</th><th>Middle</th><th>Front</th><th>Result</th></tr></thead>
<tbody>
<tr><th>Seat 1</th><td class="won">straight flush</td><td class="won">full house, nines</td><td class="lost">ace high</td><td class="outcome-positive">+500 (2 hands, +1x)</td></tr>
<tr class="foul"><th>Seat 2</th><td>pair of sixes</td><td>pair of nines</td><td>king high</td><td class="outcome-negative">−2,000 (fouled, −2x)</td></tr>
<tr><th>Seat 3</th><td colspan="3">empty seat</td><td>—</td></tr>
<tr><th>Dealer</th><td>flush</td><td>two pair</td><td>pair of queens</td><td class="outcome-positive">+1,500</td></tr>
</tbody></table>`;

// Fake server state the tests steer.
const srv = { mode: 'ok', checks: [], posts: [], delay: 0 };

function readBody(req) {
  return new Promise((resolve) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => resolve(b));
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'GET' && url.pathname === '/') {
    res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Content-Security-Policy': CSP });
    return res.end(fs.readFileSync(path.join(root, 'dev/mock-table.html')));
  }
  if (url.pathname === '/favicon.ico') { res.writeHead(204); return res.end(); }
  if (req.method === 'GET' && url.pathname.startsWith('/static/')) {
    const name = path.basename(url.pathname);
    const file = name === 'app.css' ? path.join(root, 'dev/app.css') : path.join(root, 'templates/static', name);
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
    return res.end(fs.readFileSync(file));
  }
  if (req.method === 'POST' && url.pathname === '/tables/PUSOY-03/round/check') {
    const body = await readBody(req);
    const params = new URLSearchParams(body);
    srv.checks.push({ headers: req.headers, params });
    if (srv.delay) await new Promise((r) => setTimeout(r, srv.delay));
    if (srv.mode === '500') { res.writeHead(500); return res.end('boom'); }
    if (srv.mode === '403') { res.writeHead(403); return res.end('forbidden'); }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({
      revision: Number(params.get('revision')) + 1,
      field_errors: { seat2_bet: 'bet 1000 is above this seat\u2019s limit? (canned)' },
      place_notes: { seat1: 'wins back and middle, loses front: +1x (+500)', seat2: 'fouled: middle (pair of nines) ranks above back (pair of sixes)' },
      preview_html: PREVIEW,
      can_confirm: true,
    }));
  }
  if (req.method === 'POST' && url.pathname === '/tables/PUSOY-03/round') {
    const body = await readBody(req);
    srv.posts.push(new URLSearchParams(body));
    res.writeHead(200, { 'Content-Type': TYPES['.html'] });
    return res.end('<!doctype html><title>Confirmed</title><p>Round confirmed</p>');
  }
  res.writeHead(404);
  res.end();
});

let browser, base;
const problems = [];

before(async () => {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  await browser?.close();
  server.close();
});
beforeEach(() => { srv.mode = 'ok'; srv.checks = []; srv.posts = []; srv.delay = 0; });

async function open(viewport = { width: 1280, height: 800 }, opts = {}) {
  const ctx = await browser.newContext({ viewport, hasTouch: true, ...opts });
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(base + '/');
  if (opts.javaScriptEnabled !== false) await page.waitForSelector('#picker:not([hidden]) .pick');
  return page;
}
const err = (page, name) => page.locator(`.field-error[data-for="${name}"]`);
const target = (page) => page.locator('#picker .picker-field').textContent();
const pickCard = (page, card) => page.locator(`#picker .pick[data-card="${card}"]`).tap({ force: true }); // greyed cards are aria-disabled but still tappable

test('loads with no script errors or CSP violations, picker has 52 cards', async () => {
  problems.length = 0;
  const page = await open();
  assert.equal(await page.locator('#picker .pick').count(), 52);
  assert.equal(await target(page), 'Seat 2 \u00b7 back'); // first visible empty set-hand field
  assert.equal(await page.locator('.place[data-place="seat3"]').getAttribute('data-action'), 'empty');
  assert.equal(await page.locator('#seat3_bet').isVisible(), false);
  assert.equal(await page.locator('#seat3_back').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('typed cards in mixed case, 10 and suit symbols are normalised on blur', async () => {
  const page = await open();
  await page.locator('#seat2_back').fill('');
  await page.locator('#seat2_back').pressSequentially('ah kc 10c q\u2665, 3\u2663');
  assert.equal(await err(page, 'seat2_back').textContent(), '');
  await page.locator('#seat2_middle').focus();
  assert.equal(await page.locator('#seat2_back').inputValue(), 'Ah Kc Tc Qh 3c');
  await page.context().close();
});

test('parse errors name token and position; count errors wait for blur', async () => {
  const page = await open();
  const back = page.locator('#seat2_back');
  await back.pressSequentially('8c 1x');
  assert.equal(await err(page, 'seat2_back').textContent(), 'card 2 `1x` is not a card (rank 1?)');
  assert.equal(await back.getAttribute('aria-invalid'), 'true');
  await back.fill('');
  await back.pressSequentially('7c 8');  // half-typed last token: no nagging
  assert.equal(await err(page, 'seat2_back').textContent(), '');
  await back.pressSequentially('c');
  assert.equal(await err(page, 'seat2_back').textContent(), '');
  await page.locator('#seat2_middle').focus();
  assert.equal(await err(page, 'seat2_back').textContent(), 'back needs 5 cards, has 2');
  assert.equal(await back.getAttribute('aria-invalid'), 'true');
  await back.fill('8c 7c 6c 5c 3c 3d'); // too many shows even while typing
  assert.equal(await err(page, 'seat2_back').textContent(), 'back needs 5 cards, has 6');
  await page.context().close();
});

test('duplicates are flagged on both fields; set must match dealt', async () => {
  const page = await open();
  await page.locator('#seat2_back').fill('as 2d 3d 4d 5d');
  await page.locator('#seat2_middle').focus();
  assert.equal(await err(page, 'seat2_back').textContent(), 'As is also in seat 1 back');
  assert.equal(await err(page, 'seat1_back').textContent(), 'As is also in seat 2 back');
  // A surrendered seat's hands are hidden and no longer count.
  await page.locator('#seat2_action').selectOption('surrender');
  assert.equal(await err(page, 'seat1_back').textContent(), '');
  await page.locator('#seat2_action').selectOption('play');
  assert.equal(await err(page, 'seat1_back').textContent(), 'As is also in seat 2 back');
  // Within seat 1: set uses a card that was not dealt.
  await page.locator('#seat1_front').fill('Ad Kd 3c');
  await page.locator('#seat1_front').blur();
  assert.equal(await err(page, 'seat1_front').textContent(), 'set uses 3c, which is not in the dealt cards');
  assert.equal(await err(page, 'seat1_dealt').textContent(), 'dealt 2c is not in the set hands');
  await page.context().close();
});

test('picker: 13 taps fill back, middle, front and the target advances', async () => {
  const page = await open();
  const cards = ['2h', '2d', '3h', '3d', '7c', '8h', '8d', '5c', '5s', 'Jc', 'Qh', 'Qd', 'Kh'];
  const seen = [];
  for (const [i, c] of cards.entries()) {
    await pickCard(page, c);
    if (i === 4 || i === 9 || i === 12) seen.push(await target(page));
  }
  assert.deepEqual(seen, ['Seat 2 \u00b7 middle', 'Seat 2 \u00b7 front', 'Dealer \u00b7 back']); // seat 3 is empty
  assert.equal(await page.locator('#seat2_back').inputValue(), '2h 2d 3h 3d 7c');
  assert.equal(await page.locator('#seat2_middle').inputValue(), '8h 8d 5c 5s Jc');
  assert.equal(await page.locator('#seat2_front').inputValue(), 'Qh Qd Kh');
  // No text input got focus (no on-screen keyboard).
  assert.notEqual(await page.evaluate(() => document.activeElement.tagName), 'INPUT');
  assert.ok(await page.locator('#dealer_back').evaluate((e) => e.classList.contains('pp-target')));
  // A card used elsewhere is greyed and refused with a message.
  assert.ok(await page.locator('.pick[data-card="As"]').evaluate((e) => e.classList.contains('used')));
  await pickCard(page, 'As');
  assert.equal(await page.locator('.picker-msg').textContent(), 'As is already in seat 1 back');
  assert.equal(await page.locator('#dealer_back').inputValue(), '');
  // Tapping a card in the target removes it; the undo and clear buttons work.
  await pickCard(page, '9s'); await pickCard(page, '4d'); await pickCard(page, '9s');
  assert.equal(await page.locator('#dealer_back').inputValue(), '4d');
  await pickCard(page, 'Tc');
  await page.locator('.picker-undo').tap();
  assert.equal(await page.locator('#dealer_back').inputValue(), '4d');
  await page.locator('.picker-clear').tap();
  assert.equal(await page.locator('#dealer_back').inputValue(), '');
  // Focusing a field makes it the target.
  await page.locator('#seat1_dealt').focus();
  assert.equal(await target(page), 'Seat 1 \u00b7 dealt');
  await page.context().close();
});

test('actions show and hide fields', async () => {
  const page = await open();
  const vis = (id) => page.locator('#' + id).isVisible();
  await page.locator('#seat2_action').selectOption('surrender');
  assert.deepEqual(await Promise.all(['seat2_bet', 'seat2_dealt', 'seat2_back', 'seat2_middle', 'seat2_front'].map(vis)), [true, false, false, false, false]);
  await page.locator('#seat2_action').selectOption('royalty');
  assert.deepEqual(await Promise.all(['seat2_bet', 'seat2_dealt', 'seat2_back'].map(vis)), [true, true, false]);
  await page.locator('#seat2_action').selectOption('');
  assert.deepEqual(await Promise.all(['seat2_bet', 'seat2_dealt', 'seat2_back'].map(vis)), [false, false, false]);
  await page.locator('#seat3_action').selectOption('play');
  assert.deepEqual(await Promise.all(['seat3_bet', 'seat3_dealt', 'seat3_back'].map(vis)), [true, true, true]);
  await page.context().close();
});

test('Enter in a card field moves to the next card field', async () => {
  const page = await open();
  await page.locator('#seat2_back').focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'seat2_middle');
  assert.equal(srv.posts.length, 0);
  await page.context().close();
});

test('live check posts the form, updates preview, revision, notes and Confirm', async () => {
  const page = await open();
  await page.locator('#seat2_back').fill('6c 6d 2h 3h 4s');
  await page.waitForSelector('#preview table');
  await page.waitForSelector('button.confirm:not([disabled])');
  assert.equal(srv.checks.length, 1);
  const { headers, params } = srv.checks[0];
  assert.equal(headers['x-csrf-token'], 'k3J9c2Qx-mock-csrf-token');
  assert.equal(headers.accept, 'application/json');
  assert.match(headers['content-type'], /^application\/x-www-form-urlencoded/);
  assert.equal(params.get('step'), 'check');
  assert.equal(params.get('draft_key'), 'r128-7f3a9c0e');
  assert.equal(params.get('seat2_back'), '6c 6d 2h 3h 4s');
  assert.equal(await page.locator('input[name="revision"]').inputValue(), '4');
  assert.equal(await page.locator('.save-status').textContent(), 'Saved');
  assert.match(await page.locator('.place-note[data-for="seat2"]').textContent(), /^fouled: middle/);
  assert.ok(await page.locator('.place[data-place="seat2"]').evaluate((e) => e.classList.contains('is-fouled')));
  assert.equal(await err(page, 'seat2_bet').textContent(), 'bet 1000 is above this seat\u2019s limit? (canned)');

  // Local parse errors: no check is sent and Confirm is disabled.
  await page.locator('#seat2_front').fill('Kh Qs 1x');
  await page.waitForTimeout(600);
  assert.equal(srv.checks.length, 1);
  assert.equal(await page.locator('button.confirm').isDisabled(), true);
  assert.equal(await page.locator('.save-status').textContent(), 'Not saved \u2014 fix the marked cards');

  // Confirm is disabled while a check is in flight.
  srv.delay = 700;
  await page.locator('#seat2_front').fill('Kh Qs 7c');
  await page.waitForFunction(() => document.querySelector('.save-status').textContent.startsWith('Saving'));
  assert.equal(await page.locator('button.confirm').isDisabled(), true);
  await page.waitForSelector('button.confirm:not([disabled])');
  assert.equal(await page.locator('input[name="revision"]').inputValue(), '5');

  await page.screenshot({ path: path.join(shots, 'landscape-1280x800-after-check.png') });

  // Confirm submits the page once, with step=confirm.
  srv.delay = 0;
  await Promise.all([
    page.waitForURL(base + '/tables/PUSOY-03/round'),
    page.locator('button.confirm').dblclick(),
  ]);
  assert.equal(srv.posts.length, 1);
  assert.equal(srv.posts[0].get('step'), 'confirm');
  assert.equal(srv.posts[0].get('seat2_front'), 'Kh Qs 7c');
  await page.context().close();
});

test('network failure and sign-out are shown in the status line', async () => {
  const page = await open();
  srv.mode = '500';
  await page.locator('#seat2_back').fill('6c 6d 2h 3h 4s');
  await page.waitForFunction(() => document.querySelector('.save-status').textContent.startsWith('Not saved'));
  assert.equal(await page.locator('.save-status').textContent(), 'Not saved \u2014 check connection');
  srv.mode = 'ok';
  await page.locator('#seat2_back').fill('6c 6d 2h 3h 5s'); // retried on next change
  await page.waitForFunction(() => document.querySelector('.save-status').textContent === 'Saved');
  srv.mode = '403';
  await page.locator('#seat2_back').fill('6c 6d 2h 3h 4s');
  await page.waitForFunction(() => document.querySelector('.save-status').textContent.startsWith('Signed out'));
  assert.equal(await page.locator('.save-status').textContent(), 'Signed out \u2014 reload the page');
  assert.equal(await page.locator('button.confirm').isDisabled(), true);
  await page.context().close();
});

test('screenshots: landscape 1280x800 and portrait 800x1280', async () => {
  for (const [name, vp] of [['landscape-1280x800', { width: 1280, height: 800 }], ['portrait-800x1280', { width: 800, height: 1280 }]]) {
    const page = await open(vp);
    await page.locator('#seat2_back').fill('As 6d 2h 3h 4s');
    await page.locator('#seat2_middle').fill('9c 9s 8d');
    await page.locator('#seat2_front').focus();
    await page.locator('#seat2_front').blur();
    await pickCard(page, 'Kh');
    await page.waitForSelector('#preview table');
    await page.screenshot({ path: path.join(shots, name + '.png') });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, name + '-bottom.png') });
    // Picker fits the width: no horizontal overflow.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `horizontal overflow ${overflow}px at ${name}`);
    const small = await page.$$eval('#picker .pick', (bs) => bs.filter((b) => b.getBoundingClientRect().height < 44 || b.getBoundingClientRect().width < 44).length);
    assert.equal(small, 0, 'picker buttons below 44px');
    await page.context().close();
  }
});

test('without JS the server form still renders and Preview posts normally', async () => {
  const page = await open({ width: 1280, height: 800 }, { javaScriptEnabled: false });
  assert.equal(await page.locator('#picker').isVisible(), false);
  assert.equal(await page.locator('#seat3_back').isVisible(), true); // no hiding without JS
  await page.screenshot({ path: path.join(shots, 'nojs-1280x800.png') });
  await Promise.all([page.waitForURL(base + '/tables/PUSOY-03/round'), page.locator('button[value="preview"]').click()]);
  assert.equal(srv.posts.length, 1);
  assert.equal(srv.posts[0].get('step'), 'preview');
  await page.context().close();
});
