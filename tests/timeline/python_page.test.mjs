// python_page.test.mjs - the Python frames on the Timeline page, in
// Chromium, on the dldb dlprof writes from a TraceLens H100 trace recorded
// with with_stack=True: every python_thread track of the dldb is drawn as
// a row of nested levels; a click on a frame at its depth selects it and
// shows its name, duration and the frames it was called from (the trace's
// Python parent id chain, read here from the dldb), and "Show" on a
// parent selects that frame; "Export window" writes the window's frames
// as "X" events of cat python_function. No console errors.
// Run: node tests/web/run.mjs tests/timeline/python_page.test.mjs (env of tests/web).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { H100_KINETO, sql, dlprofDldb, exportedWindow, viewersOn, watchedPage } from '../web/helpers.mjs';

const HEAD_W = 220;
let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('timeline-py', (dir) => ({ h100: dlprofDldb(H100_KINETO, dir, 'h100') })));
});

after(async () => {
  if (stop) await stop();
});

const data = (page) => page.locator('canvas.timeline-canvas').evaluate((c) => ({ ...c.dataset }));

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.h100.url}/${route}`);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  return page;
}

/** Frames by row id with their parent chain (outermost first), from the dldb. */
function frames() {
  const rows = sql(dbs.h100, `SELECT f.id, f.pid, f.tid, f.start_ns - 0 AS start, f.end_ns - f.start_ns AS dur,
    s.value AS name, f.python_id, f.parent_python_id FROM dl_python_frames f JOIN strings s ON s.id = f.name_id`);
  const byPy = new Map(rows.map((r) => [`${r.pid}/${r.python_id}`, r]));
  for (const r of rows) {
    r.chain = [];
    for (let p = byPy.get(`${r.pid}/${r.parent_python_id}`); p; p = byPy.get(`${p.pid}/${p.parent_python_id}`)) r.chain.unshift(p);
  }
  return rows;
}

test('each Python thread is a row of nested frames; a click selects a frame and shows its parents', async () => {
  const tracks = sql(dbs.h100, "SELECT track_id, pid, tid, event_count FROM view_dl_timeline_tracks WHERE kind = 'python_thread'");
  assert.ok(tracks.length > 0, 'the trace has Python tracks');
  const all = frames();
  assert.equal(all.length, tracks.reduce((n, t) => n + t.event_count, 0));
  // a frame some levels deep, long enough to click, on the busiest thread
  const main = tracks.reduce((a, b) => (b.event_count > a.event_count ? b : a));
  // (its window must hold few enough frames to come raw, not as bins: the server's width)
  const mine = all.filter((r) => r.pid === main.pid && r.tid === main.tid);
  const inWindow = (f) => {
    const [s, e] = [f.start - Math.floor(f.dur / 4), f.start + f.dur + Math.floor(f.dur / 4)];
    return mine.filter((r) => r.start < e && r.start + r.dur > s).length;
  };
  const f = mine
    .filter((r) => r.chain.length >= 3 && r.chain.length < 20)
    .sort((a, b) => b.dur - a.dur)
    .find((r) => inWindow(r) < 500);
  assert.ok(f, 'a nested frame');
  const page = await open(`#/timeline?start=${f.start - Math.floor(f.dur / 4)}&end=${f.start + f.dur + Math.floor(f.dur / 4)}`);
  const d = await data(page);
  const py = JSON.parse(d.pyrows);
  assert.deepEqual(py.map((r) => r[0]).sort((a, b) => a - b), tracks.map((t) => t.track_id).sort((a, b) => a - b), 'a row per Python track');
  const [, top, levelH, levels] = py.find((r) => r[0] === main.track_id);
  assert.ok(levels > f.chain.length, `the row shows ${levels} levels, the frame is at depth ${f.chain.length}`);
  assert.ok(Number(d.drawn) > 0);
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  const x = HEAD_W + ((f.start + f.dur / 2 - Number(d.start)) / (Number(d.end) - Number(d.start))) * (box.width - HEAD_W);
  await page.mouse.click(box.x + x, box.y + top + f.chain.length * levelH + levelH / 2);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, f.name);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.parents === String(n), f.chain.length, { timeout: 20000 });
  const items = await page.locator('#timeline-parents li').allInnerTexts();
  assert.deepEqual(items.map((t) => t.split(' · ')[0]), f.chain.map((p) => p.name), 'its parents, outermost first');
  const text = await page.locator('#timeline-details').innerText();
  assert.match(text, /Duration/);
  assert.match(text, /python_function/);
  await page.waitForFunction(() => /[?&]sel=/.test(location.hash));
  // Show on its direct parent selects the parent
  const parent = f.chain[f.chain.length - 1];
  await page.locator('#timeline-parents li button.timeline-go').last().click();
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, parent.name);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.parents === String(n), f.chain.length - 1, { timeout: 20000 });
  assert.deepEqual(page.problems, []);
});

test('Export window: the window\'s frames as "X" events of cat python_function', async () => {
  const t = sql(dbs.h100, "SELECT first_start, last_end FROM view_dl_timeline_tracks WHERE kind = 'python_thread' ORDER BY event_count DESC LIMIT 1")[0];
  const s = t.first_start + Math.floor((t.last_end - t.first_start) / 3);
  const e = s + Math.floor((t.last_end - t.first_start) / 5);
  const page = await open(`#/timeline?start=${s}&end=${e}`);
  const d = await data(page);
  const doc = JSON.parse(await exportedWindow(page));
  const got = doc.traceEvents.filter((x) => x.ph === 'X' && x.cat === 'python_function');
  const [ws, we] = [Number(d.start), Number(d.end)];
  const want = sql(dbs.h100, `SELECT COUNT(*) AS n FROM dl_python_frames WHERE start_ns < ${we}
    AND (end_ns > ${ws} OR (end_ns = start_ns AND start_ns >= ${ws}))`)[0].n;
  assert.ok(want > 0);
  assert.equal(got.length, want);
  assert.deepEqual(page.problems, []);
});
