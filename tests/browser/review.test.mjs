// Browser test of the pit manager's review (issue 14) against the real app (started by
// scripts/browser-test with the demo data): the demo's second dealer signs on at PUSOY-04 and
// two rounds are recorded there, one with a seat result above the demo tables' approval
// threshold (PHP 5,000.00); the pit manager filters the review queue, opens the round's
// replay, approves it, and voids the other round with a reason. Screenshots at 1280x800 and on
// a 10-inch tablet (1194x834, 834x1194) go to target/browser-shots/ (or BROWSER_SHOTS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const shots = process.env.BROWSER_SHOTS || path.resolve(here, '../../target/browser-shots');
const TABLE = 'PUSOY-04';
const DEALER = { username: 'dealer2', password: 'demo-dealer2-pit' };
const SUPERVISOR = { username: 'supervisor', password: 'demo-supervisor-pit' };

if (!base) throw new Error('PUSOY_BASE_URL is not set: run this through scripts/browser-test');
fs.mkdirSync(shots, { recursive: true });

const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
});
after(async () => {
  await browser?.close();
});

/** A page signed in as `who`; script errors and CSP violations are collected in `problems`. */
async function signedIn(who, contextOptions = { viewport: { width: 1280, height: 800 } }) {
  const context = await browser.newContext(contextOptions);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
  await page.goto(`${base}/login`);
  await page.fill('#username', who.username);
  await page.fill('#password', who.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('form button[type=submit]')]);
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });
}

/** A whole round at TABLE through the API, as the signed-in dealer of `page`: seat 1 fouls,
 * seat 3 wins two hands of three; bets in minor units. */
async function recordRound(page, key, bets) {
  await page.goto(`${base}/tables`);
  const token = await page.locator('input[name=csrf_token]').first().inputValue();
  const res = await page.request.put(`${base}/api/v1/tables/${TABLE}/rounds/${key}`, {
    headers: { 'X-CSRF-Token': token },
    data: {
      dealer: { back: '2c 2d 2h 5s 6s', middle: '7c 7d 8h 9s Tc', front: 'Jc Qd Kh' },
      seats: [
        { seat: 1, bet: bets[0], back: '8c 8d 9h Ts Jd', middle: 'Ac Ad Ah 3s 4s', front: 'Qc Kd As' },
        { seat: 3, bet: bets[1], back: '3d 3h 3c 4d 5d', middle: '9c 9d Qh Js Td', front: 'Qs Jh 6h' },
      ],
    },
  });
  assert.equal(res.status(), 201, await res.text());
  return res.json();
}

let dealer;
let supervisor;
let big;
let small;
const run = Date.now().toString(36);

test('the dealer signs on and two rounds are recorded, one above the approval threshold', async () => {
  dealer = await signedIn(DEALER);
  await dealer.goto(`${base}/tables`);
  const row = dealer.locator(`#table-${TABLE}`);
  await Promise.all([dealer.waitForURL(`${base}/tables/${TABLE}`), row.locator('button', { hasText: 'Sign on' }).click()]);
  big = await recordRound(dealer, `review-big-${run}`, [10_000, 600_000]);
  small = await recordRound(dealer, `review-small-${run}`, [10_000, 10_000]);
  assert.ok(big.round_no < small.round_no);
});

test('the pit manager filters the queue to the rounds waiting for approval', async () => {
  supervisor = await signedIn(SUPERVISOR);
  await supervisor.goto(`${base}/`);
  await Promise.all([supervisor.waitForURL(`${base}/review`), supervisor.click('nav a[href="/review"]')]);
  await supervisor.selectOption('#f-table', { label: TABLE });
  await supervisor.selectOption('#f-approval', 'pending');
  await Promise.all([supervisor.waitForURL(/approval=pending/), supervisor.click('#apply-filters')]);
  const rows = supervisor.locator('#queue tbody tr');
  assert.equal(await rows.count(), 1);
  assert.match(await rows.first().textContent(), new RegExp(`${TABLE} #${big.round_no}`));
  assert.match(await rows.first().textContent(), /Pending/);
  assert.match(await rows.first().textContent(), /Player foul/);
  // The filters are in the URL: the link can be shared.
  const shared = supervisor.url();
  assert.match(shared, /table=\d+/);
  await shot(supervisor, 'review-queue-pending-1280x800');
});

