// groupops.test.mjs - Group Ops on three shapes of tree: dlprof's dldb of
// DLProf's w_Relu run (a deep tree whose root "/" holds the scoped ops, with
// two unassociated_* ops beside it, as in NVIDIA DLProf's own database); a
// copy of NVIDIA's no_relu cut to levels 1-3 (every group open by default);
// and dlprof's dldb of CloverLeaf (ops only, no group). The root does not
// claim to be "all", and Expand all / Collapse all are enabled only where
// they change something; the server pages the tree (the top rows and each
// opened group's children, a page at a time). On the dldb of a Kineto trace
// (HTA's DDP run, about 460 ops) a click on an op leads to the page of Ops
// and Kernels that holds it, highlighted and scrolled into view.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  NO_RELU,
  RELU_EXPORT,
  CLOVER_EXPORT,
  DDP_KINETO,
  sql,
  sql1,
  sqlWrite,
  dlprofDldb,
  viewersOn,
  watchedPage,
  settled,
} from './helpers.mjs';

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('groupops', (dir) => {
    const shallow = path.join(dir, 'shallow.sqlite');
    fs.copyFileSync(NO_RELU, shallow);
    fs.chmodSync(shallow, 0o644);
    sqlWrite(shallow, 'DELETE FROM group_ops WHERE level > 3;'); // NVIDIA's table behind view_group_ops
    return {
      relu: dlprofDldb(RELU_EXPORT, dir, 'relu'),
      clover: dlprofDldb(CLOVER_EXPORT, dir, 'clover'),
      ddp: dlprofDldb(DDP_KINETO, dir, 'ddp'),
      shallow,
    };
  }));
});

after(async () => {
  if (stop) await stop();
});

async function open(name, params = '') {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[name].url}/#/group-ops${params}`);
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
  const all = q('clover', 'SELECT count(*) FROM view_group_ops WHERE aggr_id = $A');
  assert.ok(all > 200, `${all} ops: more than two pages of the top rows`);
  // the first page of the top rows, then "Show 100 more": the server pages the tree
  assert.equal(await rows(page), 100 + 1);
  assert.equal(await page.locator('table.tree tr.tree-more').innerText(), `Show 100 more (100 of ${all.toLocaleString('en-US')} shown)`);
  await page.click('table.tree tr.tree-more button[data-action="more"]');
  await page.waitForFunction(() => document.querySelectorAll('table.tree tbody tr.tree-op').length === 200);
  await settled(page);
  assert.equal(await rows(page), 200 + 1);
  assert.equal(await disabled(page, 'expand-all'), true);
  assert.equal(await disabled(page, 'collapse-all'), true);
  assert.match(await page.locator('section[data-table="group-ops"] .card-hint').innerText(), /No op is in a name scope/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('w_Relu: a group opened by hand reads its children from the server, a page at a time', async () => {
  const asked = [];
  const page = await watchedPage(browser.context);
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/v1/group_ops' && (u.searchParams.has('parent') || u.searchParams.has('top')))
      asked.push({
        parent: u.searchParams.get('parent') ?? '',
        offset: u.searchParams.get('offset'),
        limit: u.searchParams.get('limit'),
      });
  });
  await page.goto(`${servers.relu.url}/#/group-ops?expand=none&limit=3`);
  await settled(page);
  await page.waitForSelector('table.tree tbody tr:not(.placeholder)');
  assert.deepEqual(asked, [{ parent: '', offset: '0', limit: '3' }], 'the top rows only');
  assert.equal(await rows(page), 3);
  // open "/" and then "/module/", whose children take two pages of 3
  const children = (p) =>
    sql(
      dbs.relu,
      `SELECT row_full_name AS n FROM view_group_ops WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations) AND row_full_name LIKE '${p}_%' AND substr(row_full_name, ${p.length + 1}) NOT LIKE '%/_%' ORDER BY row_trimmed_name, row_full_id`,
    ).map((r) => r.n);
  const kids = children('/module/');
  assert.equal(kids.length, 5);
  await page.click('table.tree tr[data-key="g:/"] .tree-toggle');
  await page.waitForSelector('table.tree tr[data-key="g:/module/"]');
  await page.click('table.tree tr[data-key="g:/module/"] .tree-toggle');
  await page.waitForSelector('table.tree tr.tree-more');
  await settled(page);
  const under = () => page.locator('table.tree tbody tr[data-level="3"]').evaluateAll((trs) => trs.map((t) => t.querySelector('.tree-label').title));
  assert.deepEqual(await under(), kids.slice(0, 3));
  assert.equal(await page.locator('table.tree tr.tree-more').innerText(), 'Show 2 more (3 of 5 shown)');
  await page.click('table.tree tr.tree-more button[data-action="more"]');
  await page.waitForFunction(() => !document.querySelector('table.tree tr.tree-more'));
  await settled(page);
  assert.deepEqual(await under(), kids);
  assert.deepEqual(asked, [
    { parent: '', offset: '0', limit: '3' },
    { parent: '/', offset: '0', limit: '3' },
    { parent: '/module/', offset: '0', limit: '3' },
    { parent: '/module/', offset: '3', limit: '3' },
  ]);
  assert.deepEqual(page.problems, []);
  await page.close();
});

