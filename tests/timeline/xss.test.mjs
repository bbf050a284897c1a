// xss.test.mjs - the Timeline page shows hostile names as text. The dldb
// dlprof writes from HTA's DDP rank has the name of its longest kernel, of
// that kernel's CUDA call and of an op range rewritten (sqlite3 CLI) into
// HTML/script payloads: the canvas draws them with fillText, the details
// show them literally and create no element from them, the search box
// finds them, the exported JSON keeps them as strings, and window.__xss
// stays undefined. The same for Python frames: in the dldb of a TraceLens
// H100 trace (with_stack=True) a frame's name and its parent's are
// payloads; the frame's details and its list of parents show them as text.
// Run: node tests/web/run.mjs tests/timeline/xss.test.mjs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DDP_KINETO, H100_KINETO, sql, sqlWrite, dlprofDldb, exportedWindow, viewersOn, watchedPage } from '../web/helpers.mjs';

const IMG = '<img src=x onerror=window.__xss=1>';
const SCRIPT = '<script>window.__xss=1</script>';
const SVG = '"><svg onload=window.__xss=1>';
const esc = (s) => s.replaceAll("'", "''");

let dbs, servers, browser, stop, k, frame;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('timeline-xss', (dir) => {
    const db = dlprofDldb(DDP_KINETO, dir, 'ddp');
    const longest = `(SELECT id FROM kernels ORDER BY gpu_end_ns - gpu_start_ns DESC LIMIT 1)`;
    sqlWrite(
      db,
      `UPDATE strings SET value = '${esc(IMG)}' WHERE id = (SELECT short_name_id FROM kernels WHERE id = ${longest});
       UPDATE strings SET value = '${esc(SCRIPT)}' WHERE id = (SELECT c.name_id FROM cuda_api_calls c
         JOIN kernels k ON k.pid = c.pid AND k.correlation_id = c.correlation_id WHERE k.id = ${longest});
       UPDATE strings SET value = '${esc(SVG)}' WHERE id = (SELECT name_id FROM nvtx_ranges
         WHERE kind <> 3 ORDER BY end_ns - start_ns DESC LIMIT 1 OFFSET 3);`,
    );
    // a frame three levels down on the busiest Python thread (its own name
    // text, not shared with other frames), and its parent
    const h100 = dlprofDldb(H100_KINETO, dir, 'h100');
    const f = sql(h100, `SELECT c.id, c.name_id, p.name_id AS parent_name_id FROM dl_python_frames c
      JOIN dl_python_frames p ON p.pid = c.pid AND p.python_id = c.parent_python_id
      JOIN dl_python_frames g ON g.pid = p.pid AND g.python_id = p.parent_python_id AND g.parent_python_id IS NOT NULL
      WHERE (SELECT COUNT(*) FROM dl_python_frames x WHERE x.name_id IN (c.name_id, p.name_id)) = 2
        AND c.name_id <> p.name_id
      ORDER BY c.end_ns - c.start_ns DESC LIMIT 1`)[0];
    assert.ok(f, 'a frame with a parent and a grandparent, names of their own');
    sqlWrite(h100, `UPDATE strings SET value = '${esc(IMG)}' WHERE id = ${f.name_id};
      UPDATE strings SET value = '${esc(SCRIPT)}' WHERE id = ${f.parent_name_id};`);
    return { ddp: db, h100 };
  }));
  frame = sql(dbs.h100, `SELECT e.start, e.dur, e.event_id, t.track_id FROM view_dl_timeline_events e
    JOIN view_dl_timeline_tracks t ON t.kind = e.kind AND t.pid = e.pid AND t.tid = e.tid
    WHERE e.kind = 'python_thread' AND e.name = '${esc(IMG)}'`)[0];
  assert.ok(frame, 'the payload is a frame name in the views');
  k = sql(dbs.ddp, `SELECT e.start, e.dur, e.event_id, t.track_id FROM view_dl_timeline_events e
    JOIN view_dl_timeline_tracks t ON t.kind = e.kind AND t.device_id = e.device_id AND t.stream_id = e.stream_id AND t.pid = e.pid
    WHERE e.kind = 'gpu_stream' AND e.name = '${esc(IMG)}' ORDER BY e.dur DESC LIMIT 1`)[0];
  assert.ok(k, 'the payload is a kernel name in the views');
});

after(async () => {
  if (stop) await stop();
});

test('hostile kernel, call and range names stay text', async () => {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers.ddp.url}/#/timeline?start=${k.start - 4 * k.dur}&end=${k.start + 5 * k.dur}&q=${encodeURIComponent('<')}`);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  const d = await page.locator('canvas.timeline-canvas').evaluate((c) => ({ ...c.dataset }));
  assert.ok(Number(d.highlighted) > 0, 'the search finds the payloads');
  const y = JSON.parse(d.rows).find((r) => r[0] === k.track_id)[1];
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  const x = 220 + ((k.start + k.dur / 2 - Number(d.start)) / (Number(d.end) - Number(d.start))) * (box.width - 220);
  await page.mouse.click(box.x + x, box.y + y);
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, IMG);
  await page.waitForFunction(() => Number(document.querySelector('#timeline-details').dataset.links) > 0, null, { timeout: 20000 });
  const text = await page.locator('#timeline-details').innerText();
  assert.ok(text.includes(IMG), 'the kernel name is shown literally');
  assert.ok(text.includes(SCRIPT), 'the call name is shown literally');
  assert.equal(await page.locator('#timeline-details img, #timeline-details script, #timeline-details svg').count(), 0);
  await page.click('#timeline-details button.timeline-go[data-role="call"]');
  await page.waitForFunction((n) => document.querySelector('#timeline-details').dataset.name === n, SCRIPT);
  const doc = JSON.parse(await exportedWindow(page));
  const names = new Set(doc.traceEvents.map((e) => e.name));
  assert.ok(names.has(IMG) && names.has(SCRIPT), 'the export keeps the names as strings');
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(page.problems, []);
});

test('a hostile Python frame name and its parent\'s stay text', async () => {
  const page = await watchedPage(browser.context);
  const f = frame;
  // selected through the URL: the details of the frame at sel come from its track's answer
  await page.goto(`${servers.h100.url}/#/timeline?start=${f.start - 4 * f.dur}&end=${f.start + 5 * f.dur}` +
    `&q=${encodeURIComponent('<')}&sel=${f.track_id}:${f.start}`);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 20000 });
  const d = await page.locator('canvas.timeline-canvas').evaluate((c) => ({ ...c.dataset }));
  assert.ok(Number(d.highlighted) > 0, 'the search finds the payloads');
  await page.waitForFunction(() => Number(document.querySelector('#timeline-details').dataset.parents) > 0, null, { timeout: 20000 });
  const text = await page.locator('#timeline-details').innerText();
  const parents = await page.locator('#timeline-parents li').allInnerTexts();
  assert.ok(text.includes(IMG) || parents.some((p) => p.includes(IMG)), 'the frame name is shown literally');
  assert.ok(parents.some((p) => p.startsWith(SCRIPT)), 'the parent frame name is shown literally');
  assert.equal(await page.locator('#timeline-details img, #timeline-details script, #timeline-details svg').count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(page.problems, []);
});
