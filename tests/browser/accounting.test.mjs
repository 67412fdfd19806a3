// Browser test of a table's money through one gaming day, against the real app (started by
// scripts/browser-test with the demo data): the administrator adds the PHP chip set and the par
// of PUSOY-03; the demo's second dealer signs on there and a pit manager signs the opener with
// them on the dealer's tablet; the dealer records two buy-ins and a round; the pit manager
// requests a fill, the cashier issues it and prints the slip (and a reprint), the dealer and the
// floor supervisor sign its receipt; the dealer signs off and the closer is signed by both; two
// counters count the drop box; the accounting report then shows the table's day reconciled to
// a variance of zero. Screenshots of each step go to target/browser-shots/accounting-*.png, and
// the report and the slip pages at 1280x800 and on a 10-inch tablet in both orientations.
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

// PUSOY-03: no other browser test deals there (table: PUSOY-01, pit: PUSOY-02, review and
// pages: PUSOY-04).
const TABLE = 'PUSOY-03';
const ADMIN = { username: 'admin', password: 'demo-admin-pit' };
const BOSS = { username: 'supervisor', password: 'demo-supervisor-pit' };
// The floor supervisor signs the fill's receipt: whoever requested it may not.
const FLOOR = { username: 'supervisor2', password: 'demo-supervisor2-pit' };
const DEALER = { username: 'dealer2', password: 'demo-dealer2-pit' };
const CASHIER = { username: 'cashier', password: 'demo-cashier-pit' };
const COUNTER = { username: 'counter', password: 'demo-counter-pit' };
const COUNTER2 = { username: 'counter2', password: 'demo-counter2-pit' };
const DESKTOP = { width: 1280, height: 800 };
const SIZES = [DESKTOP, { width: 1194, height: 834 }, { width: 834, height: 1194 }];
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// The par of PUSOY-03, chips by denomination (PHP): 146,000.
const PAR = { 25: 40, 100: 50, 500: 40, 1000: 30, 5000: 10, 10000: 4 };
const PAR_TOTAL = 146_000;
const BUY_INS = [[1, '5000'], [2, '3000']];
const DROP = 8_000;
const FILL_THOUSANDS = 10;

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
});
after(async () => {
  await browser?.close();
});

/** A page signed in as `who`; script errors and CSP violations are collected in `problems`. */
async function signedIn(who, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(15_000);
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

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `accounting-${name}.png`), fullPage: true });
}

/** Submits the form holding `button` and waits for the page it leads to. */
async function submit(page, button) {
  await Promise.all([page.waitForNavigation(), page.locator(button).click()]);
}

/** Types each denomination's chips (PHP major units to a count) into a count grid. */
async function fillGrid(page, counts) {
  for (const [denomination, chips] of Object.entries(counts)) {
    await page.fill(`#count-${Number(denomination) * 100}`, String(chips));
  }
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], 'no script error or CSP violation');
}

/** Nothing wider than the window. */
async function fits(page) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client + 1, `${page.url()} scrolls sideways: ${scroll}px in ${client}px`);
}

let admin;
let boss;
let dealer;
let houseResult;
let slipUrl;
let day;

test('the administrator adds the PHP chip set and the par of PUSOY-03', async () => {
  admin = await signedIn(ADMIN);
  await admin.goto(`${base}/admin/chips`);
  if (!(await admin.locator('form[action^="/admin/chips/"]').count())) {
    await admin.fill('#new-currency', 'PHP');
    await admin.fill('#new-denominations', '25 100 500 1,000 5,000 10,000');
    await submit(admin, 'form[action="/admin/chips"] button[type=submit]');
  }
  assert.ok(await admin.locator('form[action^="/admin/chips/"]').count() >= 1, 'a chip set is listed');
  await admin.goto(`${base}/admin/tables`);
  // The administrator sees each table as a card; its code heads it, with the par link beside.
  const par = await admin.locator('h2', { has: admin.locator('.code', { hasText: TABLE }) })
    .locator('a[href$="/par"]').first().getAttribute('href');
  await admin.goto(`${base}${par}`);
  await fillGrid(admin, PAR);
  await submit(admin, 'form.count-grid button[type=submit]');
  assert.match(await admin.locator('.par-total').first().innerText(), /146,000\.00/);
  await shot(admin, 'par-1280x800');
  noProblems(admin);
});

