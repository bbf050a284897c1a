// scroll.test.mjs - the Ranks table of a job larger than the table draws
// whole (ranks.js ROW_CHUNK, 128 ranks), in real Chromium: a synthetic
// 200-rank job (ranks_gen, the straggler at rank 3) through dlprof and
// dlprofviewer. The table sits in a scrolling box and holds the rows in
// view only, the straggler first; scrolled to the end it holds the last
// rank of the order, and every rank is drawn once on the way; a row keeps
// its link to the rank's iterations. No console errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, watchedPage, settled } from '../web/helpers.mjs';
import { importedJob } from './job.mjs';

const RANKS = 200;
let work;
let browser;
let db;

before(async () => {
  ({ work, db } = importedJob('dlpv-ranks-scroll-', RANKS, 3));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The data-rank of the table's drawn rows, in order. */
const drawn = (page) => page.$$eval('#ranks-table tbody tr[data-rank]', (rows) => rows.map((r) => Number(r.dataset.rank)));

test('Ranks table of 200 ranks: the rows in view, every rank on scrolling', async () => {
  const server = await startServer(db);
  try {
    const page = await watchedPage(browser.context);
    await page.goto(`${server.url}/#/ranks`);
    await settled(page);
    await page.waitForSelector('#ranks-table[data-complete]');
    assert.equal(await page.locator('#ranks-table').getAttribute('data-ranks'), String(RANKS));
    const box = page.locator('#ranks-scroll');
    const [scrollH, clientH] = await box.evaluate((b) => [b.scrollHeight, b.clientHeight]);
    assert.ok(scrollH > 2 * clientH, `the box scrolls (${scrollH} px of ${clientH})`);
    const first = await drawn(page);
    assert.ok(first.length > 10 && first.length < RANKS / 2, `${first.length} rows drawn of ${RANKS}`);
    assert.equal(first[0], 3, 'the straggler first');
    const href = await page.locator('#ranks-table tbody tr[data-rank="3"] td a').getAttribute('href');
    assert.match(href, /^#\/iterations\?.*device=3/);
    // scroll down a screen at a time: every rank is drawn once on the way, the last one at the end
    const seen = new Set(first);
    let order = [...first];
    for (let top = 0; top < scrollH; top += clientH / 2) {
      await box.evaluate((b, t) => { b.scrollTop = t; }, top);
      await page.waitForTimeout(50);
      const now = await drawn(page);
      for (const r of now) if (!seen.has(r)) { seen.add(r); order.push(r); }
    }
    await box.evaluate((b) => { b.scrollTop = b.scrollHeight; });
    await page.waitForFunction(() => {
      const b = document.querySelector('#ranks-scroll');
      return b.scrollTop + b.clientHeight >= b.scrollHeight - 2;
    });
    await page.waitForTimeout(100);
    const end = await drawn(page);
    for (const r of end) seen.add(r);
    assert.equal(seen.size, RANKS, 'every rank drawn on the way down');
    assert.ok(end.length < RANKS / 2, `${end.length} rows drawn at the end`);
    assert.equal(end[end.length - 1], order[order.length - 1], 'the last rank of the order at the end');
    assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
  } finally {
    await server.stop();
  }
});
