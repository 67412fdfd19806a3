// Every page of every role, at the three sizes staff use: a desktop (1280x800) and a 10-inch
// tablet in landscape (1194x834) and portrait (834x1194). Each role signs in and visits every
// page its navigation bar offers (links read from the bar, so pages added later are covered
// without changing this file); a dealer's table screen and sign-off page too. Fails on a page
// wider than the window (horizontal scrolling), a script error or a CSP violation, a staff
// header on more than one line at tablet-landscape width or wider, a checkbox not beside its
// label, a table code broken across lines, or an element marked hidden that shows.
// Screenshots of every page go to target/browser-shots/pages-*.png.
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

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1194, height: 834 },
  { width: 834, height: 1194 },
];
// dealer2, not dealer: table.test.mjs signs the demo dealer on at PUSOY-01.
// `extra`: pages reached from other pages rather than the bar (table accounting's).
const ROLES = [
  { role: 'admin', username: 'admin', password: 'demo-admin-pit',
    extra: ['/reports/accounting', '/count', '/cage/cash', '/compliance/thresholds'] },
  { role: 'supervisor', username: 'supervisor', password: 'demo-supervisor-pit',
    extra: ['/reports/accounting', '/tables/PUSOY-01/buy-ins', '/tables/PUSOY-01/slips', '/players/1',
      '/tables/PUSOY-01/observations'] },
  { role: 'dealer', username: 'dealer2', password: 'demo-dealer2-pit' },
  { role: 'auditor', username: 'auditor', password: 'demo-auditor-pit',
    extra: ['/reports/accounting', '/tables/PUSOY-01/observations'] },
  { role: 'count', username: 'counter', password: 'demo-counter-pit', tables: false },
  // The demo's players are registered first: player 1 (active) and 3 (self-excluded).
  { role: 'host', username: 'host', password: 'demo-host-pit',
    extra: ['/players/1', '/players/3'] },
  { role: 'compliance', username: 'compliance', password: 'demo-compliance-pit',
    extra: ['/compliance/thresholds', '/cage/cash'] },
  { role: 'cashier', username: 'cashier', password: 'demo-cashier-pit', tables: false,
    extra: ['/cage/cash'] },
];
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: LAUNCH_ARGS });
});
after(async () => {
  await browser?.close();
});