test('the dealer signs on and, with the pit manager, signs the opener on the same tablet', async () => {
  dealer = await signedIn(DEALER);
  await dealer.goto(`${base}/tables`);
  const row = dealer.locator(`#table-${TABLE}`);
  await Promise.all([dealer.waitForURL(`${base}/tables/${TABLE}`), row.locator('button', { hasText: 'Sign on' }).click()]);
  await Promise.all([dealer.waitForURL(new RegExp(`/tables/${TABLE}/slips`)), dealer.click('a.slips-link')]);
  day = /gaming day (\d{4}-\d\d-\d\d)/.exec(await dealer.locator('h1').innerText())[1];
  assert.equal(await dealer.locator('input[name=kind][value=opener]').isChecked(), true);
  await fillGrid(dealer, PAR);
  // The grid adds up as chips are typed.
  assert.equal((await dealer.locator('#count-total').innerText()).trim(), '146,000.00');
  await dealer.fill('#second_username', BOSS.username);
  await dealer.fill('#second_password', 'not the password');
  await submit(dealer, 'form.count-grid button[type=submit]');
  assert.match(await dealer.locator('#slip-error').innerText(), /password/i);
  // The typed counts are kept; the password is typed again.
  assert.equal(await dealer.locator('#count-100000').inputValue(), '30');
  // The refusal was a 422, which the browser logs: expected here, not a problem.
  dealer.problems.length = 0;
  await dealer.fill('#second_password', BOSS.password);
  await shot(dealer, 'opener-before-signing-1280x800');
  await submit(dealer, 'form.count-grid button[type=submit]');
  assert.equal(await dealer.locator('#slip-error').count(), 0, 'the opener is signed');
  const slips = await dealer.locator('body').innerText();
  assert.match(slips, /Opener/);
  assert.match(slips, /146,000\.00/);
  await shot(dealer, 'opener-signed-1280x800');
  noProblems(dealer);
});

test('the dealer records two buy-ins and a round on the table screen', async () => {
  await dealer.goto(`${base}/tables/${TABLE}`);
  await dealer.waitForSelector('#picker:not([hidden]) .pick');
  // The demo's carded player Maria sits at seat 1, rated (docs/players.md).
  await dealer.check('#rate-form input[name=seat][value="1"]');
  await dealer.fill('#rate-form input[name=card]', 'RC1001');
  await submit(dealer, '#rate-form button[type=submit]');
  assert.match(await dealer.locator('#rated-seat-1').innerText(), /Maria RC1001/);
  await dealer.waitForSelector('#picker:not([hidden]) .pick');
  for (const [seat, amount] of BUY_INS) {
    await dealer.check(`#buy-in-form input[name=seat][value="${seat}"]`);
    await dealer.fill('#buy-in-form input[name=amount]', amount);
    await submit(dealer, '#buy-in-form button[type=submit]');
  }
  assert.match(await dealer.locator('#drop-so-far').innerText(), /8,000\.00/);
  await dealer.waitForSelector('#picker:not([hidden]) .pick');

  await dealer.selectOption('#seat1_action', 'play');
  await dealer.fill('#seat1_bet', '1000');
  const hands = [['seat1_back', 'Qs Jd 9h 7c 5s'], ['seat1_middle', 'Tc 8d 6h 4c 3d'], ['seat1_front', '9c 7d 2h'],
    ['dealer_back', 'Ac Kc Qc Jc 2c'], ['dealer_middle', 'Qh Qd Jh Js 4s'], ['dealer_front', '9s 9d 8h']];
  for (const [name, cards] of hands) {
    await dealer.fill(`#${name}`, cards);
    await dealer.locator(`#${name}`).blur();
  }
  await dealer.waitForSelector('#round-form button.confirm:not([disabled])');
  await Promise.all([dealer.waitForURL(new RegExp(`/tables/${TABLE}\\?settled=\\d+$`)),
    dealer.locator('#round-form button.confirm').click()]);
  const result = await dealer.locator('#round-result').innerText();
  const m = /House result PHP ([+\u2212-])([\d,]+\.\d\d)/.exec(result);
  assert.ok(m, `the house result is shown: ${result}`);
  houseResult = (m[1] === '+' ? 1 : -1) * Number(m[2].replace(/,/g, ''));
  assert.equal(houseResult % 1000, 0, 'a bet of 1,000 wins or loses in 1,000 chips');
  await shot(dealer, 'table-screen-buy-ins-1280x800');
  // Maria leaves with nothing; her rating is the round she played at seat 1.
  await dealer.fill('#rated-seat-1 input[name=walked_with]', '0');
  await submit(dealer, '#rated-seat-1 button[type=submit]:text("Leave")');
  assert.equal(await dealer.locator('#rated-seat-1').count(), 0);
  noProblems(dealer);
});

