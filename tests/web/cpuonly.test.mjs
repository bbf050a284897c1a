// cpuonly.test.mjs - profiles without GPU activity in Chromium: the
// dashboard leads with CPU time (Top 10 CPU Ops by self CPU time, the
// iterations), leaves out the GPU-only panels and the Tensor Core guidance
// and says why in one line; System Config says there was no GPU activity;
// the Statistics page opens on a tab that has rows. Inputs: HTA's CPU-only
// PyTorch profiler trace imported with dlprof --database, and the dldb of
// `dlprof nvtx_test_app` (CPU-side NVTX ranges; NVTX_TEST_APP). A GPU
// profile (NVIDIA's no_relu) keeps the GPU layout.
//
// Self CPU time comes from view_op_cpu_times, which dlprof's analysis
// writes. Where the dldb lacks it (a dlprof from before that view), the
// test adds it to a copy with SQL from aggr_ops (self time = three quarters
// of the total, so that the two columns differ); the real view is used
// wherever the dldb has it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SHARED, NO_RELU, sql, sqlWrite, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

const HTA_CPU = path.join(SHARED, 'traces/kineto/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz');
const APP = process.env.NVTX_TEST_APP || '';
const GPU_PANELS = ['gpu-utilization', 'kernel-time', 'tc-efficiency', 'top10', 'guidance', 'communication'];

const FIXTURE_VIEW = `CREATE VIEW IF NOT EXISTS view_op_cpu_times AS
SELECT aggr_id AS aggregation_id, op_idx AS op_id, op_node_name AS op_name, op_node_type AS op_type,
       direction, num_calls AS calls, cpu_time AS total_cpu_time, cpu_time - cpu_time / 4 AS self_cpu_time
FROM aggr_ops;`;

let v;

