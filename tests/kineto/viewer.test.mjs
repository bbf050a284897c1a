// viewer.test.mjs - dlprofviewer on dldbs that dlprof made from PyTorch
// profiler (Kineto) traces: the dashboard shows the GPU timeline and
// communication panel (view_dl_communication) and the "no GPU activity"
// finding, Kernels by Iteration shows est. SM efficiency per iteration
// and per kernel, and the API statistics are named for the GPUs' vendor
// (HIP on AMD's, CUDA on NVIDIA's). Real Chromium, real traces from
// ../shared (run.mjs skips when they are absent).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHARED, sql, sql1, startServer, launchBrowser, watchedPage, settled } from '../web/helpers.mjs';

const KDIR = path.join(SHARED, 'traces/kineto');
const DLPROF = process.env.DLPROF;
let work;
let browser;

function dldb(trace, name) {
  const out = path.join(work, name);
  fs.mkdirSync(out);
  const r = spawnSync(DLPROF, [`--database=${trace}`, `--output_path=${out}`, '-v', 'quiet'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return path.join(out, 'dlprof_dldb.sqlite');
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-kineto-'));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('NCCL trace: the dashboard shows communication; kernel views show SM efficiency', async () => {
  const db = dldb(path.join(KDIR, 'hta/nccl_parser_config_nccl_data.json.gz'), 'nccl');
  const server = await startServer(db);
  try {
    const page = await watchedPage(browser.context);
    await page.goto(`${server.url}/`);
    await settled(page);
    const rows = page.locator('[data-panel="communication"] tbody tr');
    assert.equal(await rows.count(), 1);
    const text = await rows.first().innerText();
    const pct = sql1(db, 'SELECT exposed_communication_pct FROM view_dl_communication');
    assert.match(text, new RegExp(`${Number(pct).toFixed(1)} %`));
    assert.match(text, /A100/);
    await page.goto(`${server.url}/#/kernels-by-iteration`);
    await settled(page);
    const iters = page.locator('[data-table="iteration-efficiency"] tbody tr');
    const kern = page.locator('[data-table="kernel-efficiency"] tbody tr');
    assert.equal(await iters.count(), 3);
    assert.ok((await kern.count()) > 10);
    assert.match(await page.locator('body').innerText(), /ncclKernel_AllReduce/);
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('view_op_cpu_times is served as /api/v1/op_cpu_times, per aggregation', async () => {
  const db = dldb(path.join(KDIR, 'hta/trace_diff_control_control.json.gz'), 'optimes');
  const server = await startServer(db);
  try {
    const id = sql1(db, 'SELECT max(aggr_id) FROM view_aggregations');
    const want = sql(db, `SELECT * FROM view_op_cpu_times WHERE aggregation_id = ${id} ORDER BY self_cpu_time DESC, op_id`);
    assert.ok(want.length > 10);
    const res = await fetch(`${server.url}/api/v1/op_cpu_times?aggr_id=${id}&limit=1000`);
    assert.equal(res.status, 200);
    const json = await res.json();
    assert.equal(json.total, want.length);
    assert.deepEqual(Object.keys(json.rows[0]), ['aggregation_id', 'op_id', 'op_name', 'op_type', 'direction', 'calls', 'total_cpu_time', 'self_cpu_time']);
    assert.deepEqual(json.rows.map((r) => r.op_id), want.map((r) => r.op_id));
    assert.deepEqual(json.rows.map((r) => r.self_cpu_time), want.map((r) => r.self_cpu_time));
    // another aggregation id selects no row of this one
    const none = await fetch(`${server.url}/api/v1/op_cpu_times?aggr_id=${id + 1}`);
    assert.notEqual(none.status, 200);
  } finally {
    await server.stop();
  }
});

test('CPU-only trace: the dashboard says there is no GPU activity', async () => {
  const db = dldb(path.join(KDIR, 'hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz'), 'cpu');
  const server = await startServer(db);
  try {
    const page = await watchedPage(browser.context);
    await page.goto(`${server.url}/`);
    await settled(page);
    assert.match(await page.locator('[data-panel="expert-systems"]').innerText(), /No GPU activity/);
    // the dashboard leads with CPU time: no GPU panels, the top ops by self CPU time
    assert.equal(await page.locator('[data-panel="communication"]').count(), 0);
    assert.equal(await page.locator('[data-panel="top10"]').count(), 0);
    const top = sql(db, 'SELECT op_name FROM view_op_cpu_times ORDER BY self_cpu_time DESC, op_id LIMIT 1');
    assert.equal(top.length, 1);
    assert.ok((await page.locator('[data-panel="top-cpu-ops"] tbody tr').count()) >= 1);
    assert.match(await page.locator('[data-panel="top-cpu-ops"]').innerText(), new RegExp(top[0].op_name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('ResNet-50 (2021 format): six iterations in the dashboard', async () => {
  const db = dldb(path.join(KDIR, 'resnet50_v100/worker0.1623143089861.pt.trace.json.gz'), 'resnet');
  const server = await startServer(db);
  try {
    const page = await watchedPage(browser.context);
    await page.goto(`${server.url}/#/iterations`);
    await settled(page);
    assert.equal(sql1(db, 'SELECT count(*) FROM view_iterations_all'), 6);
    assert.match(await page.locator('body').innerText(), /ProfilerStep#/);
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    await server.stop();
  }
});

test('AMD trace: the Statistics view and the Reports menu say HIP API, an NVIDIA one CUDA API', async () => {
  const amd = dldb(path.join(KDIR, 'hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz'), 'amd');
  const nv = dldb(path.join(KDIR, 'resnet50_v100/worker0.1623143089861.pt.trace.json.gz'), 'nv');
  for (const [db, api, other] of [
    [amd, 'HIP', 'CUDA'],
    [nv, 'CUDA', 'HIP'],
  ]) {
    const server = await startServer(db);
    try {
      const page = await watchedPage(browser.context);
      await page.goto(`${server.url}/#/statistics`);
      await settled(page);
      assert.equal((await page.locator('[data-tab="api"]').innerText()).trim(), `${api} API`);
      const body = await page.locator('main').innerText();
      assert.match(body, new RegExp(`Top 10: ${api} API`));
      assert.match(body, new RegExp(`${api} runtime`));
      assert.doesNotMatch(body, new RegExp(`${other} API|${other} runtime`));
      const reports = await page.locator('#reports-list').evaluate((el) => el.textContent);
      assert.match(reports, new RegExp(`${api} API Summary`));
      assert.doesNotMatch(reports, new RegExp(`${other} API Summary`));
      assert.deepEqual(page.problems, []);
      await page.close();
    } finally {
      await server.stop();
    }
  }
});
