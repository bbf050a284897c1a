// labels.test.mjs - counts and times say what they count, on the dldb dlprof
// writes from a real Kineto trace (HTA's DDP run: 6 iterations, 8,568
// kernel launches of 170 kernel names on overlapping streams): the
// dashboard's kernel panel sums kernel, memcpy and memset durations and says
// so, gives the launches and calls 172 names "distinct", not "172 kernels";
// Kernels by Iteration's per-iteration time is the time a kernel runs
// (overlaps once), labelled as busy time, not as a sum of kernel times, and
// the two views' tooltips point at each other.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DDP_KINETO, sql, sql1, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

let db, server, browser, stop;

before(async () => {
  let dbs, servers;
  ({ dbs, servers, browser, stop } = await viewersOn('labels', (dir) => ({ ddp: dlprofDldb(DDP_KINETO, dir, 'ddp') })));
  db = dbs.ddp;
  server = servers.ddp;
});

after(async () => {
  if (stop) await stop();
});

const A = () => sql1(db, 'SELECT max(aggr_id) FROM view_aggregations');
const q = (s) => sql1(db, s.replaceAll('$A', String(A())));
const fmt = (n) => new Intl.NumberFormat('en-US').format(n);

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/${route}`);
  await settled(page);
  return page;
}

test('dashboard: the kernel panel sums kernels and memory ops, counts launches, and calls the names distinct', async () => {
  const ks = sql(db, `SELECT * FROM view_kernel_summary WHERE aggr_id = ${A()}`)[0];
  const kernelTime = q('SELECT sum(gpu_time) FROM view_kernel_summaries WHERE aggr_id = $A');
  const launches = q('SELECT sum(calls) FROM view_kernel_summaries WHERE aggr_id = $A');
  const tcLaunches = q('SELECT sum(calls) FROM view_kernel_summaries WHERE aggr_id = $A AND uses_tc');
  const names = q('SELECT count(DISTINCT kernel_name) FROM view_kernel_summaries WHERE aggr_id = $A');
  // what the database says: the total is kernels + memcpy/memset, the count is of names
  assert.equal(ks.total_gpu_time, kernelTime + ks.memory_gpu_time);
  assert.deepEqual([ks.total_count, names, ks.memory_count, launches, tcLaunches], [172, 170, 2, 8568, 1638]);
  assert.equal(q('SELECT sum(total_kernel_count) FROM view_iterations_profiled WHERE aggr_id = $A'), launches);

  const page = await open('');
  const panel = page.locator('[data-panel="kernel-time"]');
  const title = panel.locator('.card-title');
  assert.equal(await title.innerText(), 'Kernel + Memory GPU Time');
  const tip = await title.getAttribute('title');
  assert.match(tip, /Summed GPU durations of every kernel, memcpy and memset/);
  assert.match(tip, /Kernels by Iteration’s Kernel Busy Time is the time when a kernel runs, overlaps counted once/);
  assert.equal(await panel.locator('.donut-big').innerText(), '502 ms');
  assert.equal(await panel.locator('.donut-big').getAttribute('title'), `${fmt(ks.total_gpu_time)} ns`);
  assert.equal(await panel.locator('.donut-small').innerText(), 'summed durations');
  assert.equal(await panel.locator('[data-key="launches"]').innerText(), `${fmt(launches)} kernel launches (${fmt(tcLaunches)} using TC)`);
  assert.equal(await panel.locator('[data-key="distinct"]').innerText(), `${names} distinct kernels + ${ks.memory_count} memory ops`);
  const all = await panel.innerText();
  assert.doesNotMatch(all, /\b172 kernels\b/, 'the number of names is not a number of kernels');

  await panel.locator('.kernel-details summary').click();
  const heads = await panel.locator('.kernel-details thead th').allInnerTexts();
  assert.deepEqual(heads.slice(1), ['GPU time (sum)', 'Distinct']);
  assert.equal(await panel.locator('tr[data-kind="all"] th').innerText(), 'Kernels + memory');
  assert.equal(await panel.locator('tr[data-kind="all"] td').nth(1).innerText(), '172');
  assert.equal(await panel.locator('tr[data-kind="memory"] th').innerText(), 'Memory (memcpy, memset)');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('Kernels by Iteration: launches and busy times are labelled as such, and the busy time is not the sum of kernel durations', async () => {
  const iters = sql(
    db,
    `SELECT i.iter_value, i.total_kernel_count, i.using_tc_kernel_count, i.tc_duration, i.non_tc_duration, i.memory_duration,
            (SELECT sum(kernel_duration) FROM view_iteration_kernels k WHERE k.aggr_id = i.aggr_id AND k.iter_value = i.iter_value) AS summed,
            (SELECT count(*) FROM view_iteration_kernels k WHERE k.aggr_id = i.aggr_id AND k.iter_value = i.iter_value) AS launches
       FROM view_iterations_profiled i WHERE i.aggr_id = ${A()} ORDER BY i.iter_value`,
  );
  assert.equal(iters.length, 6);
  const page = await open('#/kernels-by-iteration');
  const heads = page.locator('section[data-table="iterations"] thead th');
  const labels = (await heads.allInnerTexts()).map((t) => t.replace(/[▲▼]/g, '').trim());
  assert.deepEqual(labels, [
    'Iteration',
    'Step', // the trace names its iterations (ProfilerStep#N): iternames.test.mjs
    'Start',
    'Duration',
    'Kernel Launches',
    'TC Kernel Launches',
    'Kernel Busy Time',
    'TC Kernel Busy Time',
    'Memory-Only Time',
  ]);
  const tip = (label) => heads.nth(labels.indexOf(label)).getAttribute('title');
  assert.match(await tip('Kernel Busy Time'), /when at least one kernel runs .*overlapping kernels count once, so this is not the sum of kernel durations/);
  assert.match(await tip('Kernel Busy Time'), /dashboard’s Kernel \+ Memory GPU Time sums durations/);
  assert.match(await tip('Kernel Launches'), /memcpys and memsets not counted/);
  assert.match(await tip('Memory-Only Time'), /no kernel does/);
  const col = (label) => labels.indexOf(label) + 1;
  for (const it of iters) {
    const tr = page.locator(`section[data-table="iterations"] tbody tr[data-key="${it.iter_value}"]`);
    const busy = it.tc_duration + it.non_tc_duration;
    // overlapping kernels: the busy time is less than the summed durations
    assert.ok(busy < it.summed, `iteration ${it.iter_value}: busy ${busy} ns, summed ${it.summed} ns`);
    assert.equal(await tr.locator(`td:nth-child(${col('Kernel Busy Time')}) .num-time`).getAttribute('title'), `${fmt(busy)} ns`);
    assert.equal(await tr.locator(`td:nth-child(${col('TC Kernel Busy Time')}) .num-time`).getAttribute('title'), `${fmt(it.tc_duration)} ns`);
    assert.equal(await tr.locator(`td:nth-child(${col('Memory-Only Time')}) .num-time`).getAttribute('title'), `${fmt(it.memory_duration)} ns`);
    assert.equal(it.total_kernel_count, it.launches);
    assert.equal(await tr.locator(`td:nth-child(${col('Kernel Launches')})`).innerText(), fmt(it.launches));
    assert.equal(await tr.locator(`td:nth-child(${col('TC Kernel Launches')})`).innerText(), fmt(it.using_tc_kernel_count));
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});
