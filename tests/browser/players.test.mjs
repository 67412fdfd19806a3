// Browser test of rated play, against the real app (started by scripts/browser-test with the
// demo data): a host registers a carded player; the dealer signs on at PUSOY-02 and seats them
// at seat 1 on the table screen; rounds are entered and confirmed with seat 1's bets, one while
// the player is away (not theirs); the player leaves with chips; a pit manager records an
// unrated observation of a player not carded at seat 2 and ends it; a second player observed at
// seat 2 shows a card: the dealer's seating there is refused naming the observation, and the
// pit manager cards them from the table screen's Unrated players; the host reads the rating
// on the player's page and finds the hands, bets and result the test entered; the demo's
// self-excluded player is refused a seat with the reason. Screenshots of the table screen, the
// observations page, the player's page and the day's rated play at 1280x800 and on a 10-inch
// tablet in both orientations go to target/browser-shots/players-*.png. A pit manager's tablet
// with a camera (faked) scans the second player's card into the seat form (players-scan-card-*).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const shots = process.env.BROWSER_SHOTS || path.resolve(here, '../../target/browser-shots');
if (!base) throw new Error('PUSOY_BASE_URL is not set: run this through scripts/browser-test');
fs.mkdirSync(shots, { recursive: true });

const TABLE = 'PUSOY-02';
const HOST = { username: 'host', password: 'demo-host-pit' };
const DEALER = { username: 'dealer2', password: 'demo-dealer2-pit' };
const SUPERVISOR = { username: 'supervisor', password: 'demo-supervisor-pit' };
const DESKTOP = { width: 1280, height: 800 };
const SIZES = [DESKTOP, { width: 1194, height: 834 }, { width: 834, height: 1194 }];
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// A card of this run's own: the app's database lives as long as the run, files run in turn.
const CARD = `RB${Date.now() % 100_000_000}`;
const CARD2 = `RK${Date.now() % 100_000_000}`;

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
});
after(async () => {
  await browser?.close();
});

/** A page signed in as `who`; `init`, if given, runs in each page before its own scripts. */
async function signedIn(who, init) {
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(15_000);
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`${page.url()}: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`${page.url()}: ${m.text()}`); });
  await page.goto(`${base}/login`);
  await page.fill('#username', who.username);
  await page.fill('#password', who.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('form button[type=submit]')]);
  return page;
}

async function submit(page, button) {
  await Promise.all([page.waitForNavigation(), page.locator(button).click()]);
}

/** Screenshots of the page at each size, each checked to fit its window: the whole page, or
 * (`fullPage` false) the window as it is, for what floats over the page. */
async function atEachSize(page, name, fullPage = true) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client + 1, `${page.url()} scrolls sideways at ${size.width}: ${scroll}px in ${client}px`);
    await page.screenshot({ path: path.join(shots, `players-${name}-${size.width}x${size.height}.png`), fullPage });
  }
  await page.setViewportSize(DESKTOP);
}

/** Types like a dealer: key by key into an empty field, then leaves the field. */
async function typeCards(page, name, text) {
  const input = page.locator(`#${name}`);
  await input.fill('');
  await input.pressSequentially(text);
  await input.blur();
}

/** Waits until the live check has saved the latest change. */
async function saved(page) {
  await page.waitForFunction(() => {
    const s = document.querySelector('.save-status');
    const state = s && s.getAttribute('data-state');
    const form = document.getElementById('round-form');
    return s && /^Saved/.test(s.textContent) && (state === 'ok' || state === 'warn') &&
      form.getAttribute('data-saving') === 'no';
  });
}

/** Enters and confirms a round in which only seat `seat` plays, betting `bet` (PHP); the house
 * result in minor units, as the screen says it once confirmed. */
