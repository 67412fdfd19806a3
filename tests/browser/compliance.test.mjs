// Browser test of cash-transaction compliance, against the real app (started by
// scripts/browser-test with the demo data): the cashier records chips bought at the cage by the
// demo player Jose (card RC1002) above the reporting threshold, and is told to take his
// identification; the compliance officer finds the covered transaction among the open cases,
// reads it with his identification, and files it with the regulator's reference; the
// thresholds page and the cage's cash desk are shown. Screenshots of the case, the list, the
// cash desk and the thresholds at 1280x800 and on a 10-inch tablet in both orientations go to
// target/browser-shots/compliance-*.png.
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

const CASHIER = { username: 'cashier', password: 'demo-cashier-pit' };
const OFFICER = { username: 'compliance', password: 'demo-compliance-pit' };
const DESKTOP = { width: 1280, height: 800 };
const SIZES = [DESKTOP, { width: 1194, height: 834 }, { width: 834, height: 1194 }];
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
});
after(async () => {
  await browser?.close();
});

async function signedIn(who) {
  const context = await browser.newContext({ viewport: DESKTOP });
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

async function submit(page, button) {
  await Promise.all([page.waitForNavigation(), page.locator(button).click()]);
}

/** Screenshots of the page at each size, each checked to fit its window. */
async function atEachSize(page, name) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client + 1, `${page.url()} scrolls sideways at ${size.width}: ${scroll}px in ${client}px`);
    await page.screenshot({ path: path.join(shots, `compliance-${name}-${size.width}x${size.height}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

let caseUrl;

test('the cashier records chips bought above the threshold and is told to take identification', async () => {
  const cashier = await signedIn(CASHIER);
  await cashier.goto(`${base}/cage`);
  await submit(cashier, 'h1 a[href="/cage/cash"]');
  await cashier.check('input[name=direction][value=in]');
  await cashier.selectOption('#cc-currency', 'PHP');
  await cashier.fill('#cc-amount', '5,200,000');
  await cashier.fill('#cc-card', 'RC1002');
  await cashier.fill('#cc-note', 'cash, counted twice');
  await submit(cashier, '#cage-cash-form button[type=submit]');
  const notice = await cashier.locator('body').innerText();
  assert.match(notice, /above the reporting threshold: take and check their identification/);
  assert.match(await cashier.locator('#cage-cash').innerText(), /RC1002 Jose Reyes/);
  await atEachSize(cashier, 'cash-desk');
  assert.deepEqual(cashier.problems, []);
  await cashier.context().close();
});

test('the compliance officer reads the covered transaction and files it', async () => {
  const officer = await signedIn(OFFICER);
  await officer.goto(`${base}/`);
  await officer.locator('header nav summary', { hasText: 'Chips and cash' }).click();
  await submit(officer, 'header nav a[href="/compliance"]');
  const row = officer.locator('#cases tbody tr', { hasText: 'RC1002 Jose Reyes' }).first();
  assert.match(await row.innerText(), /Covered transaction/);
  await atEachSize(officer, 'cases');
  await Promise.all([officer.waitForNavigation(), row.locator('a').first().click()]);
  caseUrl = officer.url();
  const ident = await officer.locator('#identification').innerText();
  assert.match(ident, /driver's licence N01-75-012345/);
  assert.match(ident, /1975-11-19/);
  assert.match(await officer.locator('#transactions').innerText(), /PHP 5,200,000\.00/);
  await atEachSize(officer, 'case');
  await officer.check('input[name=decision][value=filed]');
  await officer.fill('#d-reference', 'AMLC-CTR-2026-1102');
  await submit(officer, '#decide button[type=submit]');
  assert.equal(await officer.locator('#case-decision').innerText(), 'Filed');
  assert.match(await officer.locator('#decided').innerText(), /AMLC-CTR-2026-1102/);
  await officer.goto(`${base}/compliance/thresholds`);
  assert.match(await officer.locator('#thresholds').innerText(), /PHP 5,000,000\.00/);
  await atEachSize(officer, 'thresholds');
  assert.deepEqual(officer.problems, []);
  await officer.context().close();
});
