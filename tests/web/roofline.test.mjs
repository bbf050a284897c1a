// roofline.test.mjs - the Roofline page (view_dl_op_shapes) in Chromium: on
// the dldb dlprof writes from a real PyTorch profiler trace on an H100
// (Falconsai ViT), the chart has one point per op and input shapes with a
// model and GPU time, at the view's arithmetic intensity and TFLOP/s, under
// the H100's roof; the table beside it lists the view's rows; a click on a
// point (and on a table row) opens that op in Ops and Kernels. On NVIDIA's
// no_relu database (no such view) the menu has no Roofline entry. No console
// errors anywhere.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { H100_KINETO, NO_RELU, sql, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('roofline', (dir) => ({
    h100: dlprofDldb(H100_KINETO, dir, 'h100'),
    nvidia: NO_RELU,
  })));
});

after(async () => {
  if (stop) await stop();
});

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
