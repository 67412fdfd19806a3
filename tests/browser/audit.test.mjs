// Browser test of the auditor's pages against the real app (started by scripts/browser-test,
// which passes its address in PUSOY_BASE_URL): the demo auditor signs in, runs a verification
// of the audit trail from /audit (its progress shows while it runs, then the verdict per
// chain), and searches the events by action. Screenshots go to target/browser-shots/ (or
// BROWSER_SHOTS) at 1280x800 and on a 10-inch tablet both ways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const shots = process.env.BROWSER_SHOTS || path.resolve(here, '../../target/browser-shots');
const AUDITOR = { username: 'auditor', password: 'demo-auditor-pit' };

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

async function auditorPage(viewport) {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
  await page.goto(`${base}/login`);
  await page.fill('#username', AUDITOR.username);
  await page.fill('#password', AUDITOR.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('form button[type=submit]')]);
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

test('an auditor verifies the trail, sees the verdict per chain, and searches the events', async () => {
  const page = await auditorPage({ width: 1280, height: 800 });
  await page.goto(`${base}/audit`);
  await page.click('#verify button[type=submit]');
  // The check runs in the background: the page shows its progress (refreshing itself) until
  // the verdict is recorded. A small trail may be done before the first look.
  const progress = page.locator('#progress');
  if (await progress.count()) {
    assert.match(await progress.innerText(), /Checking: \d+ of \d+ events, \d+ of \d+ chains done/);
    await shot(page, 'audit-progress-1280x800');
  }
  // Read the page afresh until the check has ended (the page also refreshes itself meanwhile).
  for (let i = 0; i < 60; i += 1) {
    await page.goto(`${base}/audit`);
    if (!(await page.locator('#progress').count()) && (await page.locator('#verdict-line').count())) break;
    await page.waitForTimeout(500);
  }
  const verdict = await page.locator('#verdict-line').innerText();
  assert.match(verdict, /Intact\./, verdict);
  assert.match(verdict, /Checked \d{4}-\d\d-\d\d \d\d:\d\d \(PHT, UTC[+-]\d\d:\d\d\) by auditor/, verdict);
  assert.ok(await page.locator('#verdict td.code', { hasText: 'system' }).count() >= 1, 'the system chain is listed');
  await shot(page, 'audit-verdict-1280x800');

  // The search: by action, the details written out.
  await page.goto(`${base}/audit/events`);
  await page.selectOption('select[name=action]', 'audit.verified');
  await Promise.all([page.waitForURL(/action=audit.verified/), page.click('form.filters button[type=submit]')]);
  const rows = page.locator('table.events tbody tr');
  assert.ok(await rows.count() >= 1, 'the verification is found');
  assert.match(await rows.first().innerText(), /Intact: \d+ event\(s\) on \d+ chain\(s\)/);
  await shot(page, 'audit-events-1280x800');
  assert.deepEqual(page.problems, []);
  await page.context().close();

  for (const [name, viewport] of [['1194x834', { width: 1194, height: 834 }], ['834x1194', { width: 834, height: 1194 }]]) {
    const tablet = await auditorPage(viewport);
    await tablet.goto(`${base}/audit`);
    await shot(tablet, `audit-verdict-${name}`);
    await tablet.goto(`${base}/audit/events`);
    await shot(tablet, `audit-events-${name}`);
    assert.deepEqual(tablet.problems, []);
    await tablet.context().close();
  }
});
