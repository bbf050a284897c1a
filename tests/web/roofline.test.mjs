// roofline.test.mjs - the Roofline page (view_dl_op_shapes) in Chromium: on
// the dldb dlprof writes from a real PyTorch profiler trace on an H100
// (Falconsai ViT), the chart has one point per op and input shapes with a
// model and GPU time, at the view's arithmetic intensity and TFLOP/s, under
// the H100's roof; the table beside it lists the view's rows; a click on a
// point (and on a table row) opens that op in Ops and Kernels. On a
// generated job of two ranks on two GPUs (an H100 and an A100), one
// roofline per GPU: a selector lists both, the GPU of the most GPU time
// first, and each shows its own rows under its own roof. A perf finding
// (a small GEMM of the H100 trace) links from the dashboard to the page.
// On NVIDIA's
// no_relu database (no such view) the menu has no Roofline entry. No console
// errors anywhere.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { H100_KINETO, NO_RELU, sql, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('roofline', (dir) => ({
    h100: dlprofDldb(H100_KINETO, dir, 'h100'),
    two: dlprofDldb(twoGpuJob(dir), dir, 'two'),
    nvidia: NO_RELU,
  })));
});

after(async () => {
  if (stop) await stop();
});

/**
 * A job of two ranks (a folder of two PyTorch profiler traces): rank 0 on
 * an H100 runs three bfloat16 mm shapes of 10 us, rank 1 on an A100 two of
 * 50 us. Returns the folder.
 */
function twoGpuJob(dir) {
  const ranks = path.join(dir, 'two_ranks');
  fs.mkdirSync(ranks);
  const job = [
    { gpu: 'NVIDIA H100 80GB HBM3', major: 9, n: [256, 512, 1024], us: 10 },
    { gpu: 'NVIDIA A100-SXM4-40GB', major: 8, n: [384, 768], us: 50 },
  ];
  job.forEach((j, rank) => {
    const ev = [{ ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 1, tid: 1, ts: 0, dur: 1000 }];
    j.n.forEach((n, i) => {
      const ts = 10 + 20 * i;
      const args = { 'Input Dims': [[n, n], [n, n]], 'Input type': ['c10::BFloat16', 'c10::BFloat16'] };
      ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 1, ts, dur: 10, args });
      ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: ts + 1, dur: 2, args: { correlation: i + 1 } });
      ev.push({ ph: 'X', cat: 'kernel', name: `gemm_${n}`, pid: 0, tid: 7, ts: 200 + 100 * i, dur: j.us, args: { correlation: i + 1, device: 0, stream: 7 } });
    });
    const trace = {
      schemaVersion: 1,
      distributedInfo: { backend: 'nccl', rank, world_size: 2 },
      deviceProperties: [{ id: 0, name: j.gpu, computeMajor: j.major, computeMinor: 0, numSms: 100 }],
      traceEvents: ev,
    };
    fs.writeFileSync(path.join(ranks, `rank${rank}.pt.trace.json`), JSON.stringify(trace));
  });
  return ranks;
}

