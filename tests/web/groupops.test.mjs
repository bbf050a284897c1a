// groupops.test.mjs - Group Ops on three shapes of tree: dlprof's dldb of
// DLProf's w_Relu run (a deep tree whose root "/" holds the scoped ops, with
// two unassociated_* ops beside it, as in NVIDIA DLProf's own database); a
// copy of NVIDIA's no_relu cut to levels 1-3 (every group open by default);
// and dlprof's dldb of CloverLeaf (ops only, no group). The root does not
// claim to be "all", and Expand all / Collapse all are enabled only where
// they change something.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NO_RELU, RELU_EXPORT, CLOVER_EXPORT, sql1, sqlWrite, tempCopy, dlprofDldb, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

let dir;
let dbs = {};
let servers = {};
let browser;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-groupops-'));
  const shallow = tempCopy(NO_RELU, 'shallow.sqlite');
  sqlWrite(shallow, 'DELETE FROM group_ops WHERE level > 3;'); // NVIDIA's table behind view_group_ops
  dbs = { relu: dlprofDldb(RELU_EXPORT, dir, 'relu'), clover: dlprofDldb(CLOVER_EXPORT, dir, 'clover'), shallow };
  for (const [k, db] of Object.entries(dbs)) servers[k] = await startServer(db);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  for (const s of Object.values(servers)) await s.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  if (dbs.shallow) fs.rmSync(path.dirname(dbs.shallow), { recursive: true, force: true });
});

async function open(name) {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[name].url}/#/group-ops`);
  await settled(page);
  await page.waitForSelector('table.tree tbody tr:not(.placeholder)');
  return page;
}

const q = (name, s) => sql1(dbs[name], s.replaceAll('$A', `(SELECT max(aggr_id) FROM view_aggregations)`));
const rows = (page) => page.locator('table.tree tbody tr').count();
const disabled = (page, action) => page.locator(`[data-action="${action}"]`).isDisabled();

test('w_Relu: the root is labelled as the scoped ops, and the hint says where the others are', async () => {
  const page = await open('relu');
  const ops = q('relu', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A AND row_type = 2');
  const scoped = q('relu', "SELECT count(*) FROM view_group_ops WHERE aggr_id = $A AND row_type = 2 AND row_full_name LIKE '/%'");
  assert.deepEqual([scoped, ops], [34, 36]);
  const root = page.locator('table.tree tr[data-key="g:/"] .tree-label');
  assert.equal(await root.innerText(), '/ (scoped ops)');
  assert.match(await root.getAttribute('title'), /outside every scope are listed beside it/);
  assert.doesNotMatch(await page.locator('table.tree tbody').innerText(), /\(all\)/);
  assert.match(await page.locator('section[data-table="group-ops"] .card-hint').innerText(), /unassociated_\* API calls\) are listed beside it/);
  // the two unassociated ops are top-level rows beside the root
  const top = await page.locator('table.tree tbody tr[data-level="1"]').evaluateAll((trs) => trs.map((t) => t.dataset.key));
  assert.equal(top.length, 3);
  assert.ok(top.includes('g:/'));
  // a deep tree: both buttons do something
  assert.equal(await disabled(page, 'expand-all'), false);
  assert.equal(await disabled(page, 'collapse-all'), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a tree open by default (groups at levels 1-3): Expand all is off, Collapse all collapses the root', async () => {
  const page = await open('shallow');
  const all = q('shallow', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A');
  const top = q('shallow', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A AND level = 1');
  assert.equal(await rows(page), all, 'every row is shown by default');
  assert.equal(await disabled(page, 'expand-all'), true, 'Expand all has nothing to open');
  assert.equal(await disabled(page, 'collapse-all'), false);
  await page.click('[data-action="collapse-all"]');
  await page.waitForFunction((n) => document.querySelectorAll('table.tree tbody tr').length === n, top);
  assert.equal(await page.locator('table.tree tr[data-key="g:/"]').getAttribute('aria-expanded'), 'false');
  assert.equal(await disabled(page, 'collapse-all'), true);
  assert.equal(await disabled(page, 'expand-all'), false);
  await page.click('[data-action="expand-all"]');
  await page.waitForFunction((n) => document.querySelectorAll('table.tree tbody tr').length === n, all);
  assert.equal(await disabled(page, 'expand-all'), true);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('CloverLeaf: ops only, no group: both buttons are off and the hint says why', async () => {
  const page = await open('clover');
  assert.equal(q('clover', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A AND row_type = 1'), 0);
  assert.equal(await rows(page), q('clover', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A'));
  assert.equal(await disabled(page, 'expand-all'), true);
  assert.equal(await disabled(page, 'collapse-all'), true);
  assert.match(await page.locator('section[data-table="group-ops"] .card-hint').innerText(), /No op is in a name scope/);
  assert.deepEqual(page.problems, []);
  await page.close();
});
