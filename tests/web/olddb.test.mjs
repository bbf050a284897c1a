// olddb.test.mjs - a database without some views (as an older DLProf wrote)
// still opens: views that need the missing data say which view is missing
// and why, the others work, and nothing fails in the console; and one whose
// ops have no Tensor Core eligible GPU time shows no TC efficiency.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_RELU, sqlWrite, tempCopy, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

let db;
let server;
let browser;

before(async () => {
  db = tempCopy(NO_RELU, 'old.sqlite');
  // and no GPU time in Tensor Core eligible ops (the TC efficiency is then undefined)
  sqlWrite(db, 'DROP VIEW view_group_ops; DROP VIEW view_resource_usage_breakdown; ' +
    'UPDATE category_summary SET gpu_time = 0 WHERE id IN (SELECT nodes_tc_eligible_id FROM model_summary);');
  server = await startServer(db);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (db) fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

test('group ops says that view_group_ops is missing', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/#/group-ops`);
  await settled(page);
  const n = page.locator('.note-missing');
  assert.equal(await n.getAttribute('data-missing'), 'view_group_ops');
  assert.match(await n.innerText(), /has no group-op data .*view_group_ops.*Group Ops/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the dashboard works without resource usage data', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/`);
  await settled(page);
  assert.match(await page.locator('[data-panel="resource-usage"] .note-missing').innerText(), /view_resource_usage_breakdown/);
  assert.equal(await page.locator('[data-panel="kernel-time"] .donut-big').innerText(), '352 µs');
  assert.equal(await page.locator('[data-panel="tc-efficiency"] .donut-big').innerText(), 'n/a');
  assert.match(await page.locator('[data-panel="tc-efficiency"]').innerText(), /No Tensor Core eligible op ran on the GPU/);
  assert.deepEqual(page.problems, []);
  await page.close();
});
