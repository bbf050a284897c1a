// domains.test.mjs - the domain menu on a dldb with two NVTX domains: dlprof
// aggregates each domain on its own (aggregation 1 the default domain's,
// 2 the custom one's), the menu lists both and switching moves the whole
// page, its aggregation included, to the domain chosen.
//
// The dldb is dlprof's, from a copy of the real w_Relu export with a second
// domain added with the sqlite3 CLI: its creation row (eventType 75) and
// three push/pop ranges over the forward pass's first op ranges.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RELU_EXPORT, sql, sql1, sqlWrite, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

let dbs, servers, browser, stop;

function twoDomainExport(dir) {
  const copy = path.join(dir, 'two_domains.sqlite');
  fs.copyFileSync(RELU_EXPORT, copy);
  sqlWrite(
    copy,
    `INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
       SELECT start, start, 75, 'my-domain', globalTid, 7 FROM NVTX_EVENTS ORDER BY start LIMIT 1;
     INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
       SELECT start, end, 59, CASE WHEN n = 3 THEN 'custom-b' ELSE 'custom-a' END, globalTid, 7 FROM
         (SELECT start, end, globalTid, row_number() OVER (ORDER BY start) n FROM NVTX_EVENTS
          WHERE eventType = 59 AND text LIKE '%aten::%') WHERE n <= 3;`,
  );
  return copy;
}

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('domains', (d) => {
    const exp = twoDomainExport(d);
    const only = spawnSync(process.env.DLPROF, [`--database=${exp}`, '--domains=my-domain', '--profile_name=only', '-v', 'quiet'], { cwd: d, encoding: 'utf8' });
    if (only.status !== 0) throw new Error(`dlprof --domains=my-domain failed: ${only.stderr}`);
    return { two: dlprofDldb(exp, d, 'two'), only: path.join(d, 'only_dldb.sqlite') };
  }));
});

after(async () => {
  if (stop) await stop();
});

const keys = (page) => page.locator('section[data-table="ops"] tbody tr[data-key]').evaluateAll((trs) => trs.map((t) => t.dataset.key));
const opIds = (aggr, like) =>
  sql(dbs.two, `SELECT op_node_id AS id FROM view_op_nodes WHERE aggr_id = ${aggr} AND op_node_name LIKE '${like}' ORDER BY gpu_time DESC, op_node_id`).map((r) => r.id);

test('two domains: the menu lists both; choosing one shows its ops, aggregation and dashboard', async () => {
  // the fixture: one aggregation per domain, the default domain's first
  assert.deepEqual(sql(dbs.two, 'SELECT aggr_id AS a, domain_name AS d FROM view_performance_summary ORDER BY a'), [
    { a: 1, d: 'default-domain' },
    { a: 2, d: 'my-domain' },
  ]);
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.two.url}/#/ops?filter=custom-`);
  await settled(page);
  // opens on the default domain and its aggregation, which has no custom-* op
  assert.match(page.url(), /#\/ops\?aggr_id=1&domain=default-domain&filter=custom-$/);
  assert.equal(await page.locator('#domain-wrap').isVisible(), true);
  assert.deepEqual(await page.locator('#domain-select option').allInnerTexts(), ['default-domain', 'my-domain']);
  assert.equal(await page.locator('#domain-select').inputValue(), 'default-domain');
  assert.equal(await page.locator('#aggr-wrap').isHidden(), true); // one aggregation in each domain
  assert.deepEqual(await keys(page), []);

  // the custom domain: its aggregation (selections such as the filter are
  // dropped, as with another aggregation), the whole table of its ops
  await page.selectOption('#domain-select', 'my-domain');
  await page.waitForFunction(() => location.hash.includes('domain=my-domain'));
  await settled(page);
  assert.match(page.url(), /#\/ops\?aggr_id=2&domain=my-domain$/);
  const n2 = sql1(dbs.two, 'SELECT count(*) FROM view_op_nodes WHERE aggr_id = 2');
  assert.notEqual(n2, sql1(dbs.two, 'SELECT count(*) FROM view_op_nodes WHERE aggr_id = 1'));
  assert.match(await page.locator('section[data-table="ops"] .card-count').innerText(), new RegExp(`\\b${n2.toLocaleString('en-US')}\\b`));
  // its ops, with their calls
  await page.fill('section[data-table="ops"] input.filter', 'custom-');
  await page.waitForFunction(() => location.hash.includes('filter=custom-'));
  await settled(page);
  const custom = opIds(2, 'custom-%');
  assert.equal(custom.length, 2);
  assert.deepEqual(await keys(page), custom);
  const calls = sql(dbs.two, "SELECT op_node_name AS n, num_calls AS c FROM view_op_nodes WHERE aggr_id = 2 AND op_node_name LIKE 'custom-%' ORDER BY n");
  assert.deepEqual(calls, [
    { n: 'custom-a', c: 2 },
    { n: 'custom-b', c: 1 },
  ]);
  const rows = await page.locator('section[data-table="ops"] tbody tr[data-key]').allInnerTexts();
  assert.match(rows.find((r) => r.includes('custom-a')) || '', /\b2\b/);
  assert.ok(rows.some((r) => r.includes('custom-b')));

  // the dashboard keeps the domain: its top ops are the domain's
  await page.click('#nav a[data-view="dashboard"]');
  await page.waitForFunction(() => location.hash.startsWith('#/?'));
  await settled(page);
  assert.match(page.url(), /#\/\?aggr_id=2&domain=my-domain$/);
  const top = await page.locator('[data-panel="top10"] tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.key));
  assert.ok(top.length > 0);
  const ids2 = new Set(opIds(2, '%'));
  for (const k of top) assert.ok(ids2.has(k), k);
  assert.ok(top.includes(custom[0]), `${custom[0]} in ${top}`);

  // and back: the default domain's aggregation again
  await page.selectOption('#domain-select', 'default-domain');
  await page.waitForFunction(() => location.hash.includes('domain=default-domain'));
  await settled(page);
  assert.match(page.url(), /#\/\?aggr_id=1&domain=default-domain$/);
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.close();
});

test('two domains: a link with a domain and no aggregation opens that domain\'s newest', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.two.url}/#/ops?domain=my-domain&filter=custom-`);
  await settled(page);
  assert.match(page.url(), /#\/ops\?aggr_id=2&domain=my-domain&filter=custom-$/);
  assert.deepEqual(await keys(page), opIds(2, 'custom-%'));
  assert.equal(await page.locator('#domain-select').inputValue(), 'my-domain');
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.close();
});

test('only the custom domain aggregated: the page opens on it, no menu for the domain without rows', async () => {
  // both domains are in the file (view_domains), only my-domain has an aggregation
  assert.deepEqual(sql(dbs.only, 'SELECT domain_name AS d FROM view_domains ORDER BY d').map((r) => r.d), ['default-domain', 'my-domain']);
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.only.url}/#/ops?filter=custom-`);
  await settled(page);
  assert.match(page.url(), /#\/ops\?aggr_id=1&domain=my-domain&filter=custom-$/);
  assert.equal(await page.locator('#domain-wrap').isHidden(), true);
  const ids = sql(dbs.only, "SELECT op_node_id AS id FROM view_op_nodes WHERE op_node_name LIKE 'custom-%' ORDER BY gpu_time DESC, op_node_id").map((r) => r.id);
  assert.equal(ids.length, 2);
  assert.deepEqual(await keys(page), ids);
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.close();
});