/* dlprof APP on nvtx_test_app in dir: the dldb of a CPU-only recording. */
function recordApp(dir) {
  const r = spawnSync(process.env.DLPROF, ['--profile_name=app', '-v', 'quiet', APP, 'threads'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dlprof ${APP} failed (${r.status}): ${r.stderr}`);
  return path.join(dir, 'app_dldb.sqlite');
}

before(async () => {
  v = await viewersOn('cpuonly', (dir) => {
    const hta = dlprofDldb(HTA_CPU, dir, 'hta');
    const bare = path.join(dir, 'bare_dldb.sqlite'); // the same without per-op CPU times
    fs.copyFileSync(hta, bare);
    sqlWrite(bare, 'DROP VIEW IF EXISTS view_op_cpu_times;');
    sqlWrite(hta, FIXTURE_VIEW);
    const dbs = { hta, bare, gpu: NO_RELU };
    if (APP) {
      dbs.app = recordApp(dir);
      sqlWrite(dbs.app, FIXTURE_VIEW);
    }
    return dbs;
  });
});

after(async () => {
  if (v) await v.stop();
});

async function open(server, hash = '') {
  const page = await watchedPage(v.browser.context);
  await page.goto(`${server.url}/${hash}`);
  if (!hash) await page.waitForFunction(() => document.documentElement.dataset.rendered === 'dashboard', null, { timeout: 15000 });
  await settled(page);
  return page;
}

const layout = (page) =>
  page.$$eval('.view .grid', (rows) => rows.map((r) => [...r.querySelectorAll(':scope > [data-panel]')].map((c) => c.dataset.panel)));

async function expectCpuDashboard(page, db) {
  assert.deepEqual(await layout(page), [
    ['top-cpu-ops', 'resource-usage'],
    ['performance-summary', 'iteration-summary'],
    ['system-config', 'expert-systems'],
  ]);
  for (const p of GPU_PANELS) assert.equal(await page.locator(`[data-panel="${p}"]`).count(), 0, p);
  const notes = page.locator('.note-cpu-only');
  assert.equal(await notes.count(), 1);
  assert.match(await notes.innerText(), /^No GPU activity in this profile: /);
  const text = await page.locator('.view .grid').allInnerTexts();
  assert.doesNotMatch(text.join('\n'), /Top 10 GPU Ops|no op ran on the GPU|Tensor Core|GPU Utilization|key op\s+not found/i);
  // Top 10 CPU Ops: the view's rows by self CPU time, in that order
  const want = sql(db, 'SELECT op_id, self_cpu_time FROM view_op_cpu_times WHERE aggregation_id = (SELECT max(aggr_id) FROM view_aggregations) ORDER BY self_cpu_time DESC, op_id LIMIT 10');
  assert.ok(want.length > 0);
  const rows = await page.$$eval('[data-panel="top-cpu-ops"] tbody tr', (trs) =>
    trs.map((tr) => ({ key: tr.dataset.key, self: Number(tr.cells[0].querySelector('[data-ns]').dataset.ns), total: Number(tr.cells[1].querySelector('[data-ns]').dataset.ns) })),
  );
  assert.deepEqual(
    rows.map((r) => [Number(r.key), r.self]),
    want.map((w) => [w.op_id, w.self_cpu_time]),
  );
  assert.ok(rows.every((r) => r.self <= r.total));
  // the iterations are drawn
  assert.ok(Number(await page.locator('[data-panel="iteration-summary"]').getAttribute('data-iterations')) >= 1);
  // System Config: what the profile holds, no CUDA version it did not record
  const sys = await page.locator('[data-panel="system-config"]').innerText();
  assert.equal(await page.locator('[data-panel="system-config"] [data-key="gpu_activity"] dd').innerText(), 'none in this profile');
  if (!sql(db, "SELECT cuda_version FROM view_system_config WHERE cuda_version <> ''").length) assert.doesNotMatch(sys, /CUDA/);
  assert.deepEqual(page.problems, []);
}

test('HTA CPU-only trace: CPU panels first, no GPU panels, one line why', async () => {
  const page = await open(v.servers.hta);
  await expectCpuDashboard(page, v.dbs.hta);
  await page.screenshot({ path: path.join(process.env.DL_WEB_ARTIFACTS || '.', 'cpuonly-dashboard.png'), fullPage: true }).catch(() => {});
  await page.close();
});

test('dlprof APP recording of CPU-side NVTX ranges: the same CPU dashboard', { skip: !APP && 'NVTX_TEST_APP not set' }, async () => {
  const page = await open(v.servers.app);
  await expectCpuDashboard(page, v.dbs.app);
  await page.close();
});

test('without view_op_cpu_times the CPU panel says the profile has no per-op CPU times', async () => {
  const page = await open(v.servers.bare);
  const n = page.locator('[data-panel="top-cpu-ops"] .note-missing');
  assert.equal(await n.getAttribute('data-missing'), 'view_op_cpu_times');
  assert.match(await n.innerText(), /has no per-op CPU times \(view_op_cpu_times missing\), which the Top 10 CPU Ops panel needs/);
  for (const p of GPU_PANELS) assert.equal(await page.locator(`[data-panel="${p}"]`).count(), 0, p);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a GPU profile keeps the GPU dashboard', async () => {
  const page = await open(v.servers.gpu);
  assert.equal(await page.locator('.view[data-view="dashboard"]').getAttribute('data-layout'), 'gpu');
  assert.equal(await page.locator('.note-cpu-only').count(), 0);
  assert.equal(await page.locator('[data-panel="top-cpu-ops"]').count(), 0);
  for (const p of ['gpu-utilization', 'kernel-time', 'tc-efficiency', 'top10', 'guidance']) assert.equal(await page.locator(`[data-panel="${p}"]`).count(), 1, p);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('Statistics opens on a tab with rows: NVTX ranges, not the empty CUDA API table', async () => {
  const db = v.dbs.hta;
  assert.equal(sql(db, 'SELECT count(*) n FROM view_dl_stats_cuda_api')[0].n, 0);
  const page = await open(v.servers.hta, '#statistics');
  await page.waitForSelector('.tabs .tab.active');
  await settled(page);
  assert.equal(await page.locator('.tabs .tab.active').getAttribute('data-tab'), 'nvtx');
  assert.ok((await page.locator('[data-table="stats-nvtx"] tbody tr').count()) > 0);
  // a tab asked for by the URL is kept, rows or not
  await page.goto(`${v.servers.hta.url}/#statistics?tab=api`);
  await page.waitForSelector('.tabs .tab.active[data-tab="api"]');
  assert.deepEqual(page.problems, []);
  await page.close();
});
