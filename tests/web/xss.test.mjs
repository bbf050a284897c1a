// xss.test.mjs - trace strings are shown as text, never run as HTML.
//
// The fixture is a temporary copy of no_relu whose op name, kernel name, op
// type, group-op name and expert-system texts are rewritten (sqlite3 CLI)
// into HTML/script payloads. Every view that shows them must show them
// literally, create no element from them and leave window.__xss undefined.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_RELU, sql1, sqlWrite, tempCopy, startServer, launchBrowser, watchedPage, settled } from './helpers.mjs';

const IMG = '<img src=x onerror=window.__xss=1>';
const SCRIPT = '<script>window.__xss=1</script>';
const SVG = '"><svg onload=window.__xss=1>';

let db;
let server;
let browser;

before(async () => {
  db = tempCopy(NO_RELU, 'xss.sqlite');
  const esc = (s) => s.replaceAll("'", "''");
  sqlWrite(
    db,
    `
    UPDATE read_only_ops SET op_name = '${esc(IMG)}' WHERE op_id = 'CONV2D_1';
    UPDATE dictionary SET string = '${esc(SCRIPT)}'
      WHERE id = (SELECT ks.kernel_name_id FROM kernel_summaries ks
                  JOIN read_only_ops roo ON roo.id = ks.read_only_ops_id
                  JOIN dictionary d ON d.id = ks.kernel_name_id
                  WHERE roo.op_id = 'CONV2D_1' AND d.string = 'explicit_convolve_sgemm' LIMIT 1);
    UPDATE dictionary SET string = '${esc(SVG)}' WHERE string = 'max_pool2d';
    UPDATE dictionary SET string = '/module/${esc(IMG)}' WHERE string = '/module/cuda';
    UPDATE expert_systems_feedback SET problem = '${esc(IMG)}',
      recommendation = 'Try javascript:window.__xss=1 or https://example.com/a${esc('<b>bold</b>')} now'
      WHERE id = (SELECT min(id) FROM expert_systems_feedback);
    UPDATE expert_systems_feedback SET javascript_function = 'ShowBadIterationRange',
      javascript_args = '{"ideal_start":"${esc('<img>')}","ideal_stop":0}'
      WHERE id = (SELECT max(id) FROM expert_systems_feedback);
  `,
  );
  // The payloads are in place in the views the server reads.
  assert.equal(sql1(db, "SELECT op_node_name FROM view_op_nodes WHERE op_node_id = 'CONV2D_1'"), IMG);
  assert.equal(sql1(db, `SELECT count(*) FROM view_kernel_summaries WHERE op_node_id = 'CONV2D_1' AND kernel_name = '${esc(SCRIPT)}'`), 1);
  server = await startServer(db);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (db) fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

async function check(route, expectTexts) {
  const page = await watchedPage(browser.context);
  await page.goto(`${server.url}/${route}`);
  await settled(page);
  const body = await page.locator('main').innerText();
  for (const t of expectTexts) assert.ok(body.includes(t), `${route}: literal ${t} not shown`);
  const state = await page.evaluate(() => ({
    xss: typeof window.__xss,
    imgs: document.querySelectorAll('main img, main svg').length,
    scripts: [...document.scripts].map((s) => s.getAttribute('src')),
    bold: document.querySelectorAll('main b').length,
    badLinks: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')).filter((h) => !/^(https?:\/\/|#|\/(?!\/))/.test(h) || h.includes('<')),
  }));
  assert.equal(state.xss, 'undefined', `${route}: window.__xss was set`);
  assert.equal(state.imgs, 0, `${route}: an element was made from a payload`);
  assert.equal(state.bold, 0, `${route}: HTML in expert text was rendered`);
  // the page's two scripts, under the build's tag (Chart.js is imported by the views that chart)
  assert.deepEqual(state.scripts.map((s) => String(s).replace(/^\/v\/[0-9a-f]{16}\//, '/')), ['/js/start.js', '/js/app.js'], `${route}: unexpected scripts`);
  assert.deepEqual(state.badLinks, [], `${route}: unsafe links`);
  assert.deepEqual(page.problems, [], `${route}: ${page.problems.join('\n')}`);
  await page.close();
}

test('dashboard shows payloads as text', async () => {
  await check('', [IMG, 'https://example.com/a<b>bold</b>'.slice(0, 21)]);
});

test('ops and kernels show payloads as text', async () => {
  await check('#/ops?op=CONV2D_1&limit=50', [IMG, SCRIPT, SVG]);
});

test('kernels by iteration shows payloads as text', async () => {
  await check('#/kernels-by-iteration?iter=0&k.limit=100', [IMG, SCRIPT]);
});

test('kernels by op shows payloads as text', async () => {
  await check('#/kernels-by-op?iter=0&op=CONV2D_1&k.limit=100', [IMG, SCRIPT]);
});

test('op types and group ops show payloads as text', async () => {
  await check('#/op-types', [SVG]);
  await check('#/group-ops?expand=all', [IMG]);
});
