// Browser test of the pit manager's board and reports against the real app (started by
// scripts/browser-test, which passes its address in PUSOY_BASE_URL): the supervisor opens the
// pit board and watches it refresh itself when a dealer records a round at PUSOY-02 (through the
// API, in another session), then opens the day's report and its charts. Screenshots at 1280x800
// and on a 10-inch tablet in both orientations go to target/browser-shots/ (or BROWSER_SHOTS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const shots = process.env.BROWSER_SHOTS || path.resolve(here, '../../target/browser-shots');
const TABLE = 'PUSOY-02';
const SUPERVISOR = { username: 'supervisor', password: 'demo-supervisor-pit' };
const DEALER = { username: 'dealer2', password: 'demo-dealer2-pit' };
const SIZES = [
  ['desktop', { width: 1280, height: 800 }],
  ['tablet-landscape', { width: 1194, height: 834 }],
  ['tablet-portrait', { width: 834, height: 1194 }],
];

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

/** A signed-in page of `who`; script errors and CSP violations are collected in `problems`. */
async function signedIn(who, viewport) {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(String(e)));
  // A failed load is reported by its address (the console's message does not name it); a page
  // opened straight on an SVG makes Chromium look for /favicon.ico, which the app does not serve.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) page.problems.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) page.problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${base}/login`);
  await page.fill('#username', who.username);
  await page.fill('#password', who.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('form button[type=submit]')]);
  return page;
}

async function shot(page, name, options = {}) {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, ...options });
  return file;
}

/** The CSRF token of a page's session, read from its sign-out form. */
async function csrf(page) {
  return page.locator('input[name=csrf_token]').first().inputValue();
}

/** Seat 1 fouls, seat 2 surrenders, seat 3 wins two hands of three: the house wins 900.00. */
const ROUND = {
  dealer: { back: '2c 2d 2h 5s 6s', middle: '7c 7d 8h 9s Tc', front: 'Jc Qd Kh' },
  seats: [
    { seat: 1, bet: 50000, back: '8c 8d 9h Ts Jd', middle: 'Ac Ad Ah 3s 4s', front: 'Qc Kd As' },
    { seat: 2, bet: 20000, action: 'surrender' },
    { seat: 3, bet: 30000, back: '3d 3h 3c 4d 5d', middle: '9c 9d Qh Js Td', front: 'Qs Jh 6h' },
  ],
};

test('the supervisor watches the pit board refresh and reads the day report with its charts', async () => {
  const pit = await signedIn(SUPERVISOR, SIZES[0][1]);
  await pit.goto(`${base}/pit?refresh=2`);
  const tile = pit.locator(`#pit-${TABLE}`);
  await tile.waitFor();
  assert.equal(await tile.locator('[data-field="status"]').textContent(), 'Closed');

  // A dealer signs on at PUSOY-02 and records a round in another session.
  const dealer = await signedIn(DEALER, SIZES[0][1]);
  const token = await csrf(dealer);
  const signOn = await dealer.request.post(`${base}/tables/${TABLE}/sign-on`, {
    form: { csrf_token: token }, maxRedirects: 0,
  });
  assert.equal(signOn.status(), 303);
  try {
    const key = `pit-browser-${Date.now()}`;
    const recorded = await dealer.request.put(`${base}/api/v1/tables/${TABLE}/rounds/${key}`, {
      data: ROUND, headers: { 'X-CSRF-Token': token },
    });
    assert.equal(recorded.status(), 201, await recorded.text());
    // The open board picks it up by itself, without a reload.
    const navigations = [];
    pit.on('framenavigated', (f) => { if (f === pit.mainFrame()) navigations.push(f.url()); });
    await pit.waitForFunction((code) => {
      const t = document.getElementById(`pit-${code}`);
      return t && t.querySelector('[data-field="status"]').textContent === 'Open'
        && t.querySelector('[data-field="shift_rounds"]').textContent === '1';
    }, TABLE);
    assert.deepEqual(navigations, [], 'the board refreshed in place');
    assert.match(await tile.locator('[data-field="dealer"]').textContent(), /Dario Dealer/);
    assert.match(await tile.locator('[data-field="since"]').textContent(), /since .*\(PHT, UTC[+-]\d\d:\d\d\)/);
    assert.match(await tile.locator('[data-field="shift_house_text"]').textContent(), /^PHP \+900\.00$/);
    // "0 rounds" on load, "1 round" once refreshed in place.
    assert.equal(await tile.locator('[data-field="shift_rounds_word"]').textContent(), 'round');
    assert.ok(Number(await pit.locator('#pit-status').getAttribute('data-refreshed')) >= 1);
    for (const [name, viewport] of SIZES) {
      await pit.setViewportSize(viewport);
      await shot(pit, `pit-board-${name}`);
    }

    // The day's report: the table's line and the charts, then as printed.
    await pit.setViewportSize(SIZES[0][1]);
    await Promise.all([pit.waitForURL(/\/reports/), pit.click('a[href="/reports"] >> nth=-1')]);
    const row = pit.locator('table.figures tr', { has: pit.locator(`th:text-is("${TABLE}")`) });
    assert.equal(await row.count(), 1);
    assert.ok(Number(await row.locator('[data-col="rounds"]').textContent()) >= 1);
    const charts = pit.locator('.charts img');
    assert.ok(await charts.count() >= 2);
    for (const img of await charts.all()) {
      await img.scrollIntoViewIfNeeded();
      await pit.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
    }
    for (const [name, viewport] of SIZES) {
      await pit.setViewportSize(viewport);
      await shot(pit, `report-day-${name}`, { fullPage: true });
    }
    await pit.emulateMedia({ media: 'print' });
    await pit.setViewportSize(SIZES[0][1]);
    await shot(pit, 'report-day-print', { fullPage: true });
    await pit.emulateMedia({ media: 'screen' });

    // The house-way report of the same days: the round's dealer measured, on screen at every size.
    await Promise.all([pit.waitForURL(/\/reports\/house-way/), pit.click('#house-way-report')]);
    assert.equal(await pit.locator('#house-way-dealers table.figures tbody tr').count() >= 1, true);
    assert.ok(Number(await pit.locator('#house-way-dealers [data-col="sets"]').first().textContent()) >= 1);
    for (const [name, viewport] of SIZES) {
      await pit.setViewportSize(viewport);
      const overflow = await pit.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `the house-way report fits ${name} (overflow ${overflow})`);
      await shot(pit, `report-house-way-${name}`, { fullPage: true });
    }
    await pit.setViewportSize(SIZES[0][1]);
    await pit.goBack();

    // The chart on its own, as a link opens it.
    const chart = await pit.request.get(`${base}${await charts.first().getAttribute('src')}`);
    assert.equal(chart.status(), 200);
    assert.equal(chart.headers()['content-type'], 'image/svg+xml');
    await pit.goto(`${base}${await charts.nth(1).getAttribute('src')}`);
    await shot(pit, 'report-chart-tables');
    assert.deepEqual(pit.problems, []);
    assert.deepEqual(dealer.problems, []);
  } finally {
    const off = await dealer.request.post(`${base}/tables/${TABLE}/sign-off`, {
      form: { csrf_token: token }, maxRedirects: 0,
    });
    assert.equal(off.status(), 303);
  }
});
