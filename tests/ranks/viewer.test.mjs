// viewer.test.mjs - the Ranks page in real Chromium: a synthetic 8-rank job
// (ranks_gen, a straggler at rank 3 and a late rank 5) through dlprof and
// dlprofviewer. The page lists the ranks with the straggler first, the
// median and spread, a heatmap canvas of ranks by iterations, and the
// collectives with the rank that starts last; the dashboard's findings
// name the straggler; the GPUs page names GPUs by rank.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, watchedPage, settled } from '../web/helpers.mjs';

const DLPROF = process.env.DLPROF;
const GEN = process.env.RANKS_GEN;
let work;
let browser;
let db;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-ranks-'));
  const job = path.join(work, 'job');
  fs.mkdirSync(job);
  let r = spawnSync(GEN, [job, '8', '6'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = path.join(work, 'out');
  fs.mkdirSync(out);
  r = spawnSync(DLPROF, [`--database=${job}`, `--output_path=${out}`, '-v', 'quiet'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  db = path.join(out, 'dlprof_dldb.sqlite');
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
