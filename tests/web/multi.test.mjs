// multi.test.mjs - what the real single-iteration samples cannot show:
// several aggregations (the selector), several GPUs (the GPUs view), 200
// iterations (Iteration Summary zoom, grey bars outside the aggregation)
// and the ShowBadIterationRange action.
//
// The fixture is a temporary copy of no_relu whose view layer is widened
// with the sqlite3 CLI: every view with an aggr_id column is re-created as
// its original rows plus a copy under aggr_id 2 (iterations 50 to 149), and
// the iteration, GPU and expert views are replaced by synthetic rows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_RELU, ARTIFACTS, sql, sqlWrite, tempCopy, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

let db;
let server;
let browser;

const ITERS = 200;
const SYNTHETIC = new Set(['view_iterations_all', 'view_iterations_profiled', 'view_gpu_devices', 'view_expert_systems', 'view_aggregations']);

function widen(file) {
  const views = sql(file, "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND name LIKE 'view_%'");
  let script = 'BEGIN;\n';
  for (const v of views) {
    const cols = sql(file, `SELECT name FROM pragma_table_info('${v.name}')`).map((r) => r.name);
    if (!cols.includes('aggr_id') || SYNTHETIC.has(v.name)) continue;
    const body = v.sql.replace(/^\s*CREATE\s+VIEW\s+\S+\s+AS\s+/i, '');
    const copy = cols.map((c) => (c === 'aggr_id' ? '2 AS aggr_id' : `"${c}"`)).join(', ');
    script += `CREATE VIEW ${v.name}__base AS ${body};\nDROP VIEW ${v.name};\n`;
    script += `CREATE VIEW ${v.name} AS SELECT * FROM ${v.name}__base UNION ALL SELECT ${copy} FROM ${v.name}__base;\n`;
  }
  script += `
    CREATE TABLE t_aggr (aggr_id INTEGER, iter_start INTEGER, iter_stop INTEGER, key_node_name TEXT, aggr_start TEXT);
    INSERT INTO t_aggr VALUES (1, 0, ${ITERS - 1}, 'train_step', '2023-01-25 17:08:48'), (2, 50, 149, 'train_step', '2023-01-25 18:00:00');
    DROP VIEW view_aggregations;
    CREATE VIEW view_aggregations AS SELECT aggr_id, iter_start, iter_stop, iter_stop - iter_start + 1 AS iter_aggregated,
      key_node_name, 'user' AS user_name, 'host' AS host_name, aggr_start, 0 AS aggr_end FROM t_aggr;
    CREATE TABLE t_iters (iter_value INTEGER PRIMARY KEY, start_time INTEGER, duration INTEGER);
    WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${ITERS - 1})
      INSERT INTO t_iters SELECT i, i * 20000000, 10000000 + (i % 7) * 1000000 + (CASE WHEN i < 3 THEN 30000000 ELSE 0 END) FROM c;
    DROP VIEW view_iterations_all;
    CREATE VIEW view_iterations_all AS SELECT a.aggr_id, iter_value, start_time, start_time + duration AS stop_time, duration FROM t_iters, t_aggr a;
    DROP VIEW view_iterations_profiled;
    CREATE VIEW view_iterations_profiled AS SELECT a.aggr_id, 'default-domain' AS domain_name, iter_value, start_time, duration,
      100 AS total_kernel_count, 40 AS using_tc_kernel_count, duration * 30 / 100 AS tc_duration, duration * 20 / 100 AS non_tc_duration,
      duration * 5 / 100 AS memory_duration, duration * 10 / 100 AS dataloader_duration, duration * 5 / 100 AS io_duration,
      duration * 20 / 100 AS cpu_duration, duration * 10 / 100 AS other_duration
      FROM t_iters, t_aggr a WHERE iter_value BETWEEN a.iter_start AND a.iter_stop;
    DROP VIEW view_gpu_devices;
    CREATE VIEW view_gpu_devices AS SELECT a.aggr_id, 'default-domain' AS domain_name, d.id AS device_id, 'NVIDIA A100-SXM4-40GB' AS gpu_name,
      8 AS cuda_major, 0 AS cuda_minor, 108 AS sm_count, 20.0 + d.id * 10 AS device_gpu_utilization
      FROM t_aggr a, (SELECT 0 AS id UNION SELECT 1 UNION SELECT 2 UNION SELECT 3) d;
    DROP VIEW view_gpu_names;
    CREATE VIEW view_gpu_names AS SELECT 'NVIDIA A100-SXM4-40GB' AS gpu_name FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4);
    UPDATE read_only_system_config SET num_gpus = '4';
    CREATE VIEW view_expert_systems__base AS SELECT aggr_id, problem, recommendation, javascript_function, javascript_args FROM expert_systems_feedback;
    DROP VIEW view_expert_systems;
    CREATE VIEW view_expert_systems AS SELECT * FROM view_expert_systems__base UNION ALL SELECT 2, 'The aggregated iteration range of 50 to 149 contains a lot of variation',
      'Try limiting the iteration range to a steady range by rerunning with the --database option and setting --iter_start=60 --iter_stop=140',
      'ShowBadIterationRange', '{"ideal_start":60,"ideal_stop":140}';
    COMMIT;
  `;
  sqlWrite(file, script);
}