test('the round replay shows its cards, hands and winners, and it is approved', async () => {
  await Promise.all([
    supervisor.waitForURL(`${base}/tables/${TABLE}/rounds/${big.id}`),
    supervisor.locator('#queue tbody tr a').first().click(),
  ]);
  const seat3 = supervisor.locator('article[aria-label="Seat 3"]');
  assert.equal(await seat3.locator('.face').count(), 13, 'three hands drawn as cards');
  assert.match(await seat3.textContent(), /won by the player/);
  assert.match(await supervisor.locator('article[aria-label="Seat 1"]').textContent(), /Fouled: middle/);
  assert.match(await supervisor.locator('#recheck-ok').textContent(), /the same result/);
  assert.match(await supervisor.locator('#entered-by').textContent(), /dealer2/);
  assert.match(await supervisor.locator('#approval-state').textContent(), /Pending approval/);
  await shot(supervisor, 'review-replay-1280x800');
  await Promise.all([supervisor.waitForURL(`${base}/tables/${TABLE}/rounds/${big.id}`), supervisor.click('#approve')]);
  assert.match(await supervisor.locator('.flash').textContent(), new RegExp(`Approved round ${big.round_no}`));
  assert.match(await supervisor.locator('#approval-state').textContent(), /Approved by supervisor/);
  assert.equal(await supervisor.locator('#approve').count(), 0);
  assert.deepEqual(supervisor.problems, []);
});

test('another round is voided with a reason and stays listed, marked void', async () => {
  await supervisor.goto(`${base}/tables/${TABLE}/rounds/${small.id}`);
  await supervisor.selectOption('#void-reason', 'misdeal');
  await supervisor.fill('#void-note', 'two cards exposed');
  await Promise.all([supervisor.waitForURL(`${base}/tables/${TABLE}/rounds/${small.id}`), supervisor.click('#void')]);
  assert.match(await supervisor.locator('#void-state').textContent(), /VOID: Misdeal/);
  assert.ok(await supervisor.locator('#reenter').isVisible(), 'a void round can be entered again');
  await shot(supervisor, 'review-void-1280x800');
  await supervisor.goto(`${base}/review?void=void`);
  const rows = supervisor.locator('#queue tbody tr');
  assert.ok(await rows.count() >= 1);
  assert.match(await supervisor.locator('#queue').textContent(), new RegExp(`${TABLE} #${small.round_no}\\s*VOID`));
  assert.deepEqual(supervisor.problems, []);
});

test('the void round is entered again with the table screen\'s picker, after a preview', async () => {
  await supervisor.goto(`${base}/review/rounds/${small.id}/reenter`);
  await supervisor.waitForSelector('#picker:not([hidden]) .pick');
  assert.equal(await supervisor.locator('#reenter-submit').count(), 0, 'nothing is entered before a preview');
  // The picker greys the cards already in the round, as at the table.
  const used = await supervisor.$$eval('#picker .pick.used', (bs) => bs.length);
  assert.ok(used > 0, 'the round\'s cards are greyed on the picker');
  await Promise.all([supervisor.waitForURL(`${base}/review/rounds/${small.id}/reenter`), supervisor.click('#reenter-preview')]);
  await supervisor.waitForSelector('#preview table');
  assert.match(await supervisor.locator('#preview').textContent(), /Dealer net/);
  await shot(supervisor, 'review-reenter-preview-1280x800');
  await Promise.all([supervisor.waitForURL(new RegExp(`/tables/${TABLE}/rounds/\\d+$`)), supervisor.click('#reenter-submit')]);
  assert.match(await supervisor.locator('#replaces').textContent(), /round \d+ at [A-Z0-9-]+ \(void\)/);
  assert.deepEqual(supervisor.problems, []);
});

test('the queue and the replay on a 10-inch tablet, both ways round', async () => {
  for (const [width, height] of [[1194, 834], [834, 1194]]) {
    const page = await signedIn(SUPERVISOR, { viewport: { width, height }, hasTouch: true, isMobile: true });
    await page.goto(`${base}/review`);
    assert.ok(await page.locator('#queue tbody tr').count() >= 2);
    await shot(page, `review-queue-${width}x${height}`);
    await page.goto(`${base}/tables/${TABLE}/rounds/${big.id}`);
    await shot(page, `review-replay-${width}x${height}`);
    // Nothing wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the replay fits ${width}px (overflow ${overflow})`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});

test('the dealer signs off', async () => {
  await dealer.goto(`${base}/tables/${TABLE}`);
  const token = await dealer.locator('input[name=csrf_token]').first().inputValue();
  const res = await dealer.request.post(`${base}/tables/${TABLE}/sign-off`, { form: { csrf_token: token }, maxRedirects: 0 });
  assert.equal(res.status(), 303);
});
