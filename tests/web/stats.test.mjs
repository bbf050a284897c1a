// stats.test.mjs - the Statistics page in Chromium: on dldbs our
// dlprof writes from two real Nsight Systems exports (CloverLeaf on 4x A100
// with OS runtime calls; DLProf's w_Relu PyTorch run with NVTX ranges), every
// tab shows its table with the numbers of its view_dl_stats_* view, the
// chart its top entries, and a click leads to where the time went; on
// NVIDIA's no_relu database the page explains that the tables are missing.
// No console errors anywhere. Saves a screenshot into the artifacts folder.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHARED, NO_RELU, ARTIFACTS, sql, sql1, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

const CLOVER = path.join(SHARED, 'traces/nsys/nsys2024.5_a100x4_cloverleaf.sqlite');
const RELU = path.join(SHARED, 'traces/dlprof/w_Relu/nsys_profile.sqlite');

let dir;
let clover;
let relu;
let servers = [];
let browser;

function dlprof(exportPath, name) {
  const r = spawnSync(process.env.DLPROF, ['--database=' + exportPath, '--profile_name=' + name, '-v', 'quiet'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return path.join(dir, `${name}_dldb.sqlite`);
}

before(async () => {
  for (const f of [CLOVER, RELU]) if (!fs.existsSync(f)) throw new Error(`missing trace ${f}`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-stats-'));
  clover = dlprof(CLOVER, 'clover');
  relu = dlprof(RELU, 'relu');
  servers = await Promise.all([startServer(clover), startServer(relu), startServer(NO_RELU)]);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  for (const s of servers) await s.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The rows of a tab's table as the page shows them: [{col label: cell text}]. */
async function tableRows(page, id) {
  return page.locator(`[data-table="${id}"] table`).evaluate((t) => {
    const heads = [...t.tHead.rows[t.tHead.rows.length - 1].cells].map((c) => c.textContent.replace(/[▲▼]/g, '').trim());
    return [...t.tBodies[0].rows].map((r) => {
      const o = {};
      [...r.cells].forEach((c, i) => {
        const ns = c.querySelector('[data-ns]');
        const bytes = c.querySelector('[data-bytes]');
        o[heads[i]] = ns ? Number(ns.dataset.ns) : bytes ? Number(bytes.dataset.bytes) : c.textContent.trim();
      });
      return o;
    });
  });
}

const newest = (db) => sql1(db, 'SELECT max(aggr_id) FROM view_aggregations');

test('CloverLeaf: the CUDA API tab shows the view, its chart, and the ops that called an API', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[0].url}/#/statistics`);
  await settled(page);
  assert.equal(await page.locator('.tab.active').innerText(), 'CUDA API');
  const want = sql(clover, `SELECT name, total_time, num_calls, med, min, max FROM view_dl_stats_cuda_api WHERE aggr_id = ${newest(clover)} ORDER BY row_idx`);
  const rows = await tableRows(page, 'stats-api');
  assert.equal(rows.length, want.length);
  rows.forEach((r, i) => {
    assert.equal(r['API Name'], want[i].name);
    assert.equal(r.Total, want[i].total_time);
    assert.equal(Number(r.Calls.replace(/,/g, '')), want[i].num_calls);
    assert.equal(r.Med, want[i].med);
    assert.equal(r.Min, want[i].min);
    assert.equal(r.Max, want[i].max);
  });
  // the chart: the top entries by total time
  const labels = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-panel="stats-chart"] canvas')).data.labels);
  assert.equal(labels[0], want[0].name);
  // an API name leads to the ops that called it, and those to Ops and Kernels
  await page.locator('[data-table="stats-api"] tbody tr', { hasText: 'cudaLaunchKernel_v7000' }).click();
  await settled(page);
  const calls = sql1(clover, `SELECT sum(calls) FROM view_dl_stats_api_ops WHERE aggr_id = ${newest(clover)} AND name = 'cudaLaunchKernel_v7000'`);
  assert.equal(calls, want.find((w) => w.name === 'cudaLaunchKernel_v7000').num_calls);
  assert.match(await page.locator('[data-table="stats-api-ops"] .card-count').innerText(), /ops?$/);
  const link = page.locator('[data-table="stats-api-ops"] tbody tr a').first();
  assert.match(await link.getAttribute('href'), /^#\/ops\?.*op=/);
  await link.click();
  await settled(page);
  assert.equal(await page.locator('.view').getAttribute('data-view'), 'ops');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('CloverLeaf: kernel, memory and OS runtime tabs, and a kernel leads to its ops and iterations', async () => {
  const page = await watchedPage(browser.context);
  const a = newest(clover);
  await page.goto(`${servers[0].url}/#/statistics?tab=kernels`);
  await settled(page);
  const kern = sql(clover, `SELECT kernel_name, total_time, instances, grid, block FROM view_dl_stats_kernels WHERE aggr_id = ${a} ORDER BY row_idx LIMIT 25`);
  const rows = await tableRows(page, 'stats-kernels');
  assert.equal(rows.length, kern.length);
  rows.forEach((r, i) => {
    assert.equal(r.Total, kern[i].total_time);
    assert.equal(Number(r.Instances.replace(/,/g, '')), kern[i].instances);
    assert.equal(r.Grid, kern[i].grid);
    assert.equal(r.Block, kern[i].block);
  });
  assert.match(await page.locator('[data-table="stats-kernels"] .card-count').innerText(), /^102 kernels$/);
  await page.locator('[data-table="stats-kernels"] tbody tr').first().click();
  await settled(page);
  const opsN = sql1(clover, `SELECT count(*) FROM view_kernel_summaries WHERE aggr_id = ${a} AND kernel_name = '${kern[0].kernel_name}'`);
  assert.ok(opsN > 0);
  assert.match(await page.locator('[data-table="stats-kernel-ops"] .card-count').innerText(), new RegExp(`^${opsN} ops?$`));
  const launches = sql1(clover, `SELECT count(*) FROM view_iteration_kernels WHERE aggr_id = ${a} AND kernel_name = '${kern[0].kernel_name}'`);
  assert.match(await page.locator('[data-table="stats-kernel-iterations"] .card-count').innerText(), new RegExp(`^${launches} launch`));
  assert.match(await page.locator('[data-table="stats-kernel-iterations"] tbody tr a').first().getAttribute('href'), /kernels-by-iteration\?.*iter=0/);

  await page.goto(`${servers[0].url}/#/statistics?tab=mem-size`);
  await settled(page);
  const mem = sql(clover, `SELECT name, total_bytes, count FROM view_dl_stats_memory WHERE aggr_id = ${a} ORDER BY total_bytes DESC`);
  const mrows = await tableRows(page, 'stats-mem-size');
  assert.deepEqual(
    mrows.map((r) => [r.Operation, r.Total, Number(r.Count)]),
    mem.map((m) => [m.name, m.total_bytes, m.count]),
  );
  assert.match(await page.locator('[data-table="stats-mem-size"] tbody tr').first().innerText(), /225\.066 MB/);

  await page.goto(`${servers[0].url}/#/statistics?tab=osrt`);
  await settled(page);
  const os1 = sql(clover, `SELECT name, total_time, num_calls FROM view_dl_stats_osrt WHERE aggr_id = ${a} ORDER BY row_idx LIMIT 1`)[0];
  const orows = await tableRows(page, 'stats-osrt');
  assert.equal(orows[0].Function, os1.name);
  assert.equal(orows[0].Total, os1.total_time);
  assert.ok(orows.length > 5);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('w_Relu: a kernel row is one demangled name; its details are of its short name', async () => {
  const db = relu;
  const a = newest(db);
  // implicit_convolve_sgemm: two template instantiations, one short name
  const two = sql(db, `SELECT row_idx, name FROM view_dl_stats_kernels WHERE aggr_id = ${a} AND kernel_name = 'implicit_convolve_sgemm' ORDER BY row_idx`);
  assert.equal(two.length, 2);
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[1].url}/#/statistics?tab=kernels&kernels.limit=100`);
  await settled(page);
  const row = page.locator('[data-table="stats-kernels"] tbody tr').nth(two[0].row_idx);
  await row.click();
  await settled(page);
  assert.equal(await page.locator('[data-table="stats-kernels"] tbody tr.selected').count(), 1);
  assert.equal(await row.getAttribute('aria-selected'), 'true');
  assert.match(page.url(), /kname=implicit_convolve_sgemm/);
  const launches = sql1(db, `SELECT count(*) FROM view_iteration_kernels WHERE aggr_id = ${a} AND kernel_name = 'implicit_convolve_sgemm'`);
  assert.match(await page.locator('[data-table="stats-kernel-iterations"] .card-count').innerText(), new RegExp(`^${launches} launch`));
  assert.match(await page.locator('[data-table="stats-kernel-iterations"]').innerText(), /Launches of kernels named implicit_convolve_sgemm by iteration/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('w_Relu: memory time, the NVTX ranges with their counts and the GPU projection', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[1].url}/#/statistics?tab=mem-time`);
  await settled(page);
  const mrows = await tableRows(page, 'stats-mem-time');
  assert.equal(
    mrows.reduce((s, r) => s + r.Total, 0),
    66690,
  );
  await page.goto(`${servers[1].url}/#/statistics?tab=nvtx&nvtx.filter=aten%3A%3A&nvtx.limit=100`);
  await settled(page);
  const nrows = await tableRows(page, 'stats-nvtx');
  const count = (name) => Number(nrows.find((r) => r.Range === name).Instances);
  assert.equal(count('aten::clamp_min'), 8);
  assert.equal(count('aten::resize_'), 8);
  assert.equal(count('aten::empty'), 6);
  await page.goto(`${servers[1].url}/#/statistics?tab=nvtx-gpu`);
  await settled(page);
  const prows = await tableRows(page, 'stats-nvtx-gpu');
  assert.ok(prows.length > 0);
  assert.ok(prows.every((r) => r['Total Proj'] > 0 && Number(r['GPU Ops']) > 0));
  // the OS runtime tab says why it is empty
  await page.goto(`${servers[1].url}/#/statistics?tab=osrt`);
  await settled(page);
  assert.match(await page.locator('[data-table="stats-osrt"] tbody').innerText(), /-t osrt/);
  assert.match(await page.locator('[data-table="stats-osrt"] tbody').innerText(), /PyTorch profiler traces .* do not/);
  // the reports menu offers nsys stats' tables
  assert.equal(await page.locator('#reports-list a[href*="reports/nvtx_sum.csv"]').count(), 1);
  await page.goto(`${servers[1].url}/#/statistics?tab=kernels`);
  await settled(page);
  await page.locator('[data-table="stats-kernels"] tbody tr').first().click();
  await settled(page);
  assert.match(await page.locator('[data-table="stats-kernel-ops"] .card-count').innerText(), /^\d+ ops?$/);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const shot = path.join(ARTIFACTS, 'statistics.png');
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`# screenshot: ${shot}`);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('w_Relu: the share column is titled Time (%); times below 1 µs are whole ns', async () => {
  const page = await watchedPage(browser.context);
  let fractional = 0;
  for (const tab of ['api', 'kernels', 'configs', 'mem-time', 'osrt', 'nvtx']) {
    await page.goto(`${servers[1].url}/#/statistics?tab=${tab}&${tab}.limit=100`);
    await settled(page);
    const heads = await page
      .locator('.stats-table table')
      .first()
      .evaluate((t) => [...t.tHead.rows[t.tHead.rows.length - 1].cells].map((c) => c.textContent.replace(/[▲▼]/g, '').trim()));
    assert.equal(heads[0], 'Time (%)', tab);
    assert.ok(!heads.includes('Time'), `${tab}: a column titled Time: ${heads.join(', ')}`);
    // every duration shown below 1 µs, fractional means and deviations too
    const small = await page.locator('.stats-table [data-ns]').evaluateAll((spans) =>
      spans.filter((s) => s.dataset.ns !== '' && Math.abs(Number(s.dataset.ns)) < 999.5).map((s) => [s.dataset.ns, s.textContent]),
    );
    for (const [ns, shown] of small) assert.match(shown, /^(\d{1,3}|< 1) ns$/, `${tab}: ${ns} ns shown as ${shown}`);
    fractional += small.filter(([ns]) => !Number.isInteger(Number(ns))).length;
  }
  assert.ok(fractional > 0, 'no fractional sub-µs value on the page to check');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('NVIDIA DLProf database: the page explains that the statistics are missing', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[2].url}/#/statistics`);
  await settled(page);
  const n = page.locator('.note-missing');
  assert.equal(await n.getAttribute('data-missing'), 'view_dl_stats_cuda_api');
  assert.match(await n.innerText(), /has no statistics tables .*view_dl_stats_cuda_api/);
  assert.equal(await page.locator('.tabs, [data-panel="stats-chart"], table').count(), 0);
  assert.match(await page.locator('.nav-item[data-view="statistics"]').getAttribute('class'), /missing/);
  // and the reports menu does not offer them
  assert.equal(await page.locator('#reports-list a[href*="reports/cuda_api_sum"]').count(), 0);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('sorting a statistics table by total time reads its row order, both ways, and says the sort asked', async () => {
  // the server reads row_idx (total time descending) instead of sorting every
  // row (docs/api.md): the rows must be those of an ORDER BY total_time
  const aggr = newest(relu);
  for (const [view, total] of [
    ['dl_stats_nvtx', 'total_time'],
    ['dl_stats_nvtx_gpu_proj', 'total_proj_time'],
    ['dl_stats_cuda_api', 'total_time'],
    ['dl_stats_kernels', 'total_time'],
  ]) {
    const all = sql(relu, `SELECT row_idx, ${total} AS t FROM view_${view} WHERE aggr_id = ${aggr} ORDER BY row_idx`);
    assert.ok(all.length > 3, `${view}: rows`);
    for (const order of ['desc', 'asc']) {
      const res = await fetch(`${servers[1].url}/api/v1/${view}?aggr_id=${aggr}&sort=${total}&order=${order}&limit=${all.length}`);
      assert.equal(res.status, 200);
      const j = await res.json();
      assert.equal(j.sort, total);
      assert.equal(j.order, order);
      assert.equal(j.rows.length, all.length);
      const got = j.rows.map((r) => Number(r[total]));
      const want = all.map((r) => Number(r.t)).sort((a, b) => (order === 'desc' ? b - a : a - b));
      assert.deepEqual(got, want, `${view} by ${total} ${order}`);
      // descending is row_idx's own order, ties included
      if (order === 'desc') assert.deepEqual(j.rows.map((r) => Number(r.row_idx)), all.map((r) => Number(r.row_idx)));
    }
  }
});