/* ---- Group Ops -> Ops and Kernels ----------------------------------------------- */

/** An op's 0-based place in Ops and Kernels' default order (GPU time descending, then op id, docs/api.md). */
const rankOf = (id) =>
  q(
    'ddp',
    `SELECT n FROM (SELECT op_node_id, row_number() OVER (ORDER BY gpu_time DESC, op_node_id) - 1 AS n FROM view_op_nodes WHERE aggr_id = $A) WHERE op_node_id = '${id}'`,
  );

/** The highlighted row of the ops table: its key, and whether it is inside the window. */
const selectedRow = (page) =>
  page.locator('section[data-table="ops"] tbody tr.selected').evaluateAll((trs) =>
    trs.map((tr) => {
      const r = tr.getBoundingClientRect();
      return {
        key: tr.dataset.key,
        aria: tr.getAttribute('aria-selected'),
        inView: r.top >= 0 && r.bottom <= window.innerHeight,
      };
    }),
  );

const hashParam = (page, name) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] || '').get(name);

test('DDP: a click on an op in Group Ops shows its row in Ops and Kernels: its page, highlighted, in view', async () => {
  const id = '___ALL2ALL_DATA_INDICES_WEIGHTS____1';
  assert.ok(q('ddp', 'SELECT count(*) FROM view_op_nodes WHERE aggr_id = $A') > 400, 'hundreds of ops: several pages');
  const rank = rankOf(id);
  assert.ok(rank >= 25, `${id} is on the first page (${rank})`);
  const page = await open('ddp', '?filter=indices_weights');
  await page.click(`table.tree tr[data-key="o:${id}"]`);
  await page.waitForFunction((k) => document.querySelector(`section[data-table="ops"] tbody tr.selected[data-key="${k}"]`), id, { timeout: 10000 });
  await settled(page);
  const off = Math.floor(rank / 25) * 25;
  assert.equal(hashParam(page, 'op'), id);
  assert.equal(hashParam(page, 'offset'), String(off));
  assert.match(await page.locator('section[data-table="ops"] .range').innerText(), new RegExp(`^${off + 1}–`));
  assert.deepEqual(await selectedRow(page), [{ key: id, aria: 'true', inView: true }]);
  assert.equal(await page.locator('section[data-table="kernels"] .card-title').innerText(), `Kernels of ${id}`);
  // Back returns to Group Ops (the page turn replaced the history entry)
  await page.goBack();
  await page.waitForFunction(() => location.hash.startsWith('#/group-ops'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('DDP: a link to an op low on a later page scrolls it into view; one the filter hides says so', async () => {
  // the 21st row of the 5th page: below the window's fold when unscrolled
  const id = q('ddp', `SELECT op_node_id FROM view_op_nodes WHERE aggr_id = $A ORDER BY gpu_time DESC, op_node_id LIMIT 1 OFFSET 120`);
  assert.equal(rankOf(id), 120);
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.ddp.url}/#/ops?op=${encodeURIComponent(id)}`);
  await page.waitForFunction((k) => document.querySelector(`section[data-table="ops"] tbody tr.selected[data-key="${k}"]`), id, { timeout: 10000 });
  await settled(page);
  assert.equal(hashParam(page, 'offset'), '100');
  assert.deepEqual(await selectedRow(page), [{ key: id, aria: 'true', inView: true }]);
  assert.ok((await page.evaluate(() => window.scrollY)) > 0, 'the page scrolled to the row');
  // a row clicked in the table stays where it is: no page turn, no scroll
  const y = await page.evaluate(() => window.scrollY);
  const other = page.locator('section[data-table="ops"] tbody tr.selected + tr'); // in view below it
  const otherId = await other.getAttribute('data-key');
  await other.click();
  await page.waitForFunction((k) => document.querySelector(`section[data-table="ops"] tbody tr.selected[data-key="${k}"]`), otherId, { timeout: 10000 });
  await settled(page);
  assert.equal(hashParam(page, 'offset'), '100');
  assert.equal(await page.evaluate(() => window.scrollY), y);
  await page.close();

  const p2 = await watchedPage(browser.context);
  await p2.goto(`${servers.ddp.url}/#/ops?filter=zeros&op=${encodeURIComponent(id)}`);
  await p2.waitForFunction(
    () => /is not among the ops listed here/.test(document.querySelector('section[data-table="ops"] .card-hint')?.textContent || ''),
    null,
    { timeout: 10000 },
  );
  await settled(p2);
  assert.match(await p2.locator('section[data-table="ops"] .card-hint').innerText(), new RegExp(`Op ${id} is not among the ops listed here \\(see the filter`));
  assert.equal(hashParam(p2, 'offset'), null);
  const k = await p2.locator('section[data-table="kernels"] .card-title').evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      text: el.textContent,
      inView: r.top >= 0 && r.bottom <= window.innerHeight,
    };
  });
  assert.deepEqual(k, { text: `Kernels of ${id}`, inView: true });
  assert.deepEqual(p2.problems, []);
  await p2.close();
});