before(async () => {
  db = tempCopy(NO_RELU, 'multi.sqlite');
  widen(db);
  server = await startServer(db);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (db) fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

async function open(route) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/${route}`);
  await settled(page);
  return page;
}

/* Drags across the middle fifth of an iteration chart (30% to 50% of its
 * width); returns the [from, to] the page put in its URL. */
async function dragAcross(page, canvas) {
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => /from=\d+&to=\d+/.test(location.hash));
  const m = /from=(\d+)&to=(\d+)/.exec(page.url());
  return [Number(m[1]), Number(m[2])];
}

const noProblems = (page) => assert.deepEqual(page.problems, [], page.problems.join('\n'));

test('the aggregation selector lists every aggregation and switches', async () => {
  const page = await open('');
  assert.equal(await page.locator('#aggr-wrap').isVisible(), true);
  const opts = await page.locator('#aggr-select option').evaluateAll((os) => os.map((o) => [o.value, o.textContent, o.selected]));
  assert.deepEqual(opts, [
    ['1', `0 to ${ITERS - 1}`, false],
    ['2', '50 to 149', true],
  ]);
  assert.equal(await page.locator('#aggr-select').getAttribute('title'), 'Key op: train_step');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'multi-dashboard.png'), fullPage: true });
  // Iterations outside aggregation 2 are drawn too (grey).
  assert.equal(await page.locator('[data-panel="iteration-summary"]').getAttribute('data-iterations'), String(ITERS));
  await page.selectOption('#aggr-select', '1');
  await page.waitForFunction(() => location.hash.includes('aggr_id=1'));
  await settled(page);
  assert.match(await page.locator('.view-sub').innerText(), new RegExp(`^Iterations 0 to ${ITERS - 1}`));
  noProblems(page);
  await page.close();
  // An aggregation the file lacks (an old link): the selector says so.
  const bad = await open('#/ops?aggr_id=99&domain=default-domain');
  await bad.waitForSelector('#errors .error-item');
  const sel = await bad.locator('#aggr-select option').evaluateAll((os) => os.filter((o) => o.selected).map((o) => o.textContent));
  assert.deepEqual(sel, ['99 (not in this file)']);
  await bad.close();
});

test('the iteration summary zooms by dragging and by the range inputs', async () => {
  const page = await open('');
  const canvas = page.locator('[data-panel="iteration-summary"] canvas');
  const [from, to] = await dragAcross(page, canvas);
  assert.ok(from > 0 && to > from && to < ITERS - 1, `${from}..${to}`);
  await page.waitForFunction((n) => document.querySelector('[data-panel="iteration-summary"]').dataset.iterations === String(n), to - from + 1);
  // Typed range.
  await page.fill('[data-panel="iteration-summary"] input[data-range="from"]', '10');
  await page.fill('[data-panel="iteration-summary"] input[data-range="to"]', '19');
  await page.press('[data-panel="iteration-summary"] input[data-range="to"]', 'Enter');
  await page.waitForFunction(() => location.hash.includes('from=10&to=19'));
  await page.waitForFunction(() => document.querySelector('[data-panel="iteration-summary"]').dataset.iterations === '10');
  await page.click('[data-panel="iteration-summary"] button:text("Reset zoom")');
  await page.waitForFunction((n) => document.querySelector('[data-panel="iteration-summary"]').dataset.iterations === String(n), ITERS);
  noProblems(page);
  await page.close();
});

test('a narrow Iteration Summary draws several iterations to a bar, and zooming shows each', async () => {
  const page = await watchedPage(browser.context);
  await page.setViewportSize({ width: 560, height: 900 });
  await page.goto(`${server.url}/`);
  await settled(page);
  const panel = page.locator('[data-panel="iteration-summary"]');
  assert.equal(await panel.getAttribute('data-iterations'), String(ITERS));
  const bars = Number(await panel.getAttribute('data-bars'));
  const per = Math.ceil(ITERS / bars);
  assert.ok(per > 1 && bars === Math.ceil(ITERS / per), `${bars} bars for ${ITERS} iterations`);
  assert.match(await panel.innerText(), new RegExp(`${ITERS} iterations shown, ${per} to a bar \\(their mean\\)`));
  // A drag selects whole bars: the range starts at a bar's first iteration
  // and ends at a bar's last one, and then each iteration has its bar.
  const [from, to] = await dragAcross(page, panel.locator('canvas'));
  assert.ok(from % per === 0 && (to + 1) % per === 0 && to > from, `${from}..${to} in bars of ${per}`);
  await page.waitForFunction((n) => document.querySelector('[data-panel="iteration-summary"]').dataset.bars === String(n), to - from + 1);
  noProblems(page);
  await page.close();
});

test('ShowBadIterationRange opens Iterations with the suggested range', async () => {
  const page = await open('');
  await page.click('[data-panel="expert-systems"] a.btn-action:text("Show range")');
  await page.waitForFunction(() => location.hash.startsWith('#/iterations') && location.hash.includes('suggest_start=60&suggest_stop=140'));
  await settled(page);
  assert.match(await page.locator('.banner-info').innerText(), /60 to 140/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'multi-iterations.png'), fullPage: true });
  await page.click('.banner-info button:text("Zoom to this range")');
  await page.waitForFunction(() => document.querySelector('[data-panel="iterations-chart"]').dataset.iterations === '81');
  await page.click('.seg-btn[data-show="profiled"]');
  await page.click('.range-controls button:text("Reset zoom")');
  await page.waitForFunction(() => document.querySelector('[data-panel="iterations-chart"]').dataset.iterations === '100');
  noProblems(page);
  await page.close();
});

test('the GPUs view lists every GPU', async () => {
  const page = await open('');
  assert.equal(await page.locator('#nav [data-view="gpus"]').count(), 1);
  await page.click('#nav [data-view="gpus"]');
  await page.waitForFunction(() => location.hash.startsWith('#/gpus'));
  await settled(page);
  assert.equal(await page.locator('section[data-table="gpus"] .card-count').innerText(), '4 GPUs');
  assert.equal(await page.locator('section[data-table="gpus"] tbody tr').first().locator('td').nth(3).innerText(), '8.0');
  noProblems(page);
  await page.close();
});
