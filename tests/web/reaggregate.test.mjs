// reaggregate.test.mjs - the Iterations view's "Aggregate again" card: the
// dlprof command it writes for the iterations shown (the zoom), a suggested
// range or typed values, and the aggregation's key op. The command is run as
// the page shows it (dlprof of this build) and must add that aggregation:
// run on the file the viewer serves, the reloaded page offers it in the
// aggregation menu, without a restart of the viewer. On dldbs dlprof writes
// from a real PyTorch profiler (Kineto) trace and a real Nsight Systems
// export, and on NVIDIA's no_relu file, which holds no raw records to
// aggregate again.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SHARED, RELU_EXPORT, NO_RELU, sql, sql1, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

const RN50_KINETO = path.join(SHARED, 'traces/kineto/resnet50_v100/worker0.1623143566756.pt.trace.json.gz');

let dbs, servers, browser, stop, dir;

before(async () => {
  ({ dbs, servers, browser, stop, dir } = await viewersOn('reagg', (d) => ({
    kineto: dlprofDldb(RN50_KINETO, d, 'rn50'),
    relu: dlprofDldb(RELU_EXPORT, d, 'relu'),
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

const command = (page) => page.locator('[data-panel="reaggregate"] .reagg-cmd').innerText();

/** Runs the page's command ("dlprof ...", this build's dlprof) in db's folder, or in a copy of it; returns the file. */
function runCommand(cmd, db, { copy = true } = {}) {
  const work = copy ? fs.mkdtempSync(path.join(dir, 'run-')) : path.dirname(db);
  const file = path.join(work, path.basename(db));
  if (copy) fs.copyFileSync(db, file);
  assert.match(cmd, /^dlprof /);
  const r = spawnSync('/bin/sh', ['-c', `"$DLPROF" ${cmd.slice('dlprof '.length)} -v quiet`], { cwd: work, encoding: 'utf8', env: process.env });
  assert.equal(r.status, 0, `${cmd}: ${r.stderr}`);
  return file;
}

test('Kineto dldb: the command for the zoomed iterations adds that aggregation, which the reloaded page offers', async () => {
  const page = await open('kineto', '#/iterations?from=1&to=3');
  assert.equal(await page.locator('#aggr-wrap').isHidden(), true); // one aggregation: no menu
  const cmd = await command(page);
  assert.equal(cmd, "dlprof --database=rn50_dldb.sqlite --key_op='ProfilerStep#' --iter_start=1 --iter_stop=3 --force=true");
  // the key op field offers the ops called more than once (all of them here: under 100)
  await page.waitForFunction(() => document.querySelectorAll('#reagg-keys option').length > 0);
  const offered = await page.locator('#reagg-keys option').evaluateAll((os) => os.map((o) => o.value));
  const many = sql(dbs.kineto, 'SELECT DISTINCT op_node_name AS n FROM view_op_nodes WHERE aggr_id = 1 AND num_calls > 1').map((r) => r.n);
  assert.ok(many.length > 10 && many.length < 100, String(many.length));
  assert.deepEqual([...offered].sort(), [...many].sort());
  assert.ok(offered.includes('aten::conv2d') && !offered.some((n) => n.startsWith('ProfilerStep')));
  const db = runCommand(cmd, dbs.kineto, { copy: false }); // the file the viewer serves
  assert.equal(sql1(db, "SELECT count(*) FROM view_aggregations WHERE iter_start = 1 AND iter_stop = 3 AND key_node_name = 'ProfilerStep#'"), 1);
  assert.equal(sql1(db, 'SELECT count(*) FROM view_aggregations'), 2);
  // the viewer serves the new file: the page, loaded again, opens on the
  // new aggregation (the newest) and offers both
  await page.goto(`${servers.kineto.url}/?again#/iterations`);
  await settled(page);
  assert.equal(await page.locator('#aggr-wrap').isVisible(), true);
  assert.deepEqual(await page.locator('#aggr-select option').allInnerTexts(), ['0 to 5', '1 to 3']);
  assert.equal(await page.locator('#aggr-select').inputValue(), '2');
  assert.match(await page.locator('.view-sub').innerText(), /^Iterations 1 to 3 /);

  // typed values; a start after the stop is pointed out
  await page.fill('[data-reagg="start"]', '4');
  await page.fill('[data-reagg="stop"]', '2');
  assert.match(await command(page), / --iter_start=4 --iter_stop=2 /);
  assert.equal(await page.locator('[data-panel="reaggregate"]').getAttribute('data-valid'), 'false');
  assert.equal(await page.locator('[data-panel="reaggregate"] .reagg-msg').innerText(), 'The first iteration is after the last.');
  await page.fill('[data-reagg="stop"]', '5');
  assert.equal(await page.locator('[data-panel="reaggregate"]').getAttribute('data-valid'), 'true');
  // a key op with a quote stays one shell word
  await page.fill('[data-reagg="key"]', "it's a step");
  assert.match(await command(page), / --key_op='it'\\''s a step' --iter_start=4 --iter_stop=5 /);
  await page.click('[data-panel="reaggregate"] button:text("Copy")');
  await page.waitForFunction(() => document.querySelector('[data-panel="reaggregate"] .reagg-msg').textContent !== ''); // the clipboard answers later
  assert.match(await page.locator('[data-panel="reaggregate"] .reagg-msg').innerText(), /^(Copied\.|Selected: press Ctrl\+C to copy\.)$/);
  noProblems(page);
  await page.close();
});

test('Nsight Systems dldb: the suggested range, else the aggregation\'s own', async () => {
  const a = sql1(dbs.relu, 'SELECT iter_start FROM view_aggregations');
  const b = sql1(dbs.relu, 'SELECT iter_stop FROM view_aggregations');
  const key = sql1(dbs.relu, 'SELECT key_node_name FROM view_aggregations');
  let page = await open('relu', '#/iterations');
  let cmd = await command(page);
  assert.ok(cmd.startsWith('dlprof --database=relu_dldb.sqlite '), cmd);
  assert.ok(cmd.endsWith(` --iter_start=${a} --iter_stop=${b} --force=true`), cmd);
  assert.equal(cmd.includes('--key_op='), Boolean(key), cmd);
  await page.close();

  page = await open('relu', '#/iterations?suggest_start=0&suggest_stop=0');
  cmd = await command(page);
  assert.ok(cmd.endsWith(' --iter_start=0 --iter_stop=0 --force=true'), cmd);
  assert.match(await page.locator('.banner-info').innerText(), /--iter_start=0 --iter_stop=0 \(the command is under "Aggregate again" below\)/);
  const copy = runCommand(cmd, dbs.relu);
  assert.equal(sql1(copy, 'SELECT count(*) FROM view_aggregations'), 2);
  assert.equal(sql1(copy, 'SELECT iter_start || \',\' || iter_stop FROM view_aggregations WHERE aggr_id = (SELECT max(aggr_id) FROM view_aggregations)'), '0,0');
  noProblems(page);
  await page.close();
});

test('NVIDIA\'s file: no command, and why', async () => {
  const page = await open('nvidia', '#/iterations');
  assert.equal(await page.locator('[data-panel="reaggregate"] .reagg-cmd').count(), 0);
  assert.match(await page.locator('[data-panel="reaggregate"]').innerText(), /written by NVIDIA DLProf: it holds no raw records to aggregate again/);
  noProblems(page);
  await page.close();
});