async function open(name, route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[name].url}/${route}`);
  await settled(page);
  return page;
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
}

/** The view's rows that have a point: a model, GPU time and FLOPs. */
function pointRows() {
  return sql(
    dbs.h100,
    `SELECT op_node_id, op_node_name, input_dims, arithmetic_intensity, tflops_per_s FROM view_dl_op_shapes
     WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations) AND tflops_per_s > 0 AND arithmetic_intensity > 0`,
  );
}

test('the chart has a point per modelled op and shapes, at the view figures, under the H100 roof', async () => {
  const want = pointRows();
  assert.ok(want.length >= 8, `rows with points: ${want.length}`);
  const page = await open('h100', '#/roofline');
  const chart = await page.locator('[data-panel="roofline-chart"] canvas').evaluate((c) => {
    const ch = window.Chart.getChart(c);
    return {
      points: ch.data.datasets[0].data.map((p) => ({ x: p.x, y: p.y, id: p.row.op_node_id, dims: p.row.input_dims })),
      roof: ch.data.datasets[1] ? ch.data.datasets[1].label : null,
      roofMax: ch.data.datasets[1] ? Math.max(...ch.data.datasets[1].data.map((p) => p.y)) : 0,
    };
  });
  assert.equal(chart.points.length, want.length);
  for (const w of want) {
    const p = chart.points.find((q) => q.id === w.op_node_id && q.dims === w.input_dims);
    assert.ok(p, `no point for ${w.op_node_name} ${w.input_dims}`);
    assert.ok(Math.abs(p.x - w.arithmetic_intensity) < 1e-9 * w.arithmetic_intensity);
    assert.ok(Math.abs(p.y - w.tflops_per_s) < 1e-9 * w.tflops_per_s);
  }
  assert.match(chart.roof, /H100/);
  assert.ok(Math.abs(chart.roofMax - 989.4) < 1e-6, `roof peak ${chart.roofMax}`);
  const rows = await page.locator('section[data-table="op-shapes"] tbody tr:not(.placeholder)').count();
  assert.ok(rows > 0);
  noProblems(page);
});

/** The roofline chart's points (op id and dims), roof label and roof peak. */
function chartState(page) {
  return page.locator('[data-panel="roofline-chart"] canvas').evaluate((c) => {
    const ch = window.Chart.getChart(c);
    return {
      points: ch.data.datasets[0].data.map((p) => `${p.row.device_id} ${p.row.input_dims}`).sort(),
      roof: ch.data.datasets[1] ? ch.data.datasets[1].label : null,
      roofMax: ch.data.datasets[1] ? Math.max(...ch.data.datasets[1].data.map((p) => p.y)) : 0,
    };
  });
}

test('two GPUs: one roofline each, the GPU of the most GPU time first, under its own roof', async () => {
  const rows = sql(
    dbs.two,
    `SELECT device_id, gpu_name, input_dims, gpu_time FROM view_dl_op_shapes
     WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations) AND tflops_per_s > 0 AND arithmetic_intensity > 0`,
  );
  const byGpu = (id) => rows.filter((r) => r.device_id === id).map((r) => `${r.device_id} ${r.input_dims}`).sort();
  // rank 1's device is 100 (rank * 100 + device); its two rows hold 100 us, rank 0's three 30 us
  assert.deepEqual(byGpu(100), ['100 [[384, 384], [384, 384]]', '100 [[768, 768], [768, 768]]']);
  assert.equal(byGpu(0).length, 3);
  const page = await open('two', '#/roofline');
  const options = await page.locator('#roofline-gpu option').allTextContents();
  assert.deepEqual(options, ['GPU 100: A100 SXM4 40GB (2 points)', 'GPU 0: H100 SXM5 (3 points)']);
  let chart = await chartState(page);
  assert.deepEqual(chart.points, byGpu(100));
  assert.match(chart.roof, /A100 SXM4 40GB/);
  assert.ok(Math.abs(chart.roofMax - 312) < 1e-6, `A100 roof peak ${chart.roofMax}`);
  await page.locator('#roofline-gpu').selectOption({ index: 1 });
  chart = await chartState(page);
  assert.deepEqual(chart.points, byGpu(0));
  assert.match(chart.roof, /H100 SXM5/);
  assert.ok(Math.abs(chart.roofMax - 989.4) < 1e-6, `H100 roof peak ${chart.roofMax}`);
  noProblems(page);
});

test('one GPU: no GPU selector', async () => {
  const page = await open('h100', '#/roofline');
  assert.equal(await page.locator('#roofline-gpu').count(), 0);
  noProblems(page);
});

test('a click on a point opens its op in Ops and Kernels', async () => {
  const page = await open('h100', '#/roofline');
  const canvas = page.locator('[data-panel="roofline-chart"] canvas');
  const at = await canvas.evaluate((c) => {
    const ch = window.Chart.getChart(c);
    // the point of the largest TFLOP/s: clear of the others
    const data = ch.data.datasets[0].data;
    let best = 0;
    data.forEach((p, i) => {
      if (p.y > data[best].y) best = i;
    });
    const el = ch.getDatasetMeta(0).data[best];
    return { x: el.x, y: el.y, id: data[best].row.op_node_id, name: data[best].row.op_node_name };
  });
  const box = await canvas.boundingBox();
  await page.mouse.click(box.x + at.x, box.y + at.y);
  await page.waitForURL((u) => u.hash.startsWith('#/ops') && u.hash.includes(`op=${encodeURIComponent(at.id)}`));
  await settled(page);
  const selected = page.locator('section[data-table="ops"] tbody tr.selected');
  assert.equal(await selected.count(), 1, 'one op row is selected');
  assert.ok((await selected.textContent()).includes(at.name), `the selected row is ${at.name}`);
  noProblems(page);
});

test('a perf finding on the dashboard links to the Roofline page', async () => {
  const fns = sql(dbs.h100, `SELECT javascript_function FROM view_expert_systems WHERE instr(problem, 'too small to fill the GPU')`);
  assert.deepEqual(fns, [{ javascript_function: 'ShowOpShapes' }]);
  const page = await open('h100', '');
  const link = page.locator('a.btn-action', { hasText: 'Show roofline' });
  assert.equal(await link.count(), 1);
  await link.click();
  await page.waitForURL((u) => u.hash.startsWith('#/roofline'));
  await settled(page);
  assert.equal(await page.locator('[data-panel="roofline-chart"] canvas').count(), 1);
  noProblems(page);
});

test('a click on a table row opens its op too', async () => {
  const page = await open('h100', '#/roofline');
  const first = page.locator('section[data-table="op-shapes"] tbody tr:not(.placeholder)').first();
  await first.click();
  await page.waitForURL((u) => u.hash.startsWith('#/ops') && u.hash.includes('op='));
  noProblems(page);
});

test('no_relu (NVIDIA DLProf 1.8, no view_dl_op_shapes): no Roofline in the menu', async () => {
  const page = await open('nvidia', '');
  const entries = await page.locator('.nav-item').allTextContents();
  assert.ok(!entries.some((t) => /Roofline/.test(t)), `menu: ${entries.join(', ')}`);
  noProblems(page);
});
