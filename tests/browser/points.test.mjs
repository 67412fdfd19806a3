// Browser test of the points game at the table (started by scripts/browser-test with the demo
// data): the demo's second dealer signs on at the points table PUSOY-P1 and records a round of
// three players with the same typed entry as the banking game: seat 1 shows a dragon, seat 2
// mis-sets, seat 3 sets legally. The preview shows the matrix of who scored what against whom;
// the confirmed round's page shows each player's points. Screenshots at the three sizes go to
// target/browser-shots/ (or BROWSER_SHOTS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const shots = process.env.BROWSER_SHOTS || path.resolve(here, '../../target/browser-shots');
const TABLE = 'PUSOY-P1';
const DEALER = { username: 'dealer2', password: 'demo-dealer2-pit' };

if (!base) throw new Error('PUSOY_BASE_URL is not set: run this through scripts/browser-test');
fs.mkdirSync(shots, { recursive: true });

const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
let page;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
});
after(async () => {
  await browser?.close();
});

async function shot(name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

/** Shots of the page as it is at the three sizes the tests use, then back to the desktop. */
async function shotsAtEverySize(name) {
  for (const [w, h] of [[1280, 800], [1194, 834], [834, 1194]]) {
    await page.setViewportSize({ width: w, height: h });
    await shot(`points-${name}-${w}x${h}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function typeCards(name, text) {
  const input = page.locator(`#${name}`);
  await input.fill('');
  await input.pressSequentially(text);
  await input.blur();
}

async function saved() {
  await page.waitForFunction(() => {
    const s = document.querySelector('.save-status');
    const state = s && s.getAttribute('data-state');
    const form = document.getElementById('round-form');
    return s && /^Saved/.test(s.textContent) && (state === 'ok' || state === 'warn') &&
      form.getAttribute('data-saving') === 'no';
  });
}

test('the dealer signs on at the points table: four players, no dealer hand, no bets', async () => {
  await page.goto(`${base}/login`);
  await page.fill('#username', DEALER.username);
  await page.fill('#password', DEALER.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('form button[type=submit]')]);
  await page.goto(`${base}/tables`);
  const row = page.locator(`#table-${TABLE}`);
  await Promise.all([page.waitForURL(`${base}/tables/${TABLE}`), row.locator('button', { hasText: 'Sign on' }).click()]);
  await page.waitForSelector('#picker:not([hidden]) .pick');
  assert.equal(await page.locator('.place[data-place]').count(), 4);
  assert.equal(await page.locator('.place[data-place="dealer"]').count(), 0);
  assert.equal(await page.locator('[name$="_bet"]').count(), 0);
  assert.match(await page.locator('.page-header .limits').textContent(), /one point is worth PHP 100\.00/);
  await shotsAtEverySize('empty-table');
});

test('a natural, a mis-set and a legal set are typed and previewed with the points matrix', async () => {
  await page.selectOption('#seat1_action', 'natural');
  // The natural's kind is chosen, and the hands it does not set are hidden.
  await page.selectOption('#seat1_natural', 'dragon');
  assert.equal(await page.locator('#seat1_back').isVisible(), false);
  await typeCards('seat1_dealt', '2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac');
  await page.selectOption('#seat2_action', 'play');
  await typeCards('seat2_back', '8c 8d 9h Ts Jh');
  await typeCards('seat2_middle', 'Ad Ah As 3s 4s');
  await typeCards('seat2_front', 'Qc Kd 2d');
  await page.selectOption('#seat3_action', 'play');
  await typeCards('seat3_back', '5c 5d 5h 6d 6h');
  await typeCards('seat3_middle', '9c 9d Th Jc Js');
  await typeCards('seat3_front', 'Qd Qs 7c');
  await saved();
  // The live check names the mis-set on its place before the preview.
  await page.waitForFunction(() => /fouled/.test(document.querySelector('.place-note[data-for="seat2"]')?.textContent || ''));
  await page.waitForSelector('#preview .against');
  const matrix = await page.locator('#preview .against').textContent();
  assert.match(matrix, /vs seat 2/);
  assert.match(matrix, /\+26/);
  assert.match(matrix, /-19/);
  assert.match(await page.locator('#preview').textContent(), /Natural: a dragon/);
  assert.match(await page.locator('#preview').textContent(), /Mis-set: middle/);
  await shotsAtEverySize('preview');
});

test('the round is confirmed and its page shows every player\'s points', async () => {
  // Confirm comes back to the table, the result above the next round, linking to the round.
  await Promise.all([
    page.waitForURL(/\/tables\/PUSOY-P1\?settled=\d+$/),
    page.locator('#round-actions button', { hasText: 'Confirm' }).click()
  ]);
  await Promise.all([page.waitForURL(/\/tables\/PUSOY-P1\/rounds\/\d+$/), page.locator('#round-result a').click()]);
  const text = await page.locator('main').textContent();
  assert.match(text, /Natural shown: a dragon/);
  assert.match(text, /\+26 points \(vs seat 2: \+13, vs seat 3: \+13\)/);
  assert.match(text, /None: a points-game round/);
  assert.match(text, /Settled again from the stored cards: the same result/);
  await shotsAtEverySize('round-page');
  assert.deepEqual(page.problems, []);
});

test('the dealer signs off', async () => {
  await page.goto(`${base}/tables/${TABLE}/sign-off`);
  await Promise.all([page.waitForURL(/\/tables$/), page.locator('form button', { hasText: 'Sign off' }).click()]);
});
