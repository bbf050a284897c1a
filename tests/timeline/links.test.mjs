// links.test.mjs - the rest of the viewer opens the Timeline on a row's
// range, in Chromium, on the dldb dlprof writes from a real PyTorch profiler
// trace (HTA's DDP rank: 6 iterations, NCCL kernels, two findings with
// evidence). Each link is followed by a click and the page's URL must hold
// the range the row stands for (a tenth of its length added on each side)
// with its event selected, the range computed here from the dldb's base
// tables (not the views the server reads):
//   - an op (the Ops table, the dashboard's Top 10 GPU Ops, a Group Ops
//     leaf): its kernels in the first iteration that launches one, from the
//     first launch call's start to the last kernel's end, the first kernel
//     selected; a kernel of the Ops page's kernel table: the same window,
//     its name highlighted;
//   - a kernel launch row (Kernels by Op, Kernels by Iteration): from its
//     call's start to the kernel's end, the kernel selected;
//   - an expert finding's evidence (the dashboard): the iteration with the
//     most dataloader time, the one with the most exposed communication
//     (NCCL kernels highlighted), the iteration's band selected;
//   - a GPU's idle gap: the longest (the dashboard's GPU Utilization) and the
//     ten longest of every GPU (the GPUs page, on a 4-GPU Nsight Systems
//     export of CloverLeaf) are the stretches when the GPU runs nothing found
//     here from the trace's own kernels, memcpys and memsets, and each opens
//     the window on it.
// From the timeline a selected kernel's details link to its op's row (Ops)
// and to its own row (Kernels by Op, filtered to its name). The focus API
// answers 400 for what it lacks, 404 where a row has no range, and lists
// the findings with evidence.
// Run: node tests/web/run.mjs tests/timeline/links.test.mjs (env of tests/web).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CLOVER_EXPORT, DDP_KINETO, sql, dlprofDldb, viewersOn, watchedPage } from '../web/helpers.mjs';

let db, url, browser, stop, dbs, servers;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('timeline_links', (dir) => ({
    ddp: dlprofDldb(DDP_KINETO, dir, 'ddp'),
    clover: dlprofDldb(CLOVER_EXPORT, dir, 'clover'),
  })));
  db = dbs.ddp;
  url = servers.ddp.url;
});

after(async () => {
  if (stop) await stop();
});

const hashParams = (page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1] || ''));
const AGGR = '(SELECT max(aggr_id) FROM aggregations)';

/** The window the Timeline shows for a range [s, e): a tenth of it on each side. */
const padded = (s, e) => {
  const pad = Math.max(1, Math.ceil((e - s) / 10));
  return [s - pad, e + pad];
};

/** The GPU track of kernel id k. */
function kernelTrack(k) {
  return sql(
    db,
    `SELECT t.track_id, k.gpu_start_ns AS start, n.value AS name FROM kernels k JOIN strings n ON n.id = k.short_name_id
     JOIN dl_timeline_tracks t ON t.kind = 'gpu_stream' AND t.pid = k.pid AND t.device_id = k.device_id AND t.stream_id = k.stream_id
     WHERE k.id = ${k}`,
  )[0];
}

/** Op id's range in the first iteration that launches a kernel of it, and its first kernel. */
function opRange(id) {
  const q = `SELECT a.iter_value, a.api_start_ns, a.kernel_id, k.gpu_start_ns, k.gpu_end_ns FROM aggr_kernels a
    JOIN aggr_ops o ON o.aggr_id = a.aggr_id AND o.op_idx = a.op_idx JOIN kernels k ON k.id = a.kernel_id
    WHERE a.aggr_id = ${AGGR} AND o.op_node_id = '${id.replace(/'/g, "''")}'`;
  const rows = sql(db, q);
  const iter = Math.min(...rows.map((r) => r.iter_value));
  const mine = rows.filter((r) => r.iter_value === iter);
  mine.sort((a, b) => a.api_start_ns - b.api_start_ns || a.gpu_start_ns - b.gpu_start_ns || a.kernel_id - b.kernel_id);
  const s = Math.min(...mine.map((r) => Math.min(r.api_start_ns, r.gpu_start_ns)));
  const e = Math.max(...mine.map((r) => r.gpu_end_ns));
  return { iter, s, e, first: kernelTrack(mine[0].kernel_id) };
}

/** Waits for the Timeline to have opened on a row and drawn; returns its URL params. */
async function opened(page) {
  await page.waitForFunction(() => /^#\/timeline\?/.test(location.hash) && /[?&]start=/.test(location.hash) && !/[?&]of=/.test(location.hash), null, {
    timeout: 20000,
  });
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', {
    timeout: 20000,
  });
  return hashParams(page);
}