test('the host reads the rated player\'s rating from the round she played', async () => {
  for (const size of SIZES) {
    const host = await signedIn({ username: 'host', password: 'demo-host-pit' }, size);
    await host.goto(`${base}/players/1`);
    const rating = host.locator('#ratings tbody tr', { hasText: TABLE }).first();
    assert.equal(await rating.locator('td.hands').innerText(), '1');
    assert.match(await rating.locator('td.total-bet').innerText(), /PHP 1,000\.00/);
    // The house's actual win is the house's result against her, the round's only seat.
    const actual = await rating.locator('td.actual-win').innerText();
    assert.match(actual, new RegExp(`PHP [+\u2212-]${Math.abs(houseResult).toLocaleString('en-US')}\\.00`));
    await host.screenshot({ path: path.join(shots, `accounting-player-rating-${size.width}x${size.height}.png`), fullPage: true });
    noProblems(host);
    await host.context().close();
  }
});

test('a fill is requested by the pit manager, issued and printed by the cage, received at the table', async () => {
  boss = await signedIn(BOSS);
  await boss.goto(`${base}/tables/${TABLE}/cage`);
  await boss.check('input[name=kind][value=fill]');
  await boss.fill('#count-100000', String(FILL_THOUSANDS));
  await submit(boss, 'form.count-grid button[type=submit]');
  assert.equal(await boss.locator('#cage-error').count(), 0);

  const cashier = await signedIn(CASHIER);
  await cashier.goto(`${base}/cage`);
  const pending = cashier.locator('article.slip-card', { hasText: TABLE }).first();
  await pending.waitFor();
  await shot(cashier, 'cage-pending-1280x800');
  await submit(cashier, `article.slip-card:has-text("${TABLE}") form[action$="/issue"] button`);
  await Promise.all([cashier.waitForURL(/\/cage\/slips\/\d+$/),
    cashier.locator('#in-transit a', { hasText: /F-\d{4}-\d{5}/ }).first().click()]);
  slipUrl = cashier.url();
  assert.match(await cashier.locator('#slip-state').innerText(), /issued/i);
  // The slip printed, and printed again: the copy says REPRINT.
  await submit(cashier, 'form[action$="/print"] button');
  assert.equal(await cashier.locator('#reprint').count(), 0);
  assert.match(await cashier.locator('body').innerText(), /10,000\.00/);
  await cashier.emulateMedia({ media: 'print' });
  await shot(cashier, 'fill-slip-print-view');
  await cashier.emulateMedia({ media: 'screen' });
  await cashier.goto(slipUrl);
  await submit(cashier, 'form[action$="/print"] button');
  assert.match(await cashier.locator('#reprint').innerText(), /REPRINT/);
  noProblems(cashier);
  await cashier.context().close();

  // At the table: the dealer signs the receipt, a pit manager second with a password; the one
  // who requested it may not.
  await dealer.goto(slipUrl);
  await dealer.fill('#receive-username', BOSS.username);
  await dealer.fill('#receive-password', BOSS.password);
  await submit(dealer, 'form[action$="/receive"] button');
  assert.match(await dealer.locator('#slip-error').innerText(), /signed|requested|earlier/i);
  dealer.problems.length = 0;
  await dealer.fill('#receive-username', FLOOR.username);
  await dealer.fill('#receive-password', FLOOR.password);
  await submit(dealer, 'form[action$="/receive"] button');
  assert.match(await dealer.locator('#slip-state').innerText(), /received/i);
  await shot(dealer, 'fill-received-1280x800');
  noProblems(dealer);
});

