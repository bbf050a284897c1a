// iternames.test.mjs - the trace's names of the iterations
// (view_dl_iteration_names) next to their numbers, so that iterations can be
// matched with a training log: on the dldb dlprof writes from a real PyTorch
// profiler (Kineto) trace of ResNet-50 on a V100 (6 iterations, iteration 0
// is the span ProfilerStep#16) the Iterations table has a Step column, the
// aggregation line, badges, chart tooltips, the dashboard's Performance
// Summary and the iteration tables and titles of Kernels by Iteration and
// Kernels by Op name the steps. On a dldb from a real Nsight Systems export
// (the view without rows) and on NVIDIA's own no_relu file (no such view)
// the page shows the numbers alone, as before, without errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SHARED, RELU_EXPORT, NO_RELU, sql, sql1, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

const RN50_KINETO = path.join(SHARED, 'traces/kineto/resnet50_v100/worker0.1623143566756.pt.trace.json.gz');

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('iternames', (dir) => ({
    kineto: dlprofDldb(RN50_KINETO, dir, 'rn50'),
    relu: dlprofDldb(RELU_EXPORT, dir, 'relu'),
    nvidia: NO_RELU,
  })));
});

after(async () => {
  if (stop) await stop();
});

const aggr = (name) => sql1(dbs[name], 'SELECT max(aggr_id) FROM view_aggregations');

async function open(name, route) {
  const page = await watchedPage(browser.context);
  page.namesRequests = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/v1/dl_iteration_names')) page.namesRequests.push(r.url());
  });
  await page.goto(`${servers[name].url}/${route}`);
  await settled(page);
  return page;
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
}

/** A table's header labels (sort arrows dropped) and its rows' cell texts. */
function tableText(page, id) {
  return page.locator(`section[data-table="${id}"]`).evaluate((sec) => ({
    labels: [...sec.querySelectorAll('thead tr:last-child th')].map((th) => th.textContent.replace(/[▲▼]/g, '').trim()),
    rows: [...sec.querySelectorAll('tbody tr:not(.placeholder)')].map((tr) => [...tr.cells].map((td) => td.textContent.trim())),
  }));
}

/**
 * Hovers the mouse over bar `index` of the iteration chart in `panelSel` and
 * returns the tooltip's title lines (Chart.js draws them on the canvas).
 */
async function tooltipTitle(page, panelSel, index) {
  const canvas = page.locator(`${panelSel} canvas`);
  const at = await canvas.evaluate((c, i) => {
    const chart = window.Chart.getChart(c);
    const bar = chart.getDatasetMeta(0).data[i];
    return { x: bar.x, y: (chart.chartArea.top + chart.chartArea.bottom) / 2 };
  }, index);
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + at.x, box.y + at.y);
  await page.waitForFunction((c) => window.Chart.getChart(c).tooltip.opacity > 0, await canvas.elementHandle());
  return canvas.evaluate((c) => window.Chart.getChart(c).tooltip.title);
}

test('Kineto: the database names the iterations ProfilerStep#16 to #21', () => {
  const rows = sql(dbs.kineto, `SELECT iter_value, name FROM view_dl_iteration_names WHERE aggr_id = ${aggr('kineto')} ORDER BY iter_value`);
  assert.deepEqual(
    rows.map((r) => [r.iter_value, r.name]),
    [0, 1, 2, 3, 4, 5].map((i) => [i, `ProfilerStep#${16 + i}`]),
  );
});