/** Asserts the Timeline shows [s, e) padded, with event (track, start) selected and named. */
async function assertOn(page, p, s, e, sel) {
  const [ws, we] = padded(s, e);
  assert.equal(Number(p.start), ws, 'the window starts a tenth of the range before it');
  assert.equal(Number(p.end), we, 'the window ends a tenth of the range after it');
  const c = await page.locator('canvas.timeline-canvas').evaluate((x) => ({ ...x.dataset }));
  assert.equal(Number(c.start), ws);
  assert.equal(Number(c.end), we);
  if (!sel) return;
  assert.equal(decodeURIComponent(p.sel), `${sel.track_id}:${sel.start}`, 'its event is selected');
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, sel.name, { timeout: 20000 });
}

/** The op of the Ops page's first row (by GPU time) and its link. */
test('an op of the Ops table opens the timeline on its kernels, the first selected', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/ops`);
  const row = page.locator('[data-table="ops"][data-loaded] tbody tr:not(.placeholder)').first();
  await row.waitFor({ timeout: 20000 });
  const id = await row.getAttribute('data-key');
  await row.locator('a.timeline-link').click();
  const p = await opened(page);
  const r = opRange(id);
  await assertOn(page, p, r.s, r.e, r.first);
  assert.match(await page.locator('#timeline-focus').innerText(), new RegExp(`op ${id} in iteration ${r.iter}`));
  assert.deepEqual(page.problems, []);
});

test("a kernel of the Ops page's kernel table opens its op's kernels with its name highlighted", async () => {
  const id = sql(db, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id = ${AGGR} AND kernel_calls > 0 ORDER BY gpu_time DESC LIMIT 1`)[0].op_node_id;
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/ops?op=${encodeURIComponent(id)}`);
  const row = page.locator('[data-table="kernels"][data-loaded] tbody tr:not(.placeholder)').first();
  await row.waitFor({ timeout: 20000 });
  const name = (await row.locator('td').first().innerText()).trim();
  await row.click();
  const p = await opened(page);
  const r = opRange(id);
  await assertOn(page, p, r.s, r.e, r.first);
  assert.equal(p.q, name);
  await page.waitForFunction(() => Number(document.querySelector('canvas.timeline-canvas').dataset.highlighted) > 0);
  assert.deepEqual(page.problems, []);
});

test("the dashboard's Top 10 GPU Ops and a Group Ops leaf open the op's kernels", async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/`);
  const link = page.locator('[data-panel="top10"] tbody tr a.timeline-link').first();
  await link.waitFor({ timeout: 20000 });
  const id = await page.locator('[data-panel="top10"] tbody tr').first().getAttribute('data-key');
  await link.click();
  let p = await opened(page);
  let r = opRange(id);
  await assertOn(page, p, r.s, r.e, r.first);

  await page.goto(`${url}/#/group-ops?expand=all`);
  const leaf = page
    .locator('tr.tree-op')
    .filter({ has: page.locator('a.timeline-link') })
    .first();
  await leaf.waitFor({ timeout: 20000 });
  const leafId = (await leaf.locator('span.id').innerText()).trim();
  await leaf.locator('a.timeline-link').click();
  p = await opened(page);
  r = opRange(leafId);
  await assertOn(page, p, r.s, r.e, r.first);
  assert.deepEqual(page.problems, []);
});

/** Follows the Timeline link of the second row of a kernel launch table;
 * returns the page, the Timeline's URL params and the row's (from its link:
 * the iteration, call start, device and kernel name of the API's row). */
async function launchLink(route, table) {
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/${route}`);
  const row = page.locator(`[data-table="${table}"][data-loaded] tbody tr:not(.placeholder)`).nth(1);
  await row.waitFor({ timeout: 20000 });
  const href = await row.locator('a.timeline-link').getAttribute('href');
  const rp = Object.fromEntries(new URLSearchParams(href.split('?')[1]));
  assert.equal(rp.of, 'kernel');
  await row.locator('a.timeline-link').click();
  const p = await opened(page);
  return { page, p, rp };
}

/** The kernel a launch row (iteration, call start, device, name) stands for. */
function launchOf(rp) {
  const k = sql(
    db,
    `SELECT a.kernel_id, a.api_start_ns, k.gpu_start_ns, k.gpu_end_ns FROM aggr_kernels a JOIN kernels k ON k.id = a.kernel_id
     JOIN strings n ON n.id = k.short_name_id
     WHERE a.aggr_id = ${AGGR} AND a.iter_value = ${Number(rp.iter)} AND a.api_start_ns = ${Number(rp.at)} AND k.device_id = ${Number(rp.device_id)}
       AND n.value = '${rp.name.replace(/'/g, "''")}' ORDER BY k.gpu_start_ns, a.kernel_id LIMIT 1`,
  )[0];
  return {
    s: Math.min(k.api_start_ns, k.gpu_start_ns),
    e: k.gpu_end_ns,
    sel: kernelTrack(k.kernel_id),
  };
}

