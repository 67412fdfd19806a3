// Browser test of the auditor's exports (run by scripts/browser-test, which passes the app's
// address in PUSOY_BASE_URL and the binary in PUSOY_BIN): the demo auditor signs in, follows
// Exports in the menu, asks for a range that ends before it starts (refused, on the form), then
// downloads today's audit events as CSV and its rounds as JSON Lines; each downloaded file
// passes `pusoy-pit audit verify-export`. Screenshots at 1280x800 and on a 10-inch tablet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.PUSOY_BASE_URL;
const bin = process.env.PUSOY_BIN || path.resolve(here, '../../target/debug/pusoy-pit');
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

async function auditorPage(contextOptions) {
  const context = await browser.newContext({ acceptDownloads: true, ...contextOptions });
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

/** Downloads the export the form asks for and returns the saved file's path. */
async function download(page, dir, kind, format) {
  await page.selectOption('#export-kind', kind);
  await page.selectOption('#export-format', format);
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#export-download')]);
  const name = file.suggestedFilename();
  assert.match(name, new RegExp(`^pusoy-${kind}-.*\\.${format}$`));
  const saved = path.join(dir, name);
  await file.saveAs(saved);
  return saved;
}

/** Runs verify-export on a file: its exit status and what it printed. */
function verifyExport(file) {
  try {
    return { status: 0, out: execFileSync(bin, ['audit', 'verify-export', file], { encoding: 'utf8' }) };
  } catch (e) {
    return { status: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

test('an auditor downloads exports that pass verify-export', async () => {
  const page = await auditorPage({ viewport: { width: 1280, height: 800 } });
  await page.click('nav.menu >> text=Exports');
  await page.waitForURL(`${base}/audit/exports`);
  await page.screenshot({ path: path.join(shots, 'export-form.png') });

  // A range that ends before it starts is refused on the form, naming the range.
  const today = await page.inputValue('#export-from');
  await page.fill('#export-to', '2000-01-01');
  await page.click('#export-download');
  await page.waitForSelector('#range-error');
  assert.match(await page.textContent('#range-error'), /starts .* after it ends/);
  await page.screenshot({ path: path.join(shots, 'export-refused.png') });
  await page.fill('#export-to', today);

  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'export-test-'));
  const events = await download(page, dir, 'events', 'csv');
  const checked = verifyExport(events);
  assert.equal(checked.status, 0, checked.out);
  assert.match(checked.out, /: intact: [1-9][0-9]* events row/);
  assert.match(fs.readFileSync(events, 'utf8').trimEnd().split('\n').at(-1), /^#manifest,/);

  const rounds = await download(page, dir, 'rounds', 'jsonl');
  const roundsChecked = verifyExport(rounds);
  assert.equal(roundsChecked.status, 0, roundsChecked.out);

  // One changed byte in the downloaded file is found.
  const text = fs.readFileSync(events, 'utf8');
  const at = text.indexOf('auditor');
  fs.writeFileSync(events, `${text.slice(0, at)}Auditor${text.slice(at + 'auditor'.length)}`);
  const tampered = verifyExport(events);
  assert.equal(tampered.status, 1, tampered.out);
  assert.match(tampered.out, /NOT intact/);
  assert.match(tampered.out, /row \d+, field \w+: changed/);
  // The refused range above answers 400 on purpose; nothing else may go wrong.
  assert.deepEqual(page.problems.filter((p) => !p.includes('status of 400')), []);

  for (const [name, viewport] of [['export-tablet-landscape', { width: 1194, height: 834 }],
    ['export-tablet-portrait', { width: 834, height: 1194 }]]) {
    await page.setViewportSize(viewport);
    await page.goto(`${base}/audit/exports`);
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  await page.context().close();
});
