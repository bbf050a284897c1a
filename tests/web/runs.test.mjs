// runs.test.mjs - one viewer on a folder of runs, in Chromium: the runs page
// (the list, search, sort, a run's dashboard with run= in every link), a
// comparison picked on the runs page (summary, notes on what differs, the
// chart of both runs' iterations, the kernel and op tables), a comparison
// opened from its URL, a bad run id, and a folder that gains a file.
// The bare URL opens the runs page.
//
// The folder holds copies of NVIDIA's no_relu and w_Relu dldbs and two
// dldbs our dlprof (DLPROF) writes from the ResNet-50 Kineto traces with 4
// data-loader workers (1 GPU) and of resnet50_v100 (4 ranks): different
// GPUs, iteration counts, key ops and producers.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NO_RELU, SHARED, dlprofDldb, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

const W_RELU = path.join(SHARED, 'traces/dlprof/w_Relu/dlprof_dldb_1.sqlite');
const NW4 = path.join(SHARED, 'traces/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz');
const V100 = path.join(SHARED, 'traces/kineto/resnet50_v100');

let dir;
let server;
let browser;
let runs; // path -> row of /api/v1/runs

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-runs-'));
  const made = path.join(dir, 'made');
  fs.mkdirSync(path.join(dir, 'nvidia'), { recursive: true });
  fs.mkdirSync(made);
  fs.copyFileSync(NO_RELU, path.join(dir, 'nvidia', 'no_relu.sqlite'));
  fs.copyFileSync(W_RELU, path.join(dir, 'nvidia', 'w_relu.sqlite'));
  dlprofDldb(NW4, made, 'workers4');
  dlprofDldb(V100, made, 'v100');
  for (const f of fs.readdirSync(made)) if (!f.endsWith('.sqlite')) fs.rmSync(path.join(made, f));
  server = await startServer(dir);
  browser = await launchBrowser();
  const r = await (await fetch(`${server.url}/api/v1/runs`)).json();
  runs = Object.fromEntries(r.rows.map((x) => [x.path, x]));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/${route}`);
  await settled(page);
  return page;
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
}

/** The first cell's text of each row of the table card titled title. */
const firstCells = (page, title) =>
  page.evaluate((t) => {
    const card = [...document.querySelectorAll('.card')].find((c) => c.querySelector('.card-title')?.textContent === t);
    return [...card.querySelectorAll('tbody tr')].map((tr) => tr.querySelector('td').innerText);
  }, title);

/** A cell shows a name, perhaps shortened with an ellipsis or broken into lines. */
const same = (shown, name) => {
  const a = shown.replace(/\s+/g, '').replace(/….*$/, '');
  return a.length > 0 && name.replace(/\s+/g, '').startsWith(a.slice(0, 30));
};

const names = (page) => page.locator('.runs-table tbody tr td[data-col="name"]').allInnerTexts();

test('the runs page lists every dldb of the folder, searches and sorts', async () => {
  assert.deepEqual(Object.keys(runs).sort(), ['made/v100_dldb.sqlite', 'made/workers4_dldb.sqlite', 'nvidia/no_relu.sqlite', 'nvidia/w_relu.sqlite']);
  const home = await open(''); // the bare URL of a folder opens the runs page
  assert.equal(new URL(home.url()).hash, '#/runs');
  await home.close();
  const page = await open('#/runs');
  await page.waitForSelector('.runs-table tbody tr[data-run]');
  assert.deepEqual(await names(page), ['made/v100_dldb', 'made/workers4_dldb', 'nvidia/no_relu', 'nvidia/w_relu']);
  assert.match(await page.locator('.runs-count').innerText(), /^4 runs$/);
  // the columns: GPUs, iterations and producer of each
  const v100 = page.locator(`tr[data-run="${runs['made/v100_dldb.sqlite'].run}"]`);
  assert.equal(await v100.locator('td[data-col="num_gpus"]').innerText(), '3'); // three processes, GPU 0 each
  assert.equal(await v100.locator('td[data-col="iterations"]').innerText(), String(runs['made/v100_dldb.sqlite'].iterations));
  assert.equal(await v100.locator('td[data-col="producer"]').innerText(), 'dlprof');
  assert.equal(await page.locator(`tr[data-run="${runs['nvidia/no_relu.sqlite'].run}"] td[data-col="producer"]`).innerText(), 'NVIDIA DLProf');
  // search
  await page.fill('.runs-search', 'relu');
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr[data-run]').length === 2);
  assert.deepEqual(await names(page), ['nvidia/no_relu', 'nvidia/w_relu']);
  assert.match(page.url(), /[?&]q=relu/);
  assert.match(await page.locator('.runs-count').innerText(), /^2 of 4 runs$/);
  await page.fill('.runs-search', '');
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr[data-run]').length === 4);
  // sort: GPUs descending puts the 3-GPU run first; iterations ascending
  await page.click('button.sort[data-sort="num_gpus"]');
  await page.waitForFunction(() => /order=desc/.test(location.hash));
  assert.equal((await names(page))[0], 'made/v100_dldb');
  await page.click('button.sort[data-sort="iterations"]');
  await page.click('button.sort[data-sort="iterations"]');
  await page.waitForFunction(() => /sort=iterations&order=asc/.test(location.hash));
  const its = (await page.locator('.runs-table tbody td[data-col="iterations"]').allInnerTexts()).map(Number);
  assert.deepEqual(its, [...its].sort((a, b) => a - b));
  noProblems(page);
  await page.close();
});

test("a run's name opens its dashboard, and its links carry run=", async () => {
  const page = await open('#/runs');
  await page.waitForSelector('.runs-table tbody tr[data-run]');
  const w = runs['nvidia/w_relu.sqlite'];
  await page.click(`tr[data-run="${w.run}"] a.run-link`);
  await page.waitForFunction((id) => location.hash.includes(`run=${id}`) && document.querySelector('.view[data-view="dashboard"]'), w.run);
  await settled(page);
  assert.equal(await page.locator('#db-name').innerText(), 'nvidia/w_relu');
  const hrefs = await page.locator('#nav a[data-view]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.length > 3);
  for (const href of hrefs.filter((x) => x !== '#/runs')) assert.match(href, new RegExp(`run=${w.run}`), href);
  // the dashboard shows w_Relu's numbers, not the first run's
  const info = await (await fetch(`${server.url}/api/v1/info?run=${w.run}`)).json();
  assert.equal(info.database, 'w_relu.sqlite');
  await page.click('#nav a[data-view="ops"]');
  await page.waitForFunction(() => location.hash.startsWith('#/ops'));
  await settled(page);
  assert.match(page.url(), new RegExp(`run=${w.run}`));
  noProblems(page);
  await page.close();
});

test('compare two runs picked on the runs page: summary, notes, chart, kernels and ops', async () => {
  const base = runs['made/workers4_dldb.sqlite'];
  const run = runs['made/v100_dldb.sqlite'];
  const page = await open('#/runs');
  await page.waitForSelector('.runs-table tbody tr[data-run]');
  await page.check(`tr[data-run="${base.run}"] input[name="runs-base"]`);
  await page.check(`tr[data-run="${run.run}"] input[name="runs-run"]`);
  await page.click('.runs-compare');
  await page.waitForFunction(() => location.hash.startsWith('#/compare'));
  await page.waitForSelector('[data-panel="compare-summary"][data-loaded]');
  await settled(page);
  assert.match(page.url(), new RegExp(`base=${base.run}`));
  assert.match(page.url(), new RegExp(`run=${run.run}`));
  const s = await (await fetch(`${server.url}/api/v1/dl_compare_summary?base=${base.run}&run=${run.run}`)).json();
  // what differs: the GPUs and the iteration counts
  const notes = await page.locator('.compare-notes').innerText();
  assert.match(notes, /GPUs differ/);
  assert.match(notes, /Iteration counts differ/);
  // the summary table: both sides' iteration counts and the verdict with its interval
  assert.equal(await page.locator('tr[data-key="iterations"] td').nth(0).innerText(), String(s.base_iterations));
  assert.equal(await page.locator('tr[data-key="iterations"] td').nth(1).innerText(), String(s.iterations));
  assert.equal(await page.locator('tr[data-key="iter_mean_ns"] td span').nth(0).getAttribute('data-ns'), String(s.base_iter_mean_ns));
  const verdict = await page.locator('.verdict').innerText();
  assert.match(verdict, /95 % confidence interval/);
  assert.match(verdict, s.iter_mean_diff_ns > 0 ? /slower/ : /faster/);
  // the chart: both runs' iterations, drawn by Chart.js
  const canvas = page.locator('[data-panel="compare-chart"] canvas');
  assert.equal(await canvas.getAttribute('data-base'), String(s.base_iterations));
  assert.equal(await canvas.getAttribute('data-run'), String(s.iterations));
  const drawn = await canvas.evaluate((c) => {
    const ch = window.Chart.getChart(c);
    return ch ? ch.data.datasets.map((d) => d.data.length) : null;
  });
  assert.deepEqual(drawn, [s.base_iterations, s.iterations]);
  // the kernel and op tables: a page each, the biggest change first
  for (const [title, endpoint, key] of [['Kernels', 'dl_compare_kernels', 'kernel_name'], ['Ops', 'dl_compare_ops', 'op_node_name']]) {
    const want = await (await fetch(`${server.url}/api/v1/${endpoint}?base=${base.run}&run=${run.run}&limit=25`)).json();
    assert.ok(want.total > 25, `${endpoint}: ${want.total} rows`);
    const shown = await firstCells(page, title);
    assert.equal(shown.length, 25, title);
    for (let i = 0; i < shown.length; i++) assert.ok(same(shown[i], want.rows[i][key]), `${title} row ${i}: ${shown[i]} vs ${want.rows[i][key]}`);
  }
  noProblems(page);
  await page.close();
});

test('a comparison opens from its URL, with its table state', async () => {
  const base = runs['nvidia/no_relu.sqlite'];
  const run = runs['nvidia/w_relu.sqlite'];
  const page = await open(`#/compare?base=${base.run}&run=${run.run}&k.sort=gpu_time&k.order=desc&k.filter=gemm`);
  await page.waitForSelector('[data-panel="compare-summary"][data-loaded]');
  await settled(page);
  const want = await (await fetch(`${server.url}/api/v1/dl_compare_kernels?base=${base.run}&run=${run.run}&sort=gpu_time&order=desc&filter=gemm&limit=25`)).json();
  assert.ok(want.rows.length > 1);
  const shown = await firstCells(page, 'Kernels');
  assert.equal(shown.length, want.rows.length);
  for (let i = 0; i < shown.length; i++) assert.ok(same(shown[i], want.rows[i].kernel_name), `${shown[i]} vs ${want.rows[i].kernel_name}`);
  assert.equal(await page.locator('input.filter').first().inputValue(), 'gemm');
  // relu ops were added in w_Relu
  assert.match(await page.locator('.compare-counts').innerText(), /Ops: [1-9]\d* added/);
  // the findings that went away are listed
  assert.ok((await page.locator('.findings-gone').innerText()).length > 0);
  noProblems(page);
  await page.close();
});

test('a bad run id in the URL says so and links to the runs page', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/#/?run=deadbeef`);
  await page.waitForSelector('.fatal');
  assert.match(await page.locator('.fatal').innerText(), /no run 'deadbeef'/);
  assert.equal(await page.locator('.fatal a[href="#/runs"]').count(), 1);
  await page.close();
});

test('a dldb copied into the served folder appears on the runs page after a reload', async () => {
  const page = await open('#/runs');
  await page.waitForSelector('.runs-table tbody tr[data-run]');
  assert.equal((await names(page)).length, 4);
  fs.mkdirSync(path.join(dir, 'later'));
  fs.copyFileSync(NO_RELU, path.join(dir, 'later', 'again.sqlite'));
  await page.reload();
  await settled(page);
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr[data-run]').length === 5);
  assert.ok((await names(page)).includes('later/again'));
  await page.click('.runs-table a.run-link >> text=later/again');
  await page.waitForFunction(() => document.querySelector('.view[data-view="dashboard"]'));
  await settled(page);
  noProblems(page);
  await page.close();
});