test('Kineto: Iterations shows each iteration’s step in the table, the tooltips, the badges and the aggregation line', async () => {
  const page = await open('kineto', '#/iterations');
  const t = await tableText(page, 'iterations-all');
  assert.deepEqual(t.labels.slice(0, 3), ['Iteration', 'Step', 'Start']);
  assert.equal(t.rows.length, 6);
  for (const r of t.rows) assert.equal(r[1], `ProfilerStep#${16 + Number(r[0])}`, `iteration ${r[0]}`);
  assert.deepEqual(t.rows[0].slice(0, 2), ['0', 'ProfilerStep#16']);

  await page.waitForFunction(() => document.querySelector('.view-sub .aggr-line')?.dataset.steps);
  assert.match(await page.locator('.view-sub').innerText(), /^Iterations 0 to 5 \(ProfilerStep#16 to ProfilerStep#21, 6 aggregated\) · /);
  assert.equal(await page.locator('.badge[data-key="start"] .badge-label').innerText(), 'Start (ProfilerStep#16)');
  assert.equal(await page.locator('.badge[data-key="stop"] .badge-label').innerText(), 'Stop (ProfilerStep#21)');

  // the axis keeps the numbers; the tooltip names the step
  const labels = await page.locator('[data-panel="iterations-chart"] canvas').evaluate((c) => window.Chart.getChart(c).data.labels);
  assert.deepEqual(labels, ['0', '1', '2', '3', '4', '5']);
  assert.deepEqual(await tooltipTitle(page, '[data-panel="iterations-chart"]', 3), ['Iteration 3 · ProfilerStep#19']);
  assert.equal(page.namesRequests.length, 1, 'the names are fetched once');
  noProblems(page);
  await page.close();
});

test('Kineto: the dashboard’s Iteration Summary tooltips and Performance Summary name the steps', async () => {
  const page = await open('kineto', '');
  assert.deepEqual(await tooltipTitle(page, '[data-panel="iteration-summary"]', 0), ['Iteration 0 · ProfilerStep#16']);
  const perf = page.locator('[data-panel="performance-summary"]');
  assert.equal(await perf.locator('[data-key="iter_start"] dd').innerText(), '0 (ProfilerStep#16)');
  assert.equal(await perf.locator('[data-key="iter_stop"] dd').innerText(), '5 (ProfilerStep#21)');
  assert.match(await page.locator('.view-sub').innerText(), /\(ProfilerStep#16 to ProfilerStep#21, 6 aggregated\)/);
  noProblems(page);
  await page.close();
});

test('Kineto: Kernels by Iteration and Kernels by Op name the chosen iteration’s step', async () => {
  const page = await open('kineto', '#/kernels-by-iteration?iter=3');
  const t = await tableText(page, 'iterations');
  assert.deepEqual(t.labels.slice(0, 2), ['Iteration', 'Step']);
  for (const r of t.rows) assert.equal(r[1], `ProfilerStep#${16 + Number(r[0])}`);
  assert.equal(await page.locator('section[data-table="iteration-kernels"] .card-title').innerText(), 'Kernels in iteration 3 (ProfilerStep#19)');
  const eff = await tableText(page, 'iteration-efficiency');
  assert.deepEqual(eff.labels.slice(0, 2), ['Iteration', 'Step']);
  for (const r of eff.rows) assert.equal(r[1], `ProfilerStep#${16 + Number(r[0])}`);
  noProblems(page);
  await page.close();

  const p2 = await open('kineto', '#/kernels-by-op?iter=3');
  assert.deepEqual((await tableText(p2, 'iterations')).labels.slice(0, 2), ['Iteration', 'Step']);
  assert.equal(await p2.locator('section[data-table="iteration-ops"] .card-title').innerText(), 'Ops in iteration 3 (ProfilerStep#19)');
  // a click on another iteration names it too
  await p2.locator('section[data-table="iterations"] tbody tr[data-key="5"]').click();
  await settled(p2);
  assert.equal(await p2.locator('section[data-table="iteration-ops"] .card-title').innerText(), 'Ops in iteration 5 (ProfilerStep#21)');
  noProblems(p2);
  await p2.close();
});

for (const name of ['relu', 'nvidia']) {
  test(`${name === 'relu' ? 'Nsight Systems export (no names)' : 'NVIDIA’s file (no view_dl_iteration_names)'}: numbers only, no Step column, no errors`, async () => {
    const hasView = sql1(dbs[name], "SELECT count(*) FROM sqlite_master WHERE name = 'view_dl_iteration_names'");
    assert.equal(hasView, name === 'relu' ? 1 : 0);
    if (hasView) assert.equal(sql1(dbs[name], 'SELECT count(*) FROM view_dl_iteration_names'), 0);

    const page = await open(name, '#/iterations');
    const t = await tableText(page, 'iterations-all');
    assert.ok(t.rows.length > 0);
    assert.deepEqual(t.labels.slice(0, 2), ['Iteration', 'Start']);
    assert.ok(!t.labels.includes('Step'));
    assert.match(await page.locator('.view-sub').innerText(), /^Iterations \d+ to \d+ \(\d+ aggregated\) · /);
    assert.equal(await page.locator('.badge[data-key="start"] .badge-label').innerText(), 'Start');
    const first = t.rows[0][0];
    assert.deepEqual(await tooltipTitle(page, '[data-panel="iterations-chart"]', 0), [`Iteration ${first}`]);
    assert.doesNotMatch(await page.locator('#main').innerText(), /ProfilerStep|undefined|null/);
    assert.equal(page.namesRequests.length, hasView ? 1 : 0, 'a file without the view is not asked for names');
    noProblems(page);
    await page.close();

    for (const route of ['', '#/kernels-by-iteration?iter=0', '#/kernels-by-op?iter=0']) {
      const p = await open(name, route);
      if (route) assert.deepEqual((await tableText(p, 'iterations')).labels[1], 'Start', route);
      if (route.includes('kernels-by-op')) assert.equal(await p.locator('section[data-table="iteration-ops"] .card-title').innerText(), 'Ops in iteration 0');
      assert.doesNotMatch(await p.locator('#main').innerText(), /ProfilerStep|Step\b/);
      noProblems(p);
      await p.close();
    }
  });
}
