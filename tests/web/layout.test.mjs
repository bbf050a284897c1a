// layout.test.mjs - the tables fit the window on dldbs dlprof writes from two
// real Nsight Systems exports (DLProf's w_Relu PyTorch run; CloverLeaf on 4x
// A100 with 3,048 unassociated ops) and a Kineto trace of an H100 run: at
// 1440x900 the Ops and Kernels, Op Type Summary and Kernels by Iteration
// tables (the H100's per-kernel SM efficiency table included) show every
// column without a horizontal scroll (long names and identifiers wrap), and
// at 800 px the dashboard's GPU column keeps each GPU on one line.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RELU_EXPORT, CLOVER_EXPORT, H100_KINETO, sql, sql1, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('layout', (dir) => ({
    relu: dlprofDldb(RELU_EXPORT, dir, 'relu'),
    clover: dlprofDldb(CLOVER_EXPORT, dir, 'clover'),
    h100: dlprofDldb(H100_KINETO, dir, 'h100'),
  })));
});

after(async () => {
  if (stop) await stop();
});

async function open(name, route, width = 1440) {
  const page = await watchedPage(browser.context);
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${servers[name].url}/${route}`);
  await settled(page);
  return page;
}

/** A table card's scroll box, its header labels and where its last header cell ends. */
function measure(page, id) {
  return page.locator(`section[data-table="${id}"]`).evaluate((sec) => {
    const box = sec.querySelector('.table-scroll');
    const ths = [...sec.querySelectorAll('thead tr:last-child th')];
    const last = ths[ths.length - 1].getBoundingClientRect();
    // cells whose content runs past their edge (cut off rather than wrapped)
    const cut = [...sec.querySelectorAll('tbody td')].filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => td.textContent.slice(0, 40));
    return {
      scrollWidth: box.scrollWidth,
      clientWidth: box.clientWidth,
      labels: ths.map((th) => th.textContent.replace(/[▲▼]/g, '').trim()),
      lastRight: last.right,
      viewport: window.innerWidth,
      rows: sec.querySelectorAll('tbody tr:not(.placeholder)').length,
      cut,
    };
  });
}

function assertFits(m, where) {
  assert.ok(m.rows > 0, `${where}: no rows`);
  assert.ok(m.scrollWidth <= m.clientWidth + 1, `${where}: ${m.scrollWidth} px of table in a ${m.clientWidth} px box (horizontal scroll); columns ${m.labels.join(', ')}`);
  assert.ok(m.lastRight <= m.viewport, `${where}: the last column (${m.labels.at(-1)}) ends at ${m.lastRight} px, past the ${m.viewport} px window`);
  assert.deepEqual(m.cut, [], `${where}: cells cut off`);
}

for (const name of ['relu', 'clover']) {
  test(`${name}: at 1440 px Ops and Kernels shows every column, Data Type and Stack Trace included`, async () => {
    const db = dbs[name];
    const a = sql(db, 'SELECT max(aggr_id) AS a FROM view_aggregations')[0].a;
    // the op with the most kernels, so that the kernel table is full too
    const op = sql(db, `SELECT op_node_id FROM view_op_nodes WHERE aggr_id = ${a} ORDER BY kernel_calls DESC, op_node_id LIMIT 1`)[0].op_node_id;
    const page = await open(name, `#/ops?limit=100&op=${encodeURIComponent(op)}`);
    const ops = await measure(page, 'ops');
    assert.deepEqual(ops.labels.slice(-2), ['Data Type', 'Stack Trace']);
    assertFits(ops, `${name} ops`);
    const kernels = await measure(page, 'kernels');
    assert.equal(kernels.labels.at(-1), 'Max');
    assertFits(kernels, `${name} kernels of ${op}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test(`${name}: at 1440 px Op Type Summary shows every column, GPU Idle included`, async () => {
    const page = await open(name, '#/op-types');
    const m = await measure(page, 'op-types');
    assert.equal(m.labels.length, 19);
    assertFits(m, `${name} op types`);
    const gpuIdle = await page.locator('section[data-table="op-types"] thead tr.group-row th', { hasText: 'GPU Idle' }).evaluate((th) => th.getBoundingClientRect().right);
    assert.ok(gpuIdle <= 1440, `the GPU Idle group ends at ${gpuIdle} px`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

test('h100: at 1440 px every table of Kernels by Iteration shows every column, the kernels’ SM efficiency and occupancy included', async () => {
  const db = dbs.h100;
  const a = sql1(db, 'SELECT max(aggr_id) FROM view_aggregations');
  const iter = sql1(db, `SELECT min(iter_value) FROM view_iterations_profiled WHERE aggr_id = ${a}`);
  const page = await open('h100', `#/kernels-by-iteration?iter=${iter}&k.limit=100&ke.limit=100`);
  for (const id of ['iterations', 'iteration-kernels', 'iteration-efficiency', 'kernel-efficiency']) assertFits(await measure(page, id), `h100 ${id}`);
  const ke = await measure(page, 'kernel-efficiency');
  assert.equal(ke.rows, sql1(db, `SELECT count(*) FROM view_dl_kernel_efficiency WHERE aggr_id = ${a}`));
  assert.deepEqual(ke.labels.slice(-3), ['Mean Blocks per SM', 'Est. SM Efficiency', 'Mean Est. Achieved Occupancy']);
  // every header and value is whole inside the window: not "Est. Efficie", "7" for "78.8 %"
  const clipped = await page.locator('section[data-table="kernel-efficiency"]').evaluate((sec) => {
    const box = sec.querySelector('.table-scroll').getBoundingClientRect();
    const right = Math.min(box.right, window.innerWidth);
    return [...sec.querySelectorAll('thead th, tbody td')].filter((c) => c.getBoundingClientRect().right > right + 1).map((c) => c.textContent.slice(0, 30));
  });
  assert.deepEqual(clipped, [], 'cells past the table box or the window');
  const eff = await page.locator('section[data-table="kernel-efficiency"] tbody tr:first-child td').evaluateAll((tds) => tds.slice(-2).map((td) => td.innerText));
  for (const v of eff) assert.match(v, /^\d+\.\d %$/);
  // a long kernel name wraps, and a cut one has the whole name as its tooltip
  const longest = sql1(db, `SELECT kernel_name FROM view_dl_kernel_efficiency WHERE aggr_id = ${a} ORDER BY length(kernel_name) DESC LIMIT 1`);
  assert.ok(longest.length > 100, `the longest kernel name has ${longest.length} characters`);
  const titles = await page.locator('section[data-table="kernel-efficiency"] tbody td .long[title]').evaluateAll((els) => els.map((e) => e.title));
  assert.ok(titles.includes(longest), 'the longest kernel name is a cell’s tooltip');
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Lines of text a cell takes (distinct tops of its text boxes). */
const lines = (loc) =>
  loc.evaluateAll((tds) =>
    tds.map((td) => {
      const r = document.createRange();
      r.selectNodeContents(td);
      return [td.textContent, new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top))).size];
    }),
  );

test('clover: at 800 px the GPU columns keep each GPU on one line', async () => {
  const page = await open('clover', '', 800);
  // the panel's rows come with its own answer, which may land after the page settles
  const cells = page.locator('[data-panel="communication"] tbody td:first-child');
  await cells.nth(3).waitFor({ timeout: 15000 });
  const gpu = await lines(cells);
  assert.equal(gpu.length, 4);
  for (const [t, n] of gpu) assert.equal(n, 1, `dashboard GPU cell "${t}" takes ${n} lines at 800 px`);
  assert.match(gpu[0][0], /^0 – NVIDIA A100-SXM4-80GB$/);
  await page.close();

  const p2 = await open('clover', '#/gpus', 800);
  const cols = await p2.locator('section[data-table="gpus"] thead th').evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▲▼]/g, '').trim()));
  for (const label of ['GPU Name', 'GPU Utilization']) {
    const i = cols.indexOf(label) + 1;
    assert.ok(i > 0, label);
    for (const [t, n] of await lines(p2.locator(`section[data-table="gpus"] tbody td:nth-child(${i})`))) assert.equal(n, 1, `GPUs view ${label} "${t}" takes ${n} lines`);
  }
  assert.deepEqual(p2.problems, []);
  await p2.close();
});