test('a kernel launch row of Kernels by Op and Kernels by Iteration opens on that launch', async () => {
  const it = sql(
    db,
    `SELECT iter_value, op_node_id FROM view_iteration_ops WHERE aggr_id = ${AGGR} AND total_count > 2 ORDER BY iter_value, total_gpu_time DESC LIMIT 1`,
  )[0];
  let { page, p, rp } = await launchLink(`#/kernels-by-op?iter=${it.iter_value}&op=${encodeURIComponent(it.op_node_id)}`, 'iteration-op-kernels');
  assert.equal(Number(rp.iter), it.iter_value);
  let want = launchOf(rp);
  await assertOn(page, p, want.s, want.e, want.sel);
  assert.deepEqual(page.problems, []);

  ({ page, p, rp } = await launchLink('#/kernels-by-iteration?iter=1', 'iteration-kernels'));
  assert.equal(Number(rp.iter), 1);
  want = launchOf(rp);
  await assertOn(page, p, want.s, want.e, want.sel);
  assert.deepEqual(page.problems, []);
});

/** The iterations band and iteration iter's range. */
function iterRange(iter) {
  const r = sql(db, `SELECT start_time, stop_time FROM aggr_iterations WHERE aggr_id = ${AGGR} AND iter_value = ${iter}`)[0];
  const band = sql(db, `SELECT track_id FROM dl_timeline_tracks WHERE kind = 'iterations'`)[0].track_id;
  return {
    s: r.start_time,
    e: r.stop_time,
    sel: { track_id: band, start: r.start_time, name: `iteration ${iter}` },
  };
}

test("an expert finding's evidence opens its iteration; exposed communication highlights NCCL", async () => {
  const rules = sql(db, `SELECT rule_id FROM aggr_findings WHERE aggr_id = ${AGGR} ORDER BY seq`).map((r) => r.rule_id);
  assert.deepEqual(rules, ['dataloader_detector', 'exposed_communication_detector']);
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/`);
  const links = page.locator('[data-panel="expert-systems"] tbody tr a.timeline-link');
  await page.waitForFunction(() => document.querySelectorAll('[data-panel="expert-systems"] tbody tr a.timeline-link').length === 2, null, { timeout: 20000 });
  await links.first().click();
  let p = await opened(page);
  const loader = sql(
    db,
    `SELECT iter_value FROM aggr_iterations WHERE aggr_id = ${AGGR} AND profiled = 1 AND dataloader_duration > 0
     ORDER BY dataloader_duration DESC, iter_value LIMIT 1`,
  )[0].iter_value;
  let r = iterRange(loader);
  await assertOn(page, p, r.s, r.e, r.sel);

  await page.goto(`${url}/#/`);
  await page.waitForFunction(() => document.querySelectorAll('[data-panel="expert-systems"] tbody tr a.timeline-link').length === 2, null, { timeout: 20000 });
  await links.nth(1).click();
  p = await opened(page);
  const comm = sql(
    db,
    `SELECT iter_value FROM aggr_dl_iter_gpu WHERE aggr_id = ${AGGR} AND exposed_comm_ns > 0 ORDER BY exposed_comm_ns DESC, iter_value LIMIT 1`,
  )[0].iter_value;
  r = iterRange(comm);
  await assertOn(page, p, r.s, r.e, r.sel);
  assert.equal(p.q, 'nccl');
  await page.waitForFunction(() => Number(document.querySelector('canvas.timeline-canvas').dataset.highlighted) > 0);
  assert.deepEqual(page.problems, []);
});

/** Every idle gap of each device of dldb d from its raw events, longest first. */
function gapsOf(d) {
  const ev = sql(
    d,
    `SELECT device_id, gpu_start_ns AS s, gpu_end_ns AS e FROM kernels UNION ALL SELECT device_id, gpu_start_ns, gpu_end_ns FROM memcpys
     UNION ALL SELECT device_id, gpu_start_ns, gpu_end_ns FROM memsets ORDER BY 1, 2`,
  );
  const gaps = [];
  let dev = null;
  let end = null;
  for (const x of ev) {
    if (x.device_id !== dev) [dev, end] = [x.device_id, null];
    if (end !== null && x.s > end) gaps.push({ device_id: dev, start: end, end: x.s });
    end = end === null ? x.e : Math.max(end, x.e);
  }
  return gaps.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
}

const gapOf = (el) => ({ device_id: Number(el.dataset.device), start: Number(el.dataset.start), end: Number(el.dataset.end) });