async function round(page, seat, bet) {
  await page.waitForSelector('#picker:not([hidden]) .pick');
  for (const s of ['seat1', 'seat2', 'seat3']) await page.selectOption(`#${s}_action`, s === `seat${seat}` ? 'play' : '');
  await page.fill(`#seat${seat}_bet`, String(bet));
  await typeCards(page, `seat${seat}_back`, 'Qs Jd 9h 7c 5s');
  await typeCards(page, `seat${seat}_middle`, 'Tc 8d 6h 4c 3d');
  await typeCards(page, `seat${seat}_front`, '9c 7d 2h');
  await typeCards(page, 'dealer_back', 'Ac Kc Qc Jc 2c');
  await typeCards(page, 'dealer_middle', 'Qh Qd Jh Js 4s');
  await typeCards(page, 'dealer_front', '9s 9d 8h');
  await saved(page);
  await page.waitForSelector('#round-form button.confirm:not([disabled])');
  await Promise.all([page.waitForURL(new RegExp(`/tables/${TABLE}\\?settled=\\d+$`)), page.locator('#round-form button.confirm').click()]);
  const said = await page.locator('#round-result').textContent();
  const m = /House result PHP ([+-−][\d,]+\.\d\d)/.exec(said);
  assert.ok(m, said);
  return minor(m[1]);
}

/** "PHP +1,250.00" or "-300.00" in minor units. */
function minor(text) {
  const m = /([+−-]?)([\d,]+)\.(\d\d)/.exec(text);
  assert.ok(m, `an amount: ${text}`);
  const n = Number(m[2].replaceAll(',', '')) * 100 + Number(m[3]);
  return m[1] === '-' || m[1] === '−' ? -n : n;
}

let playerUrl;
let dealer;
const bets = [];
let houseResult = 0;

test('a host registers a carded player', async () => {
  const host = await signedIn(HOST);
  await host.goto(`${base}/players`);
  await host.fill('#p-card', CARD);
  await host.fill('#p-first', 'Rosa');
  await host.fill('#p-last', 'Dizon');
  await host.fill('#p-born', '1984-02-29');
  await submit(host, '#register button[type=submit]');
  assert.match(host.url(), /\/players\/\d+$/);
  playerUrl = host.url();
  assert.deepEqual(host.problems, []);
  await host.context().close();
});

test('the dealer seats the player, enters rounds at the seat, the player steps away and leaves', async () => {
  dealer = await signedIn(DEALER);
  await dealer.goto(`${base}/tables`);
  await Promise.all([dealer.waitForURL(new RegExp(`/tables/${TABLE}$`)), dealer.click(`#table-${TABLE} button:has-text("Sign on")`)]);
  await dealer.check('#rate-form input[name=seat][value="1"]');
  await dealer.fill('#rate-form input[name=card]', CARD.toLowerCase());
  await submit(dealer, '#rate-form button[type=submit]');
  assert.match(await dealer.locator('.flash').innerText(), new RegExp(`Card ${CARD} rated at seat 1\\.`));
  assert.match(await dealer.locator('#rated-seat-1').innerText(), new RegExp(`Rosa ${CARD}`));
  await atEachSize(dealer, 'table-rated');

  bets.push(300);
  houseResult += await round(dealer, 1, 300);
  // Away: the next round at the seat is not the rated player's.
  await submit(dealer, '#rated-seat-1 button:has-text("Away")');
  assert.match(await dealer.locator('#rated-seat-1').innerText(), /away/);
  await round(dealer, 1, 900);
  await submit(dealer, '#rated-seat-1 button:has-text("Back")');
  bets.push(200);
  houseResult += await round(dealer, 1, 200);
  await dealer.fill('#rated-seat-1 input[name=walked_with]', '1,000');
  await submit(dealer, '#rated-seat-1 button:has-text("Leave")');
  assert.match(await dealer.locator('.flash').innerText(), /Rosa left seat 1 with PHP 1,000\.00\./);
  assert.equal(await dealer.locator('#rated-seat-1').count(), 0);
  assert.deepEqual(dealer.problems, []);
});

