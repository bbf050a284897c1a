// page.test.mjs - the Timeline page in Chromium on the dldb dlprof writes
// from a real PyTorch profiler trace (HTA's DDP rank, 6 iterations, 4 GPU
// streams): it draws every track of view_dl_timeline_tracks; A/D pan and
// W/S and the wheel zoom (the URL's window follows); a click on a kernel
// shows its name; the search box highlights matching events; a click on an
// iteration bar of the Iterations page opens the timeline on that
// iteration's range. A selected kernel shows its grid, block, op (links to
// the Ops and Kernels by Op pages) and CUDA call, with an arrow from the
// call; "Show" selects the call. "Export window" builds Chrome trace JSON
// that Python's json loads (check_chrome.py) with the window's kernel
// count. No console errors.
// Run: node tests/web/run.mjs tests/timeline/page.test.mjs (env of tests/web).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DDP_KINETO, sql, dlprofDldb, exportedWindow, viewersOn, watchedPage } from '../web/helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('timeline', (dir) => ({ ddp: dlprofDldb(DDP_KINETO, dir, 'ddp') })));
});

after(async () => {
  if (stop) await stop();
});

const hashParams = (page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1] || ''));

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.ddp.url}/${route}`);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  return page;
}

const data = (page) => page.locator('canvas.timeline-canvas').evaluate((c) => ({ ...c.dataset }));

/** Waits until the canvas has loaded a window other than `before`. */
async function reloaded(page, before) {
  await page.waitForFunction((b) => {
    const c = document.querySelector('canvas.timeline-canvas');
    return c.dataset.loaded && c.dataset.loaded !== b;
  }, before);
  return data(page);
}

test('it draws every track and pans and zooms with keys, the wheel and a drag', async () => {
  const tracks = sql(dbs.ddp, 'SELECT count(*) AS n FROM view_dl_timeline_tracks')[0].n;
  const page = await open('#/timeline');
  let d = await data(page);
  assert.equal(Number(d.tracks), tracks);
  assert.ok(Number(d.drawn) > 0);
  const span = (x) => Number(x.end) - Number(x.start);
  const s0 = span(d);
  await page.locator('canvas.timeline-canvas').focus();
  await page.keyboard.press('w');
  d = await reloaded(page, d.loaded);
  assert.ok(Math.abs(span(d) - s0 / 1.25) <= 2, `zoomed span ${span(d)} of ${s0}`);
  const start1 = Number(d.start);
  await page.keyboard.press('d');
  d = await reloaded(page, d.loaded);
  assert.ok(Math.abs(Number(d.start) - (start1 + span(d) * 0.1)) <= 2, 'D pans right by a tenth');
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  const start2 = Number(d.start);
  await page.mouse.move(box.x + 700, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 600, box.y + 60, { steps: 5 });
  await page.mouse.up();
  d = await reloaded(page, d.loaded);
  assert.ok(Number(d.start) > start2, 'a drag to the left moves the window later');
  const s3 = span(d);
  await page.mouse.move(box.x + 800, box.y + 60);
  await page.mouse.wheel(0, 200);
  d = await reloaded(page, d.loaded);
  assert.ok(span(d) > s3, 'the wheel down zooms out');
  // The URL follows the window after a pause (debounced): wait for the
  // window drawn last, not for an earlier one's URL.
  await page
    .waitForFunction((want) => {
      const q = new URLSearchParams(location.hash.split('?')[1] || '');
      return q.has('start') && Number(q.get('end')) - Number(q.get('start')) === want;
    }, span(d), { timeout: 10000 })
    .catch(() => null);
  const p = hashParams(page);
  assert.equal(Number(p.end) - Number(p.start), span(d));
  assert.deepEqual(page.problems, []);
});

test('a click on a kernel shows its details; the search box highlights', async () => {
  const k = sql(dbs.ddp, `SELECT e.start, e.dur, e.name, t.track_id FROM view_dl_timeline_events e
    JOIN view_dl_timeline_tracks t ON t.kind = e.kind AND t.device_id = e.device_id AND t.stream_id = e.stream_id AND t.pid = e.pid
    WHERE e.kind = 'gpu_stream' AND e.dur > 100000 ORDER BY e.dur DESC LIMIT 1`)[0];
  const page = await open(`#/timeline?start=${k.start - k.dur}&end=${k.start + 2 * k.dur}`);
  const d = await data(page);
  const y = JSON.parse(d.rows).find((r) => r[0] === k.track_id)[1];
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  const headW = 220;
  const x = headW + ((k.start + k.dur / 2 - Number(d.start)) / (Number(d.end) - Number(d.start))) * (box.width - headW);
  await page.mouse.click(box.x + x, box.y + y);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, k.name);
  await page.waitForFunction(() => /[?&]sel=/.test(location.hash));
  assert.equal(hashParams(page).sel, `${k.track_id}:${k.start}`);
  await page.fill('#timeline-search', k.name.slice(0, 12));
  await page.waitForFunction(() => Number(document.querySelector('canvas.timeline-canvas').dataset.highlighted) > 0);
  await page.waitForFunction(() => /[?&]q=/.test(location.hash));
  await page.fill('#timeline-search', 'no such name at all');
  await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas').dataset.highlighted === '0');
  assert.deepEqual(page.problems, []);
});

