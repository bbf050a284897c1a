// panels.test.mjs - the dashboard's panel table: on a full database every
// panel is there, in the page's order and rows; on one without the views
// the panels read, each such panel says which view is missing and why, and
// the rest (System Config, Guidance) still render, with nothing failing in
// the console and the page marked rendered.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_RELU, sqlWrite, tempCopy, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

/* Each panel whose data comes from one view, and that view. */
const PANEL_VIEWS = [
  ['gpu-utilization', 'view_domain_model_gpu_utilization'],
  ['kernel-time', 'view_kernel_summary'],
  ['tc-efficiency', 'view_tc_utilization'],
  ['performance-summary', 'view_performance_summary'],
  ['iteration-summary', 'view_iterations_profiled'],
  ['top10', 'view_op_nodes'],
  ['expert-systems', 'view_expert_systems'],
];

let full;
let bare;
let db;
let browser;

before(async () => {
  db = tempCopy(NO_RELU, 'bare.sqlite');
  sqlWrite(db, PANEL_VIEWS.map(([, v]) => `DROP VIEW ${v};`).join(' '));
  full = await startServer(NO_RELU);
  bare = await startServer(db);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (full) await full.stop();
  if (bare) await bare.stop();
  if (db) fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

async function dashboard(server) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => document.documentElement.dataset.rendered === 'dashboard', null, { timeout: 15000 });
  await settled(page);
  return page;
}

/* The data-panel ids of each grid row, in page order. */
const layout = (page) =>
  page.$$eval('.view .grid', (rows) => rows.map((r) => [...r.querySelectorAll(':scope > [data-panel]')].map((c) => c.dataset.panel)));

test('every panel of a full database, in its row and order', async () => {
  const page = await dashboard(full);
  assert.deepEqual(await layout(page), [
    ['gpu-utilization', 'resource-usage', 'kernel-time', 'tc-efficiency'],
    ['performance-summary', 'iteration-summary'],
    ['top10', 'system-config'],
    ['expert-systems', 'guidance'],
  ]);
  assert.equal(await page.locator('.note-missing').count(), 0);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a panel whose view is missing says which and why; the rest render', async () => {
  const page = await dashboard(bare);
  assert.equal((await layout(page)).flat().length, 10);
  for (const [panel, view] of PANEL_VIEWS) {
    const n = page.locator(`[data-panel="${panel}"] .note-missing`);
    assert.equal(await n.getAttribute('data-missing'), view, panel);
    assert.match(await n.innerText(), new RegExp(`has no .*${view}.* needs`), panel);
  }
  assert.match(await page.locator('[data-panel="iteration-summary"] .note-missing').innerText(), /the Iteration Summary needs/);
  assert.equal(await page.locator('[data-panel="resource-usage"] .note-missing').count(), 0);
  assert.ok(await page.locator('[data-panel="resource-usage"] .donut-big').innerText());
  assert.match(await page.locator('[data-panel="system-config"]').innerText(), /GPU Count/);
  assert.ok(await page.locator('[data-panel="guidance"] ul.links li').count());
  assert.deepEqual(page.problems, []);
  await page.close();
});
