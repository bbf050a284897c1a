// views.test.mjs - every view of the page on NVIDIA's no_relu database:
// the numbers shown against the database (read with the sqlite3 CLI), no
// console errors or failed requests, drill-downs, URL state, deep links,
// back/forward, sorting, paging, filtering, CSV links and the expert-system
// actions. Saves a dashboard screenshot into the artifacts folder.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_RELU, ARTIFACTS, sql, sql1, startServer, launchBrowser, watchedPage, settled, num } from './helpers.mjs';

const DB = NO_RELU;
let server;
let browser;

before(async () => {
  server = await startServer(DB);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const AGGR = () => sql1(DB, 'SELECT max(aggr_id) FROM view_aggregations');
const q = (s) => sql1(DB, s.replaceAll('$A', String(AGGR())));

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/${route}`);
  await settled(page);
  return page;
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
}

// No text of a value that was not there ("null" where a panel is missing).
async function noStrayText(page, where) {
  const stray = await page.evaluate(() => {
    const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const out = [];
    for (let n = w.nextNode(); n; n = w.nextNode()) if (/^\s*(null|undefined|NaN)\s*$/.test(n.textContent)) out.push(n.parentElement?.tagName);
    return out;
  });
  assert.deepEqual(stray, [], `${where}: stray null/undefined/NaN text`);
}

const title = (page, sel) => page.locator(sel).first().getAttribute('title');
const text = (page, sel) => page.locator(sel).first().innerText();
const fmt = (n) => new Intl.NumberFormat('en-US').format(n);

test('dashboard shows the database numbers', async () => {
  const page = await open('');
  // The hash is completed with the defaults so that the URL can be copied.
  assert.match(page.url(), new RegExp(`#/\\?aggr_id=${AGGR()}&domain=default-domain$`));

  const wall = q('SELECT wall_clock_time FROM view_performance_summary WHERE aggr_id=$A');
  assert.equal(wall, 2864091540);
  assert.equal(await title(page, '[data-panel="performance-summary"] [data-key="wall_clock_time"] dd span'), `${fmt(wall)} ns`);
  assert.equal(await text(page, '[data-panel="performance-summary"] [data-key="wall_clock_time"] dd'), '2.86 s');
  const iters = q('SELECT total_iterations FROM view_performance_summary WHERE aggr_id=$A');
  assert.equal(num(await text(page, '[data-panel="performance-summary"] [data-key="total_iterations"] dd')), iters);

  // Kernel panel: centre and Kernel Details.
  const ks = sql(DB, `SELECT * FROM view_kernel_summary WHERE aggr_id=${AGGR()}`)[0];
  assert.equal(ks.total_gpu_time, 352000);
  assert.equal(ks.total_count, 28);
  assert.equal(ks.memory_gpu_time, 43040);
  assert.equal(ks.memory_count, 3);
  assert.equal(await text(page, '[data-panel="kernel-time"] .donut-big'), '352 µs');
  await page.click('[data-panel="kernel-time"] .kernel-details summary');
  for (const [kind, t, n] of [
    ['all', ks.total_gpu_time, ks.total_count],
    ['tc', ks.using_tc_gpu_time, ks.using_tc_count],
    ['memory', ks.memory_gpu_time, ks.memory_count],
    ['other', ks.other_gpu_time, ks.other_count],
  ]) {
    const row = page.locator(`[data-panel="kernel-time"] tr[data-kind="${kind}"]`);
    assert.equal(await row.locator('td span').getAttribute('title'), `${fmt(t)} ns`, kind);
    assert.equal(num(await row.locator('td').nth(1).innerText()), n, kind);
  }
  assert.equal(await text(page, '[data-panel="kernel-time"] tr[data-kind="memory"] td'), '43.0 µs');

  // Percentages with one decimal.
  const cpu = q('SELECT cpu_duration_pct FROM view_resource_usage_breakdown WHERE aggr_id=$A');
  assert.equal(await text(page, '[data-panel="resource-usage"] .donut-big'), `${cpu.toFixed(1)} %`);

  // Top 10 GPU ops: 10 rows in the database's order.
  const top = sql(DB, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id=${AGGR()} ORDER BY gpu_time DESC LIMIT 10`);
  const keys = await page.locator('[data-panel="top10"] tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.key));
  assert.equal(keys.length, 10);
  assert.deepEqual(keys.slice(0, 2), top.slice(0, 2).map((r) => r.op_node_id));

  // System config: set items shown, empty ones (cuDNN, profile name) hidden.
  assert.match(await text(page, '[data-panel="system-config"] [data-key="gpu_names"] dd'), /RTX 2070 SUPER/);
  assert.equal(await page.locator('[data-panel="system-config"] [data-key="cudnn_version"]').count(), 0);

  // Expert systems: one row per finding, URLs auto-linked safely.
  const nexp = q('SELECT count(*) FROM view_expert_systems WHERE aggr_id=$A');
  assert.equal(await page.locator('[data-panel="expert-systems"] tbody tr').count(), nexp);
  const link = page.locator('[data-panel="expert-systems"] a[href="https://developer.nvidia.com/automatic-mixed-precision"]');
  assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');

  // NVIDIA's file has no view_dl_communication: no card, and nothing in its place.
  assert.equal(await page.locator('[data-panel="communication"]').count(), 0);
  await noStrayText(page, 'dashboard');

  // Iteration summary drawn with every iteration.
  assert.equal(await page.locator('[data-panel="iteration-summary"]').getAttribute('data-iterations'), String(q('SELECT count(*) FROM view_iterations_all WHERE aggr_id=$A')));

  // Single aggregation and domain: no selectors; one GPU: no GPUs view.
  assert.equal(await page.locator('#aggr-wrap').isHidden(), true);
  assert.equal(await page.locator('#domain-wrap').isHidden(), true);
  assert.equal(await page.locator('#nav [data-view="gpus"]').count(), 0);

  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const shot = path.join(ARTIFACTS, 'dashboard.png');
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`# screenshot: ${shot}`);
  noProblems(page);
  await page.close();
});

test('every view loads without errors and shows the database counts', async () => {
  const A = AGGR();
  const cases = [
    ['#/op-types', 'section[data-table="op-types"] .card-count', q('SELECT count(*) FROM view_op_type_summary WHERE aggr_id=$A'), 'op type'],
    ['#/ops', 'section[data-table="ops"] .card-count', q('SELECT count(*) FROM view_op_nodes WHERE aggr_id=$A'), 'op'],
    ['#/kernels-by-iteration', 'section[data-table="iterations"] .card-count', q('SELECT count(*) FROM view_iterations_profiled WHERE aggr_id=$A'), 'iteration'],
    ['#/kernels-by-op', 'section[data-table="iterations"] .card-count', q('SELECT count(*) FROM view_iterations_profiled WHERE aggr_id=$A'), 'iteration'],
    ['#/iterations', 'section[data-table="iterations-all"] .card-count', q('SELECT count(*) FROM view_iterations_all WHERE aggr_id=$A'), 'iteration'],
  ];
  assert.equal(cases[1][2], 32);
  for (const [route, sel, n, noun] of cases) {
    const page = await open(route);
    const shown = await text(page, sel);
    assert.match(shown, new RegExp(`^${fmt(n)} ${noun}s?$`), route);
    assert.equal(await page.locator('#nav a.active').getAttribute('data-view'), route.slice(2));
    await noStrayText(page, route);
    noProblems(page);
    await page.close();
  }
  // Group ops: the tree's groups and ops.
  const page = await open('#/group-ops');
  const groups = q('SELECT count(*) FROM view_group_ops WHERE aggr_id=$A AND row_type=1');
  const ops = q('SELECT count(*) FROM view_group_ops WHERE aggr_id=$A AND row_type=2');
  assert.equal(await text(page, 'section[data-table="group-ops"] .card-count'), `${groups} groups, ${ops} ops`);
  await page.click('[data-action="expand-all"]');
  await page.waitForFunction((n) => document.querySelectorAll('table.tree tbody tr').length === n, groups + ops);
  assert.match(page.url(), /expand=all/);
  await page.click('[data-action="collapse-all"]');
  const top = q('SELECT count(*) FROM view_group_ops WHERE aggr_id=$A AND level=1');
  await page.waitForFunction((n) => document.querySelectorAll('table.tree tbody tr').length === n, top);
  assert.equal(await page.locator('table.tree tr[aria-expanded="true"]').count(), 0);
  assert.equal(A, AGGR());
  noProblems(page);
  await page.close();
});

test('ops drill down to kernels; the URL keeps it; back and forward work', async () => {
  const A = AGGR();
  const page = await open('#/ops');
  const op = 'CONV2D_1';
  const nk = q(`SELECT count(*) FROM view_kernel_summaries WHERE aggr_id=$A AND op_node_id='${op}'`);
  await page.click(`section[data-table="ops"] tbody tr[data-key="${op}"]`);
  await page.waitForFunction((n) => {
    const c = document.querySelector('section[data-table="kernels"] .card-count');
    return c && c.textContent === `${n} kernels`;
  }, nk);
  assert.match(page.url(), new RegExp(`#/ops\\?aggr_id=${A}&domain=default-domain&op=${op}$`));
  assert.equal(await page.locator(`section[data-table="ops"] tr.selected`).getAttribute('data-key'), op);
  assert.equal(await page.locator('section[data-table="kernels"] tbody tr').count(), Math.min(nk, 25));
  // The kernel with the most GPU time first (server's default sort).
  const topK = sql(DB, `SELECT kernel_name, gpu_time FROM view_kernel_summaries WHERE aggr_id=${A} AND op_node_id='${op}' ORDER BY gpu_time DESC LIMIT 1`)[0];
  assert.equal(await text(page, 'section[data-table="kernels"] tbody tr td'), topK.kernel_name);
  assert.equal(await title(page, 'section[data-table="kernels"] tbody tr td span.num-time'), `${fmt(topK.gpu_time)} ns`);

  // PyTorch mode: Direction and Stack Trace columns; long stack traces cut with "more".
  assert.equal(await page.locator('section[data-table="ops"] th button[data-sort="stack_trace"]').count(), 1);
  assert.equal(await page.locator('section[data-table="ops"] th button[data-sort="direction"]').count(), 1);
  const stack = page.locator(`section[data-table="ops"] tr[data-key="${op}"] td.stack`);
  const full = sql(DB, `SELECT stack_trace FROM view_op_nodes WHERE aggr_id=${A} AND op_node_id='${op}'`)[0].stack_trace;
  assert.ok(!(await stack.innerText()).includes(full.split('\n')[1]));
  await stack.locator('button.more').click();
  assert.equal(await stack.locator('.long-body').textContent(), full);
  assert.match(page.url(), new RegExp(`op=${op}$`), 'clicking "more" does not change the selection');

  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('op=') && document.querySelector('section[data-table="kernels"].is-empty'));
  assert.equal(await page.locator('section[data-table="ops"] tr.selected').count(), 0);
  await page.goForward();
  await page.waitForFunction(() => document.querySelector('section[data-table="ops"] tr.selected'));
  noProblems(page);

  // A deep link opened in a fresh page shows the same drill-down.
  const url = page.url();
  await page.close();
  const p2 = await watchedPage(browser.context);
  await p2.goto(url);
  await settled(p2);
  assert.equal(await p2.locator('section[data-table="ops"] tr.selected').getAttribute('data-key'), op);
  assert.equal(await text(p2, 'section[data-table="kernels"] .card-count'), `${nk} kernels`);
  assert.match(await text(p2, 'section[data-table="kernels"] .card-title'), /CONV2D_1/);
  noProblems(p2);
  await p2.close();
});