test('a click on an iteration bar opens the timeline on its range', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.ddp.url}/#/iterations`);
  const canvas = page.locator('[data-panel="iterations-chart"] canvas');
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-panel="iterations-chart"] canvas');
    const ch = c && window.Chart.getChart(c);
    return ch && ch.data.labels.length > 0 && ch.$dlFirst;
  });
  const bar = await canvas.evaluate((c) => {
    const ch = window.Chart.getChart(c);
    const i = 2;
    const el = ch.getDatasetMeta(0).data[i];
    return { x: el.x, y: ch.chartArea.bottom - 5, first: ch.$dlFirst[i], last: ch.$dlLast[i] };
  });
  assert.equal(bar.first, bar.last, 'one iteration per bar');
  const it = sql(dbs.ddp, `SELECT start_time, stop_time FROM view_iterations_all
    WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations) AND iter_value = ${bar.first}`)[0];
  const box = await canvas.boundingBox();
  await page.mouse.click(box.x + bar.x, box.y + bar.y);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  const d = await data(page);
  assert.equal(Number(d.start), it.start_time);
  assert.equal(Number(d.end), it.stop_time);
  assert.deepEqual(page.problems, []);
});

/** Opens the timeline around the longest kernel and clicks it; returns it. */
async function clickKernel() {
  const k = sql(dbs.ddp, `SELECT e.start, e.dur, e.name, e.event_id, t.track_id FROM view_dl_timeline_events e
    JOIN view_dl_timeline_tracks t ON t.kind = e.kind AND t.device_id = e.device_id AND t.stream_id = e.stream_id AND t.pid = e.pid
    WHERE e.kind = 'gpu_stream' AND e.category = 'kernel' AND e.dur > 100000 ORDER BY e.dur DESC LIMIT 1`)[0];
  const page = await open(`#/timeline?start=${k.start - 4 * k.dur}&end=${k.start + 5 * k.dur}`);
  const d = await data(page);
  const y = JSON.parse(d.rows).find((r) => r[0] === k.track_id)[1];
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  const headW = 220;
  const x = headW + ((k.start + k.dur / 2 - Number(d.start)) / (Number(d.end) - Number(d.start))) * (box.width - headW);
  await page.mouse.click(box.x + x, box.y + y);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, k.name);
  return { page, k };
}

test('a selected kernel shows grid, block, op and its CUDA call, with the arrow from the call', async () => {
  const { page, k } = await clickKernel();
  await page.waitForFunction(() => Number(document.querySelector('#timeline-details').dataset.links) > 0, null, { timeout: 20000 });
  const text = await page.locator('#timeline-details').innerText();
  assert.match(text, /Grid\s+\d+ × \d+ × \d+/);
  assert.match(text, /Block\s+\d+ × \d+ × \d+/);
  assert.match(text, /CUDA call/);
  const op = await page.locator('#timeline-details a.timeline-op-link').getAttribute('href');
  assert.match(op, /#\/ops\?.*op=/);
  const flow = await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas').dataset.flow);
  assert.match(await flow.jsonValue(), new RegExp(`>${k.track_id}:${k.start}$`), 'the arrow ends at the kernel');
  await page.click('#timeline-details button.timeline-go[data-role="call"]');
  await page.waitForFunction((t) => !new RegExp(`sel=${t}%3A|sel=${t}:`).test(location.hash) && /sel=/.test(location.hash), k.track_id);
  const [track, start] = decodeURIComponent(hashParams(page).sel).split(':').map(Number);
  const call = sql(dbs.ddp, `SELECT kind FROM view_dl_timeline_tracks WHERE track_id = ${track}`)[0];
  assert.equal(call.kind, 'cpu_thread');
  assert.ok(start <= k.start, 'the call starts before its kernel');
  assert.deepEqual(page.problems, []);
});

test('Export window: Chrome trace JSON with the window\'s kernels', async () => {
  const { page } = await clickKernel();
  const d = await data(page);
  const json = await exportedWindow(page);
  const dir = join(process.env.DL_WEB_ARTIFACTS || '/tmp', 'timeline_export');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'window.json');
  writeFileSync(file, json);
  const got = JSON.parse(execFileSync('python3', [join(here, 'check_chrome.py'), file], { encoding: 'utf8' }));
  const [s, e] = [Number(d.start), Number(d.end)];
  const want = sql(dbs.ddp, `SELECT COUNT(*) AS n FROM view_dl_timeline_events WHERE category = 'kernel'
    AND start < ${e} AND (start + dur > ${s} OR (dur = 0 AND start >= ${s}))`)[0].n;
  assert.ok(want > 0);
  assert.equal(got.kernels, want);
  assert.deepEqual(page.problems, []);
});

test('a kernel row of the Ops page opens the timeline with its launches highlighted', async () => {
  const op = sql(dbs.ddp, `SELECT op_node_id FROM view_kernel_summaries
    WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations) ORDER BY gpu_time DESC LIMIT 1`)[0].op_node_id;
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.ddp.url}/#/ops?op=${encodeURIComponent(op)}`);
  const row = page.locator('[data-table="kernels"][data-loaded] tbody tr:not(.placeholder)').first();
  await row.waitFor({ timeout: 20000 });
  const name = (await row.locator('td').first().innerText()).trim();
  await row.click();
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  assert.equal(hashParams(page).q, name);
  await page.waitForFunction(() => Number(document.querySelector('canvas.timeline-canvas').dataset.highlighted) > 0);
  assert.deepEqual(page.problems, []);
});