test('a pit manager observes an unrated player at seat 2 and ends the observation', async () => {
  const pit = await signedIn(SUPERVISOR);
  await pit.goto(`${base}/tables/${TABLE}`);
  await submit(pit, '#observations-link');
  assert.match(pit.url(), new RegExp(`/tables/${TABLE}/observations$`));
  // A bad bet is refused beside its field, nothing recorded.
  await pit.check('#record-observation input[name=seat][value="2"]');
  await pit.fill('#observation-description', 'man, 50s, red shirt');
  await pit.fill('#observation-bet', '99');
  await submit(pit, '#record-observation button[type=submit]');
  assert.equal(await pit.locator('#record-error').getAttribute('data-field'), 'average_bet');
  assert.match(await pit.locator('#record-error').innerText(), /outside the table's limits/);
  await atEachSize(pit, 'observations-refused');
  // The refusal was a 422, which the browser logs: expected here, not a problem.
  pit.problems.length = 0;
  await pit.fill('#observation-bet', '250');
  await submit(pit, '#record-observation button[type=submit]');
  assert.match(await pit.locator('.flash').innerText(), /Unrated player observed at seat 2: man, 50s, red shirt, about PHP 250\.00 a hand\./);
  const row = pit.locator('#observations tbody tr', { hasText: 'man, 50s, red shirt' });
  assert.match(await row.innerText(), /playing/);
  await atEachSize(pit, 'observations-running');
  // The table screen as the pit manager sees it lists the observation.
  await pit.goto(`${base}/tables/${TABLE}`);
  assert.match(await pit.locator('#observed-seat-2').innerText(), /man, 50s, red shirt/);
  await atEachSize(pit, 'table-pit-manager');

  // The dealer deals seat 2 once while observed.
  await dealer.goto(`${base}/tables/${TABLE}`);
  await round(dealer, 2, 250);

  await pit.goto(`${base}/tables/${TABLE}/observations`);
  const running = pit.locator('#running li', { hasText: 'man, 50s, red shirt' });
  await running.locator('input[name=walked_with]').fill('400');
  await submit(pit, '#running li:has-text("man, 50s, red shirt") button:has-text("End observation")');
  assert.match(await pit.locator('.flash').innerText(), /Observation ended at seat 2: man, 50s, red shirt, walked with PHP 400\.00\./);
  const ended = await row.innerText();
  assert.doesNotMatch(ended, /playing/);
  assert.equal(await pit.locator('#running').count(), 0, 'nothing running');
  assert.equal(await row.locator('.hands').innerText(), '1');
  assert.equal(await row.locator('.total-bet').innerText(), 'PHP 250.00');
  assert.match(await row.locator('.theoretical-win').innerText(), /^PHP [+−-]?[\d,]+\.\d\d/);
  await atEachSize(pit, 'observations-ended');

  const res = await pit.goto(`${base}/reports/players`);
  assert.equal(res.status(), 200, await pit.locator('main').innerText());
  const unrated = await pit.locator('#unrated').innerText();
  assert.match(unrated, /Estimates/);
  assert.match(unrated, /man, 50s, red shirt/);
  await atEachSize(pit, 'report');
  assert.deepEqual(pit.problems, []);
  await pit.context().close();
});

test('a player observed at seat 2 shows a card: not seated over the observation, carded from it', async () => {
  const host = await signedIn(HOST);
  await host.goto(`${base}/players`);
  await host.fill('#p-card', CARD2);
  await host.fill('#p-first', 'Ramon');
  await host.fill('#p-last', 'Garcia');
  await submit(host, '#register button[type=submit]');
  assert.match(host.url(), /\/players\/\d+$/);
  await host.context().close();

  const pit = await signedIn(SUPERVISOR);
  await pit.goto(`${base}/tables/${TABLE}/observations`);
  await pit.check('#record-observation input[name=seat][value="2"]');
  await pit.fill('#observation-description', 'woman, 30s, yellow coat');
  await pit.fill('#observation-bet', '100');
  await submit(pit, '#record-observation button[type=submit]');
  assert.match(await pit.locator('.flash').innerText(), /Unrated player observed at seat 2: woman, 30s, yellow coat/);

  // The dealer may not seat a carded player over the observation: a pit manager cards them.
  await dealer.goto(`${base}/tables/${TABLE}`);
  await dealer.check('#rate-form input[name=seat][value="2"]');
  await dealer.fill('#rate-form input[name=card]', CARD2);
  await submit(dealer, '#rate-form button[type=submit]');
  assert.match(await dealer.locator('.flash').innerText(),
    /Seat 2 has an unrated player observed \(observation \d+: woman, 30s, yellow coat\)\. If this is that player, call a pit manager to card them/);
  assert.equal(await dealer.locator('#rated-seat-2').count(), 0);

  await pit.goto(`${base}/tables/${TABLE}`);
  await pit.fill('#observed-seat-2 input[name=card]', CARD2.toLowerCase());
  await submit(pit, '#observed-seat-2 button:has-text("Card player")');
  assert.match(pit.url(), new RegExp(`/tables/${TABLE}$`));
  assert.match(await pit.locator('.flash').innerText(), new RegExp(`carded: card ${CARD2} \\(Ramon Garcia\\) rated at seat 2`));
  assert.match(await pit.locator('#rated-seat-2').innerText(), new RegExp(`Ramon ${CARD2}`));
  assert.equal(await pit.locator('#observed-seat-2').count(), 0);
  await atEachSize(pit, 'table-carded');
  await pit.fill('#rated-seat-2 input[name=walked_with]', '0');
  await submit(pit, '#rated-seat-2 button:has-text("Leave")');
  assert.match(await pit.locator('.flash').innerText(), /Ramon left seat 2/);

  await pit.goto(`${base}/tables/${TABLE}/observations`);
  const row = pit.locator('#observations tbody tr', { hasText: 'woman, 30s, yellow coat' });
  assert.match(await row.innerText(), new RegExp(`carded as Ramon Garcia ${CARD2}, rating \\d+`));
  await atEachSize(pit, 'observations-carded');
  assert.deepEqual(pit.problems, []);
  assert.deepEqual(dealer.problems, []);
  await pit.context().close();
});

test('the host reads the rating: the hands, bets and result entered at the seat', async () => {
  const host = await signedIn(HOST);
  await host.goto(playerUrl);
  const rating = host.locator('tr[id^="rating-"]');
  assert.equal(await rating.count(), 1);
  const total = bets.reduce((a, b) => a + b, 0) * 100;
  assert.equal(await rating.locator('.hands').innerText(), String(bets.length));
  assert.equal(minor(await rating.locator('.total-bet').innerText()), total);
  assert.equal(minor(await rating.locator('.average-bet').innerText()), Math.floor(total / bets.length));
  // The house's actual win is what the house won at the seat in the rounds the player played.
  assert.equal(minor(await rating.locator('.actual-win').innerText()), houseResult);
  // Theoretical win: the total bet × the house edge the engine simulated for the table's
  // rules (a few percent of the bet, of either sign while the simulation is short).
  const theoretical = await rating.locator('.theoretical-win').innerText();
  assert.ok(Math.abs(minor(theoretical)) <= total * 0.2, theoretical);
  assert.match(await rating.innerText(), /PHP 1,000\.00/);
  await atEachSize(host, 'player');
  assert.deepEqual(host.problems, []);
  await host.context().close();
});

/** A tablet's camera and barcode reader, faked before the page loads: the camera is a canvas's
 * stream (kept as window.scanStream), and the reader reads nothing until the test puts a code
 * in window.scanned. */
function fakeScanner() {
  window.BarcodeDetector = class {
    constructor(options) { window.scanFormats = options.formats; }
    async detect() { return window.scanned ? [{ rawValue: window.scanned, format: 'qr_code' }] : []; }
  };
  const media = navigator.mediaDevices || {};
  media.getUserMedia = async (wanted) => {
    window.scanWanted = wanted;
    const canvas = document.createElement('canvas');
    canvas.width = 320; canvas.height = 240;
    const g = canvas.getContext('2d');
    g.fillStyle = '#2b2b2b'; g.fillRect(0, 0, 320, 240);
    g.fillStyle = '#fff'; g.fillRect(110, 70, 100, 100);
    window.scanStream = canvas.captureStream(5);
    return window.scanStream;
  };
  if (!navigator.mediaDevices) Object.defineProperty(navigator, 'mediaDevices', { value: media });
}

function noScanner() {
  delete window.BarcodeDetector;
  if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = undefined;
}

test('a pit manager scans a card with the tablet camera to seat a player; no camera, no button', async () => {
  const pit = await signedIn(SUPERVISOR, fakeScanner);
  await pit.goto(`${base}/tables/${TABLE}`);
  await pit.click('#scan-card');
  await pit.waitForSelector('#scan-overlay video');
  await pit.waitForFunction(() => /Hold the card/.test(document.querySelector('.scan-status').textContent));
  assert.deepEqual(await pit.evaluate(() => window.scanFormats), ['code_128', 'code_39', 'ean_13', 'qr_code']);
  assert.deepEqual(await pit.evaluate(() => window.scanWanted.video.facingMode), { ideal: 'environment' });
  await pit.locator('#rate-form').scrollIntoViewIfNeeded();
  await atEachSize(pit, 'scan-card', false);
  // Cancel closes it and stops the camera; nothing is filled.
  await pit.click('#scan-overlay button:has-text("Cancel")');
  assert.equal(await pit.locator('#scan-overlay').count(), 0);
  assert.deepEqual(await pit.evaluate(() => window.scanStream.getTracks().map((t) => t.readyState)), ['ended']);
  assert.equal(await pit.inputValue('#rate-form input[name=card]'), '');

  // A code that is not a card is said and ignored; the player's card fills the field and closes.
  await pit.click('#scan-card');
  await pit.waitForFunction(() => /Hold the card/.test(document.querySelector('.scan-status').textContent));
  await pit.evaluate(() => { window.scanned = 'https://example.com/win'; });
  await pit.waitForFunction(() => /not a card number/.test(document.querySelector('.scan-status').textContent));
  assert.equal(await pit.locator('#scan-overlay').count(), 1);
  await pit.evaluate((card) => { window.scanned = ` ${card.slice(0, 2).toLowerCase()}-${card.slice(2)} `; }, CARD2);
  await pit.waitForSelector('#scan-overlay', { state: 'detached' });
  assert.equal(await pit.inputValue('#rate-form input[name=card]'), CARD2);
  assert.deepEqual(await pit.evaluate(() => window.scanStream.getTracks().map((t) => t.readyState)), ['ended']);
  await pit.check('#rate-form input[name=seat][value="3"]');
  await submit(pit, '#rate-form button[type=submit]');
  assert.match(await pit.locator('.flash').innerText(), new RegExp(`Card ${CARD2} rated at seat 3\\.`));
  await pit.fill('#rated-seat-3 input[name=walked_with]', '0');
  await submit(pit, '#rated-seat-3 button:has-text("Leave")');
  assert.equal(await pit.locator('#rated-seat-3').count(), 0);
  assert.deepEqual(pit.problems, []);
  await pit.context().close();

  const plain = await signedIn(SUPERVISOR, noScanner);
  await plain.goto(`${base}/tables/${TABLE}`);
  await plain.waitForSelector('#rate-form input[name=card]');
  // The screen's modules ran before the page's load event, which goto waited for: no button.
  assert.equal(await plain.locator('#scan-card').count(), 0);
  assert.deepEqual(plain.problems, []);
  await plain.context().close();
});

test('an excluded player is refused a seat with the reason, and the dealer signs off', async () => {
  await dealer.goto(`${base}/tables/${TABLE}`);
  await dealer.check('#rate-form input[name=seat][value="3"]');
  await dealer.fill('#rate-form input[name=card]', 'RC1003');
  await submit(dealer, '#rate-form button[type=submit]');
  assert.match(await dealer.locator('.flash').innerText(), /Do not seat card RC1003: Liza is self-excluded\. A pit manager has been alerted\./);
  assert.equal(await dealer.locator('#rated-seat-3').count(), 0);
  await dealer.goto(`${base}/tables`);
  await Promise.all([dealer.waitForURL(/sign-off$/), dealer.click(`#table-${TABLE} a:has-text("Sign off")`)]);
  await Promise.all([dealer.waitForURL(/\/tables$/), dealer.click('#shift-summary button[type=submit]')]);
  assert.deepEqual(dealer.problems, []);
  await dealer.context().close();
});