async function signIn(who) {
  const context = await browser.newContext({ viewport: SIZES[0] });
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

/** The same-site pages the navigation bar links to, in its order. */
async function navLinks(page) {
  await page.goto(`${base}/`);
  const hrefs = await page.$$eval('header nav a[href]', (links) => links.map((a) => a.getAttribute('href')));
  return [...new Set(hrefs.filter((h) => h.startsWith('/') && !h.startsWith('//')))];
}

/** What is wrong with the layout of the page shown, as sentences (none: nothing). */
async function layoutProblems(page, width) {
  return page.evaluate((width) => {
    const problems = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) {
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 1)
        .slice(0, 3).map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
      problems.push(`scrolls sideways: ${doc.scrollWidth}px wide in ${doc.clientWidth}px (${wide.join(', ')})`);
    }
    const bar = document.querySelector('header.topbar');
    if (bar && width >= 1194) {
      const tops = [...bar.querySelectorAll('.brand, nav > a, nav > details')]
        .map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2));
      if (tops.length && Math.max(...tops) - Math.min(...tops) > 12) {
        problems.push(`the staff header takes more than one line (${bar.getBoundingClientRect().height}px high)`);
      }
    }
    for (const box of document.querySelectorAll('input[type=checkbox], input[type=radio]')) {
      const label = box.closest('label');
      if (!label || !box.offsetParent) continue;
      const b = box.getBoundingClientRect();
      const text = [...label.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
      if (!text.length) continue;
      const range = document.createRange();
      range.selectNodeContents(text[0]);
      const t = range.getBoundingClientRect();
      if (Math.abs((t.top + t.bottom) / 2 - (b.top + b.bottom) / 2) > b.height) {
        problems.push(`checkbox ${box.name} is not beside its label "${text[0].textContent.trim()}"`);
      }
    }
    for (const cell of document.querySelectorAll('td, th, dd, h1, a, code')) {
      const text = cell.textContent.trim();
      if (!/^[A-Z0-9]+-[A-Z0-9]+$/.test(text)) continue;
      const range = document.createRange();
      range.selectNodeContents(cell);
      if (range.getClientRects().length > 1 && range.getBoundingClientRect().height > 30) {
        problems.push(`the code ${text} breaks across lines`);
      }
    }
    for (const e of document.querySelectorAll('[hidden]')) {
      if (e.getClientRects().length > 0) {
        problems.push(`${e.tagName.toLowerCase()}.${e.className} is marked hidden but shows`);
      }
    }
    // A box may scroll sideways only where it says so (data-scroll, shown as a hint); anything
    // else wider than its box is cut off.
    for (const box of document.querySelectorAll('main *')) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === 'visible' || box.closest('[data-scroll]') || !box.offsetParent) continue;
      // A label kept for screen readers only is clipped on purpose.
      if (box.classList.contains('visually-hidden')) continue;
      if (box.scrollWidth > box.clientWidth + 1) {
        problems.push(`${box.tagName.toLowerCase()}.${box.className} cuts off its content (${box.scrollWidth}px in ${box.clientWidth}px)`);
      }
    }
    // A chosen option wider than its list is cut off ("Gene" for "General").
    for (const select of document.querySelectorAll('main select')) {
      if (!select.offsetParent || select.selectedIndex < 0) continue;
      const probe = document.createElement('span');
      const style = getComputedStyle(select);
      probe.style.font = style.font;
      probe.style.position = 'absolute';
      probe.style.whiteSpace = 'pre';
      probe.textContent = select.options[select.selectedIndex].text;
      document.body.appendChild(probe);
      const needed = probe.getBoundingClientRect().width + 24;
      probe.remove();
      if (needed > select.getBoundingClientRect().width + 1) {
        problems.push(`the list ${select.name} shows "${select.options[select.selectedIndex].text}" cut off`);
      }
    }
    for (const input of document.querySelectorAll('td input[type=text], td input:not([type])')) {
      if (input.offsetParent && input.scrollWidth > input.clientWidth + 1) {
        problems.push(`the field ${input.name} (${input.value}) is cut off`);
      }
    }
    return problems;
  }, width);
}

for (const who of ROLES) {
  test(`every page of the ${who.role} at every size`, async () => {
    const page = await signIn(who);
    const pages = [...await navLinks(page), ...(who.extra || [])];
    if (who.tables !== false) assert.ok(pages.includes('/tables'), `the ${who.role}'s navigation: ${pages}`);
    const problems = [];
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const href of pages) {
        const res = await page.goto(`${base}${href}`);
        assert.ok(res.status() < 400, `${who.role} ${href}: ${res.status()}`);
        const name = `pages-${who.role}-${href.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'home'}-${size.width}x${size.height}`;
        await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
        for (const p of await layoutProblems(page, size.width)) problems.push(`${who.role} ${href} at ${size.width}x${size.height}: ${p}`);
      }
    }
    problems.push(...page.problems);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
}

test('the table screen and sign-off page of a dealer at every size', async () => {
  const page = await signIn(ROLES[2]);
  await page.goto(`${base}/tables`);
  await Promise.all([page.waitForURL(/\/tables\/PUSOY-04$/), page.click('#table-PUSOY-04 button:has-text("Sign on")')]);
  const problems = [];
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(shots, `pages-dealer-table-${size.width}x${size.height}.png`), fullPage: true });
    for (const p of await layoutProblems(page, size.width)) problems.push(`table screen at ${size.width}x${size.height}: ${p}`);
  }
  await page.goto(`${base}/tables`);
  await Promise.all([page.waitForURL(/sign-off$/), page.click('#table-PUSOY-04 a:has-text("Sign off")')]);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(shots, `pages-dealer-sign_off-${size.width}x${size.height}.png`), fullPage: true });
    for (const p of await layoutProblems(page, size.width)) problems.push(`sign-off at ${size.width}x${size.height}: ${p}`);
  }
  assert.match(await page.locator('#shift-summary').innerText(), /Rounds settled\s+0/);
  await Promise.all([page.waitForURL(/\/tables$/), page.click('#shift-summary button[type=submit]')]);
  assert.match(await page.locator('.flash').innerText(), /You are signed off at PUSOY-04/);
  problems.push(...page.problems);
  assert.deepEqual(problems, []);
  await page.context().close();
});
