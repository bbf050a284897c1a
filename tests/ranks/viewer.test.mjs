// viewer.test.mjs - the Ranks page in real Chromium: a synthetic 8-rank job
// (ranks_gen, a straggler at rank 3 and a late rank 5) through dlprof and
// dlprofviewer. The page lists the ranks with the straggler first, the
// median and spread, a heatmap canvas of ranks by iterations, and the
// collectives with the rank that starts last; the heatmap comes in one
// request (dl_rank_heatmap, form grid) whose cells are those of the
// per-cell answer, drawn in the pixels a fill per cell of that answer
// gives; the dashboard's findings name the straggler.
// A merge of per-rank dldbs served beside them links each rank kept as its
// summary only to its own dldb. The heatmap's answer is kept in the answer
// cache: the same bytes as a viewer without it, none from a replaced file.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, watchedPage, settled } from '../web/helpers.mjs';
import { importedJob } from './job.mjs';

const DLPROF = process.env.DLPROF;
let work;
let browser;
let db;

before(async () => {
  ({ work, db } = importedJob('dlpv-ranks-', 8, 6));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('Ranks page: straggler first, spread, heatmap, collectives', async () => {
  const server = await startServer(db);
  try {
    const page = await watchedPage(browser.context);
    const asked = [];
    page.on('request', (q) => asked.push(q.url()));
    await page.goto(`${server.url}/#/ranks`);
    await settled(page);
    const rows = page.locator('#ranks-table tbody tr');
    assert.equal(await rows.count(), 8);
    // outliers first: the straggler (most compute), then the late rank
    assert.equal(await rows.nth(0).getAttribute('data-rank'), '3');
    assert.equal(await rows.nth(1).getAttribute('data-rank'), '5');
    assert.match(await rows.nth(0).innerText(), /rank 3, GPU 3 \(NVIDIA H100 80GB HBM3\)/);
    assert.match(await page.locator('#ranks-spread').innerText(), /median/);
    const size = await page.locator('#ranks-heat').evaluate((c) => [c.width, c.height]);
    assert.ok(size[0] > 0 && size[1] > 0, `heatmap ${size}`);
    const colls = await page.locator('#ranks-colls').innerText();
    assert.match(colls, /ncclDevKernel_AllGather_RING_LL/);
    assert.match(colls, /rank 5 \(6×\)/);
    // the all-reduce: 100 MiB, 91.75 GB/s of bus bandwidth, 20 % of NVLink 4's 450
    assert.match(colls, /100\.0 MiB/);
    assert.match(colls, /91\.8 GB\/s \(20% of 450\)/);
    assert.match(await page.locator('nav').innerText(), /Ranks/);
    // the heatmap's 8 x 6 cells in one request, no pages of dl_rank_iterations
    assert.equal(asked.filter((u) => u.includes('/api/v1/dl_rank_heatmap')).length, 1);
    assert.equal(asked.filter((u) => u.includes('/api/v1/dl_rank_iterations')).length, 0);
    const info = await (await fetch(`${server.url}/api/v1/info`)).json();
    const map = await (await fetch(`${server.url}/api/v1/dl_rank_heatmap?aggr_id=${info.default_aggr_id}`)).json();
    assert.equal(map.rows.length, 48);
    assert.deepEqual(map.columns, ['iter_value', 'device_id', 'duration', 'exposed_communication_time']);
    assert.equal((await fetch(`${server.url}/api/v1/dl_rank_heatmap`)).status, 400);
    assert.deepEqual(page.problems, []);
    await page.goto(`${server.url}/`);
    await settled(page);
    const findings = await page.locator('[data-panel="expert-systems"]').innerText();
    assert.match(findings, /rank 3 is a straggler/);
    assert.match(findings, /Collective bandwidth: ncclDevKernel_AllReduce/);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('Ranks page of a merge: summary-only ranks link to their own dldb', async () => {
  const folder = path.join(work, 'served');
  fs.mkdirSync(folder);
  for (let r = 0; r < 8; r++) {
    const out = path.join(work, `r${r}`);
    fs.mkdirSync(out);
    const res = spawnSync(DLPROF, [`--database=${path.join(work, 'job', `rank-${r}.pt.trace.json`)}`, `--output_path=${out}`, '-v', 'quiet'], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    fs.renameSync(path.join(out, 'dlprof_dldb.sqlite'), path.join(folder, `rank-${r}.sqlite`));
  }
  const merged = path.join(folder, 'merged');
  fs.mkdirSync(merged);
  const res = spawnSync(DLPROF, [`--database=${folder}`, `--output_path=${merged}`, '-v', 'quiet'], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  const server = await startServer(folder);
  try {
    const runs = (await (await fetch(`${server.url}/api/v1/runs`)).json()).rows;
    const run = (name) => runs.find((x) => x.path === name || x.path.endsWith(`/${name}`));
    const page = await watchedPage(browser.context);
    await page.goto(`${server.url}/#/ranks?run=${run('dlprof_dldb.sqlite').run}`);
    await settled(page);
    assert.equal(await page.locator('#ranks-table tbody tr').count(), 8);
    // the straggler 3 keeps its raw records: its iterations here
    const own = page.locator('#ranks-table tbody tr[data-rank="3"] td a');
    assert.match(await own.getAttribute('href'), /#\/iterations/);
    // rank 1, a summary: its own dldb's dashboard
    const link = page.locator('#ranks-table tbody tr[data-rank="1"] a.rank-source');
    assert.equal(await link.count(), 1);
    assert.match(await link.getAttribute('href'), new RegExp(`run=${run('rank-1.sqlite').run}`));
    assert.equal(await page.locator('#ranks-table a.rank-source').count(), 5);
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('the heatmap comes from the answer cache: the same bytes as without it, none from a replaced file', async () => {
  const live = path.join(work, 'cache-live.sqlite');
  fs.copyFileSync(db, live);
  const c = await startServer(live);
  const plain = await startServer(live, ['--cache-mb', '0']);
  const get = async (base, q) => {
    const res = await fetch(`${base}/api/v1/dl_rank_heatmap?${q}`);
    return [res.status, Buffer.from(await res.arrayBuffer())];
  };
  try {
    const a = (await (await fetch(`${c.url}/api/v1/info`)).json()).default_aggr_id;
    const first = await get(c.url, `aggr_id=${a}`);
    assert.equal(first[0], 200);
    // the same aggregation spelled otherwise shares the answer; another gets its own
    for (const q of [`aggr_id=${a}`, `aggr_id=00${a}`, `aggr_id=${a + 1}`]) {
      const x = await get(c.url, q);
      assert.deepEqual(await get(c.url, q), x, `${q}: asked again`);
      assert.deepEqual(await get(plain.url, q), x, `${q}: --cache-mb 0`);
    }
    assert.notDeepEqual(await get(c.url, `aggr_id=${a + 1}`), first);
    // a write in place is not watched (the file is served read-only and
    // replaced by a rename): the cached answer stays, a viewer without the
    // cache reads the change
    const bump = `UPDATE aggr_dl_iter_gpu SET duration_ns = duration_ns + 1`;
    execFileSync('sqlite3', [live, bump]);
    assert.deepEqual(await get(c.url, `aggr_id=${a}`), first, 'cached');
    const bumped = await get(plain.url, `aggr_id=${a}`);
    assert.deepEqual(JSON.parse(bumped[1]).rows, JSON.parse(first[1]).rows.map((r) => [r[0], r[1], r[2] + 1, r[3]]));
    // the grid of durations in odd ns: in units of 1 ns
    const grid = JSON.parse((await get(plain.url, `aggr_id=${a}&form=grid`))[1]);
    assert.equal(grid.unit, 1);
    assert.deepEqual(gridCells(grid), JSON.parse(bumped[1]).rows);
    // a file renamed over it: its own answer
    const tmp = path.join(work, 'cache-live.tmp');
    fs.copyFileSync(db, tmp);
    execFileSync('sqlite3', [tmp, `${bump} + 1`]);
    fs.renameSync(tmp, live);
    const replaced = await get(c.url, `aggr_id=${a}`);
    assert.deepEqual(JSON.parse(replaced[1]).rows, JSON.parse(first[1]).rows.map((r) => [r[0], r[1], r[2] + 2, r[3]]));
    assert.deepEqual(await get(plain.url, `aggr_id=${a}`), replaced);
  } finally {
    await c.stop();
    await plain.stop();
  }
});

/** The cells of a grid answer as the per-cell answer's rows (by iteration then device, in ns). */
function gridCells(grid) {
  const out = [];
  grid.iter_value.forEach((it, i) =>
    grid.device_id.forEach((dev, d) => {
      const k = d * grid.iter_value.length + i;
      assert.equal(grid.duration[k] === null, grid.exposed_communication_time[k] === null, `cell ${k}`);
      if (grid.duration[k] !== null) out.push([it, dev, grid.duration[k] * grid.unit, grid.exposed_communication_time[k] * grid.unit]);
    }),
  );
  return out;
}

/** The heatmap of the old page: a fill per cell, as drawn from the per-cell answer. */
function drawnFromCells(cells, ranks) {
  const canvas = document.createElement('canvas');
  const byKey = new Map(cells.map((c) => [`${c[1]}/${c[0]}`, c]));
  const iters = [...new Set(cells.map((c) => c[0]))].sort((a, b) => a - b);
  const cw = Math.max(2, Math.min(24, Math.floor(720 / Math.max(1, iters.length))));
  const ch = Math.max(1, Math.min(14, Math.floor(600 / Math.max(1, ranks.length))));
  canvas.width = cw * iters.length;
  canvas.height = ch * ranks.length;
  const g = canvas.getContext('2d');
  ranks.forEach((dev, i) =>
    iters.forEach((it, j) => {
      const c = byKey.get(`${dev}/${it}`);
      const d = c ? c[2] : 0;
      const v = d > 0 ? Math.min(1, c[3] / d) : -1;
      g.fillStyle = v < 0 ? '#ddd' : `hsl(10, 80%, ${Math.round(95 - 60 * v)}%)`;
      g.fillRect(j * cw, i * ch, cw, ch);
    }),
  );
  return Array.from(g.getImageData(0, 0, canvas.width, canvas.height).data);
}

test('the heatmap as a grid: the per-cell answer\'s cells, drawn in the same pixels', async () => {
  const live = path.join(work, 'grid.sqlite');
  fs.copyFileSync(db, live);
  // holes: rank 2 lacks iteration 1 and rank 7 its last (a null in the
  // grid), rank 6's iteration 4 lasts 0 (no share): grey cells
  execFileSync('sqlite3', [live, `DELETE FROM aggr_dl_iter_gpu WHERE (device_id = 202 AND iter_value = 1)
    OR (device_id = 707 AND iter_value = 5); UPDATE aggr_dl_iter_gpu SET duration_ns = 0
    WHERE device_id = 606 AND iter_value = 4`]);
  const server = await startServer(live);
  try {
    const a = (await (await fetch(`${server.url}/api/v1/info`)).json()).default_aggr_id;
    const ask = async (q) => (await fetch(`${server.url}/api/v1/dl_rank_heatmap?aggr_id=${a}${q}`)).json();
    const cells = (await ask('')).rows;
    assert.equal(cells.length, 46);
    assert.deepEqual(await ask('&form=cells'), await ask(''));
    const grid = await ask('&form=grid');
    assert.equal(grid.form, 'grid');
    const devs = [...new Set(cells.map((c) => c[1]))].sort((x, y) => x - y);
    const iters = [...new Set(cells.map((c) => c[0]))].sort((x, y) => x - y);
    assert.deepEqual(grid.device_id, devs);
    assert.deepEqual(grid.iter_value, iters);
    assert.equal(grid.duration.length, devs.length * iters.length);
    assert.equal(grid.exposed_communication_time.length, devs.length * iters.length);
    // every cell in its place (in the job's whole 10 us), nulls elsewhere
    assert.equal(grid.unit, 10000);
    assert.deepEqual(gridCells(grid), cells);
    assert.equal(grid.duration.filter((d) => d === null).length, 2);
    assert.equal((await fetch(`${server.url}/api/v1/dl_rank_heatmap?aggr_id=${a}&form=rows`)).status, 400);

    // the page asks for the grid once and draws what a fill per cell of the
    // per-cell answer draws, in the table's order of ranks
    const page = await watchedPage(browser.context);
    const asked = [];
    page.on('request', (q) => asked.push(q.url()));
    await page.goto(`${server.url}/#/ranks`);
    await settled(page);
    assert.deepEqual(asked.filter((u) => u.includes('/api/v1/dl_rank_heatmap')).map((u) => new URL(u).searchParams.get('form')), ['grid']);
    const order = await page.$$eval('#ranks-table tbody tr[data-rank]', (rows) => rows.map((r) => Number(r.dataset.rank)));
    const ranks = (await (await fetch(`${server.url}/api/v1/dl_ranks?limit=1000`)).json()).rows;
    const devOf = new Map(ranks.map((r) => [r.rank, r.device_id]));
    const shown = await page.locator('#ranks-heat').evaluate((c) => [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)]);
    const ref = await page.evaluate(`(${drawnFromCells})(${JSON.stringify(cells)}, ${JSON.stringify(order.map((r) => devOf.get(r)))})`);
    assert.deepEqual(shown.slice(0, 2), [6 * 24, 8 * 14]);
    assert.equal(shown[2].length, ref.length);
    assert.ok(shown[2].every((v, i) => v === ref[i]), 'the same pixels as a fill per cell');
    // not all one colour: the holes grey, rank 3's cells lighter than the others'
    const pixel = (rank, iter) => {
      const k = ((order.indexOf(rank) * 14 + 7) * 6 * 24 + iter * 24 + 12) * 4;
      return shown[2].slice(k, k + 3);
    };
    assert.deepEqual(pixel(2, 1), [221, 221, 221]);
    assert.deepEqual(pixel(7, 5), [221, 221, 221]);
    assert.deepEqual(pixel(6, 4), [221, 221, 221]);
    assert.notDeepEqual(pixel(3, 0), pixel(0, 0));
    assert.notDeepEqual(pixel(0, 0), [221, 221, 221]);
    assert.deepEqual(page.problems, []);
    await page.close();

    // without the heatmap's answer (a viewer without the endpoint): the
    // pages of dl_rank_iterations, the same pixels
    const old = await watchedPage(browser.context);
    const pages = [];
    old.on('request', (q) => pages.push(q.url()));
    await old.route('**/api/v1/dl_rank_heatmap*', (r) => r.fulfill({ status: 404, contentType: 'application/json', body: '{"error":{"status":404,"code":"not_found","message":"no"}}' }));
    await old.goto(`${server.url}/#/ranks`);
    await settled(old);
    assert.ok(pages.some((u) => u.includes('/api/v1/dl_rank_iterations')));
    const again = await old.locator('#ranks-heat').evaluate((c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data));
    assert.ok(again.length === ref.length && again.every((v, i) => v === ref[i]), 'the same pixels from the pages');
    assert.deepEqual(old.problems.filter((x) => !/dl_rank_heatmap|status of 404/.test(x)), []);
    await old.close();
  } finally {
    await server.stop();
  }
});