test("the dashboard's longest GPU idle gap is the trace's and opens the timeline on it", async () => {
  const gaps = gapsOf(db);
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/`);
  const gap = page.locator('[data-panel="gpu-utilization"] .idle-gap');
  await gap.waitFor({ timeout: 20000 });
  assert.deepEqual(await gap.evaluate(gapOf), gaps[0]);
  await gap.locator('a.timeline-link').click();
  const p = await opened(page);
  await assertOn(page, p, gaps[0].start, gaps[0].end, null);
  assert.match(await page.locator('#timeline-measure').innerText(), /Selected: /);
  assert.deepEqual(page.problems, []);
});

test("the GPUs page lists every GPU's longest idle gaps; each opens the timeline on it", async () => {
  const gaps = gapsOf(dbs.clover);
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.clover.url}/#/gpus`);
  const rows = page.locator('[data-panel="idle-gaps"] tbody tr');
  await rows.first().waitFor({ timeout: 20000 });
  const shown = await rows.evaluateAll((trs) =>
    trs.map((t) => ({ device_id: Number(t.dataset.device), start: Number(t.dataset.start), end: Number(t.dataset.end) })),
  );
  assert.equal(shown.length, Math.min(10, gaps.length));
  assert.deepEqual(shown, gaps.slice(0, shown.length));
  await rows.nth(2).locator('a.timeline-link').click();
  const p = await opened(page);
  await assertOn(page, p, gaps[2].start, gaps[2].end, null);
  assert.deepEqual(page.problems, []);
});

test("a selected kernel's details link to its op's row and its own kernel row", async () => {
  const id = sql(db, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id = ${AGGR} AND kernel_calls > 0 ORDER BY gpu_time DESC LIMIT 1`)[0].op_node_id;
  const r = opRange(id);
  const page = await watchedPage(browser.context);
  await page.goto(`${url}/#/timeline?of=op&op=${encodeURIComponent(id)}`);
  await opened(page);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, r.first.name, { timeout: 20000 });
  const rowLink = page.locator('#timeline-details a.timeline-kernel-row-link');
  await rowLink.waitFor({ timeout: 20000 });
  const opHref = await page.locator('#timeline-details a.timeline-op-link').getAttribute('href');
  await rowLink.click();
  await page.waitForFunction(() => location.hash.startsWith('#/kernels-by-op?'));
  const kp = hashParams(page);
  assert.equal(kp.op, id);
  assert.equal(Number(kp.iter), r.iter);
  const krow = page.locator('[data-table="iteration-op-kernels"][data-loaded] tbody tr:not(.placeholder)').first();
  await krow.waitFor({ timeout: 20000 });
  const names = await page.locator('[data-table="iteration-op-kernels"] tbody tr td:first-child').allInnerTexts();
  assert.ok(names.length > 0 && names.every((n) => n.trim() === r.first.name), `rows of ${r.first.name}: ${names}`);
  await page.goto(`${url}/${opHref}`);
  const sel = page.locator('[data-table="ops"][data-loaded] tbody tr.selected');
  await sel.waitFor({ timeout: 20000 });
  assert.equal(await sel.getAttribute('data-key'), id);
  assert.deepEqual(page.problems, []);
});

test('the focus API: 400 without what it needs, 404 where a row has no range, the findings with evidence', async () => {
  const status = async (q) => (await fetch(`${url}/api/v1/${q}`)).status;
  assert.equal(await status('dl_timeline_focus'), 400);
  assert.equal(await status('dl_timeline_focus?of=nope'), 400);
  assert.equal(await status('dl_timeline_focus?of=op'), 400);
  assert.equal(await status('dl_timeline_focus?of=kernel&iter=1&at=5'), 400);
  assert.equal(await status('dl_timeline_focus?of=finding&finding=0'), 400);
  assert.equal(await status('dl_gpu_idle_gaps?limit=101'), 400);
  assert.equal(await status('dl_timeline_focus?of=op&op=NO_SUCH_OP'), 404);
  assert.equal(await status('dl_timeline_focus?of=iteration&iter=999999'), 404);
  assert.equal(await status('dl_timeline_focus?of=finding&finding=3'), 404);
  const cpuOnly = sql(db, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id = ${AGGR} AND kernel_calls = 0 LIMIT 1`)[0];
  if (cpuOnly) assert.equal(await status(`dl_timeline_focus?of=op&op=${encodeURIComponent(cpuOnly.op_node_id)}`), 404);
  const f = await (await fetch(`${url}/api/v1/dl_timeline_findings`)).json();
  assert.deepEqual(
    f.rows.map((r) => r.finding),
    [1, 2],
  );
  const it = iterRange(f.rows[0].what.match(/^iteration (\d+)/)[1]);
  assert.deepEqual([f.rows[0].start, f.rows[0].end], [it.s, it.e]);
});