test('sorting, paging, page size and filtering go to the server and into the URL', async () => {
  const A = AGGR();
  const page = await open('#/ops?limit=10');
  assert.equal(await page.locator('section[data-table="ops"] tbody tr').count(), 10);
  // Sort by CPU time: descending first.
  await page.click('section[data-table="ops"] th button[data-sort="cpu_time"]');
  await page.waitForFunction(() => location.hash.includes('sort=cpu_time&order=desc'));
  await settled(page);
  const topCpu = sql(DB, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id=${A} ORDER BY cpu_time DESC LIMIT 1`)[0].op_node_id;
  assert.equal(await page.locator('section[data-table="ops"] tbody tr').first().getAttribute('data-key'), topCpu);
  // Again: ascending.
  await page.click('section[data-table="ops"] th button[data-sort="cpu_time"]');
  await page.waitForFunction(() => location.hash.includes('sort=cpu_time&order=asc'));
  await settled(page);
  const lowCpu = sql(DB, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id=${A} ORDER BY cpu_time ASC LIMIT 1`)[0].op_node_id;
  assert.equal(await page.locator('section[data-table="ops"] tbody tr').first().getAttribute('data-key'), lowCpu);
  // Next page.
  await page.click('section[data-table="ops"] button[aria-label="Next page"]');
  await page.waitForFunction(() => location.hash.includes('offset=10'));
  await settled(page);
  const page2 = sql(DB, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id=${A} ORDER BY cpu_time ASC LIMIT 10 OFFSET 10`).map((r) => r.op_node_id);
  const keys = await page.locator('section[data-table="ops"] tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.key));
  assert.deepEqual(new Set(keys), new Set(page2));
  assert.match(await text(page, 'section[data-table="ops"] .range'), /^11–20 of 32$/);
  // Page size.
  await page.selectOption('section[data-table="ops"] select.page-size', '50');
  await page.waitForFunction(() => location.hash.includes('limit=50') && !location.hash.includes('offset='));
  await settled(page);
  assert.equal(await page.locator('section[data-table="ops"] tbody tr').count(), 32);
  // Filter (server side, case-insensitive substring on names).
  await page.fill('section[data-table="ops"] input.filter', 'CONV');
  await page.waitForFunction(() => location.hash.includes('filter=CONV'));
  await settled(page);
  const nconv = q("SELECT count(*) FROM view_op_nodes WHERE aggr_id=$A AND (op_node_name LIKE '%conv%' OR op_node_type LIKE '%conv%' OR op_node_id LIKE '%conv%')");
  assert.equal(await text(page, 'section[data-table="ops"] .card-count'), `${nconv} of 32 ops`);
  // CSV link: same query, all rows, as CSV.
  const href = await page.locator('section[data-table="ops"] a.btn:text("CSV")').getAttribute('href');
  assert.match(href, /^\/api\/v1\/op_nodes\?/);
  assert.match(href, /format=csv/);
  assert.match(href, /filter=CONV/);
  assert.doesNotMatch(href, /offset=|limit=/);
  const res = await page.request.get(server.url + href);
  assert.equal(res.status(), 200);
  assert.match(res.headers()['content-type'], /csv/);
  const lines = (await res.text()).trim().split(/\r?\n/);
  assert.match(lines[0], /op_node_id/);
  noProblems(page);
  await page.close();
  // An offset past the last row (an old link): said so, and the pager stays in range.
  const far = await open('#/ops?limit=10&offset=1000000');
  assert.match(await text(far, 'section[data-table="ops"] tbody tr.placeholder'), /^This page is past the last op\.$/);
  assert.equal(await text(far, 'section[data-table="ops"] .range'), '0 of 32');
  assert.equal(await text(far, 'section[data-table="ops"] .page-no'), 'Page 4 of 4');
  await far.click('section[data-table="ops"] button[aria-label="Previous page"]');
  await far.waitForFunction(() => location.hash.includes('offset=20'));
  await settled(far);
  assert.equal(await text(far, 'section[data-table="ops"] .range'), '21–30 of 32');
  noProblems(far);
  await far.close();
});

test('kernels by iteration and kernels by op drill down', async () => {
  const A = AGGR();
  const iter = q('SELECT min(iter_value) FROM view_iterations_profiled WHERE aggr_id=$A');
  let page = await open('#/kernels-by-iteration');
  await page.click(`section[data-table="iterations"] tbody tr[data-key="${iter}"]`);
  const nk = q(`SELECT count(*) FROM view_iteration_kernels WHERE aggr_id=$A AND iter_value=${iter}`);
  assert.equal(nk, 51);
  await page.waitForFunction((n) => document.querySelector('section[data-table="iteration-kernels"] .card-count')?.textContent === `${n} kernels`, nk);
  assert.match(page.url(), new RegExp(`iter=${iter}`));
  noProblems(page);
  await page.close();

  page = await open('#/kernels-by-op');
  await page.click(`section[data-table="iterations"] tbody tr[data-key="${iter}"]`);
  const no = q(`SELECT count(*) FROM view_iteration_ops WHERE aggr_id=$A AND iter_value=${iter}`);
  await page.waitForFunction((n) => document.querySelector('section[data-table="iteration-ops"] .card-count')?.textContent === `${n} ops`, no);
  const op = sql(DB, `SELECT op_node_id FROM view_iteration_ops WHERE aggr_id=${A} AND iter_value=${iter} ORDER BY total_gpu_time DESC LIMIT 1`)[0].op_node_id;
  await page.click(`section[data-table="iteration-ops"] tbody tr[data-key="${op}"]`);
  const nok = q(`SELECT count(*) FROM view_iteration_op_kernels WHERE aggr_id=$A AND iter_value=${iter} AND op_node_id='${op}'`);
  await page.waitForFunction((n) => /^\d+ kernels?$/.test(document.querySelector('section[data-table="iteration-op-kernels"] .card-count')?.textContent || '') && document.querySelector('section[data-table="iteration-op-kernels"] .card-count').textContent.startsWith(`${n} `), nok);
  const url = page.url();
  assert.match(url, new RegExp(`iter=${iter}&op=${op}$`));
  noProblems(page);
  await page.close();

  // The three-level deep link in a fresh page.
  const p2 = await watchedPage(browser.context);
  await p2.goto(url);
  await settled(p2);
  assert.equal(await p2.locator('section[data-table="iterations"] tr.selected').getAttribute('data-key'), String(iter));
  assert.equal(await p2.locator('section[data-table="iteration-ops"] tr.selected').getAttribute('data-key'), op);
  assert.equal(num(await text(p2, 'section[data-table="iteration-op-kernels"] .card-count')), nok);
  noProblems(p2);
  await p2.close();
});

test('expert system actions open the referenced views', async () => {
  const page = await open('');
  await page.click('[data-panel="expert-systems"] a.btn-action:text("Show ops")');
  await page.waitForFunction(() => location.hash.startsWith('#/ops') && location.hash.includes('bad=1'));
  await settled(page);
  const nbad = q('SELECT count(*) FROM view_op_nodes WHERE aggr_id=$A AND is_bad_data_type=1');
  assert.equal(await text(page, 'section[data-table="ops"] .card-count'), `${nbad} ops`);
  const banner = await text(page, '.banner-warn');
  assert.match(banner, /eligible to use tensor cores/);
  noProblems(page);
  await page.close();

  // ShowBadIterationRange: the Iterations view shows the suggested range.
  const p2 = await open('#/iterations?suggest_start=0&suggest_stop=0');
  assert.equal(await p2.locator('.banner-info .suggested').getAttribute('data-start'), '0');
  assert.match(await text(p2, '.banner-info'), /--iter_start=0 --iter_stop=0/);
  await p2.click('.seg-btn[data-show="profiled"]');
  await p2.waitForFunction(() => location.hash.includes('show=profiled'));
  noProblems(p2);
  await p2.close();
});

test('reports menu links to the server reports', async () => {
  const page = await open('');
  await page.click('#reports-menu summary');
  const hrefs = await page.locator('#reports-list a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.some((h) => /^\/api\/v1\/reports\/summary\.csv\?/.test(h)), hrefs.join(' '));
  const res = await page.request.get(server.url + hrefs.find((h) => h.includes('summary.csv')));
  assert.equal(res.status(), 200);
  noProblems(page);
  await page.close();
});

test('every view is in reach from the menu in a narrow window', async () => {
  const page = await watchedPage(browser.context);
  await page.setViewportSize({ width: 640, height: 800 });
  await page.goto(`${server.url}/#/ops`);
  await settled(page);
  const boxes = await page.locator('#nav a').evaluateAll((as) => as.map((a) => [a.textContent, a.getBoundingClientRect().right]));
  assert.ok(boxes.length >= 7, JSON.stringify(boxes));
  for (const [name, right] of boxes) assert.ok(right <= 640, `${name} ends at ${right} px, past the 640 px window`);
  await page.close();
});

test('API errors show in the banner', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/#/ops?aggr_id=1&domain=default-domain&sort=no_such_column`);
  await page.waitForSelector('#errors .error-item');
  assert.match(await text(page, '#errors .error-item'), /400 bad_param/);
  // Another state of the same view: the old error goes.
  await page.goto(`${server.url}/#/ops?aggr_id=1&domain=default-domain&sort=cpu_time`);
  await settled(page);
  assert.equal(await page.locator('#errors .error-item').count(), 0);
  await page.close();
});