test('the dealer signs off; the closer is signed by the dealer and the pit manager', async () => {
  await dealer.goto(`${base}/tables/${TABLE}/sign-off`);
  await submit(dealer, 'form[action$="/sign-off"] button[type=submit]');
  await dealer.goto(`${base}/tables/${TABLE}/slips`);
  await dealer.check('input[name=kind][value=closer]');
  // What is on the tray now: the opener, the fill, less the chips sold for the drop, plus what
  // the house won.
  const thousands = PAR[1000] + FILL_THOUSANDS + (houseResult - DROP) / 1000;
  assert.ok(thousands >= 0);
  await fillGrid(dealer, { ...PAR, 1000: thousands });
  await dealer.fill('#second_username', BOSS.username);
  await dealer.fill('#second_password', BOSS.password);
  await submit(dealer, 'form.count-grid button[type=submit]');
  assert.equal(await dealer.locator('#slip-error').count(), 0, 'the closer is signed');
  const total = PAR_TOTAL + FILL_THOUSANDS * 1000 - DROP + houseResult;
  assert.match(await dealer.locator('body').innerText(), new RegExp(total.toLocaleString('en-US')));
  await shot(dealer, 'closer-signed-1280x800');
  noProblems(dealer);
  await dealer.context().close();
});

test('two counters count the drop box', async () => {
  const counter = await signedIn(COUNTER);
  // The count page opens on the last gaming day that has ended; today's box was pulled early.
  await counter.goto(`${base}/count?day=${day}`);
  await Promise.all([counter.waitForURL(`${base}/count/${day}/${TABLE}`),
    counter.locator(`a[href="/count/${day}/${TABLE}"]`).click()]);
  await counter.fill('#notes-100000', String(DROP / 1000));
  await counter.fill('#second_username', COUNTER2.username);
  await counter.fill('#second_password', COUNTER2.password);
  await shot(counter, 'count-before-signing-1280x800');
  await submit(counter, 'form.count-grid button[type=submit]');
  const page = await counter.locator('body').innerText();
  assert.match(page, /Colin Counter/);
  assert.match(page, /8,000\.00/);
  await shot(counter, 'count-signed-1280x800');
  noProblems(counter);
  await counter.context().close();
});

test('the accounting report shows the day reconciled to zero, at every size', async () => {
  await boss.goto(`${base}/reports/accounting?day=${day}`);
  const row = boss.locator(`#day-${day}-${TABLE}`);
  await row.waitFor();
  const cells = await row.locator('td').allInnerTexts();
  const amount = (text) => Number(text.split('\n')[0].replace(/[^\d.+\u2212-]/g, '').replace('\u2212', '-'));
  assert.equal(amount(cells[0]), PAR_TOTAL, `opener: ${cells}`);
  assert.equal(amount(cells[2]), FILL_THOUSANDS * 1000, `fills: ${cells}`);
  assert.equal(amount(cells[4]), DROP, `drop: ${cells}`);
  assert.equal(amount(cells[5]), houseResult, `win by inventory: ${cells}`);
  assert.equal(amount(cells[7]), houseResult, `win by rounds: ${cells}`);
  assert.equal(amount(cells[8]), 0, `variance: ${cells}`);
  assert.doesNotMatch(cells[4], /count pending/);
  assert.doesNotMatch(cells[8], /flagged|not final/);
  for (const size of SIZES) {
    await boss.setViewportSize(size);
    await fits(boss);
    await shot(boss, `report-${size.width}x${size.height}`);
    await boss.goto(slipUrl);
    await fits(boss);
    await shot(boss, `fill-slip-${size.width}x${size.height}`);
    await boss.goto(`${base}/tables/${TABLE}/slips?day=${day}`);
    await fits(boss);
    await shot(boss, `slips-${size.width}x${size.height}`);
    await boss.goto(`${base}/reports/accounting?day=${day}`);
  }
  noProblems(boss);
  await boss.context().close();
  await admin.context().close();
});
