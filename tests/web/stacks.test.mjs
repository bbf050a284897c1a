// stacks.test.mjs - the Stack Trace column on dldbs dlprof writes from real
// PyTorch profiler traces recorded with_stack=True: the 2021 ResNet-50 trace
// (each op's "Call stack") and a PyTorch 2 ViT trace on an H100
// (python_function events, with_modules=True). The cell shows the layer's
// module frame where the stack has one, else the outermost frame (as
// DLProf did), and the whole stack after "more", as text: frames such as
// "<built-in method conv2d of type object at 0x...>" are never markup.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SHARED, sql, dlprofDldb, viewersOn, watchedPage, settled } from './helpers.mjs';

const RN50 = path.join(SHARED, 'traces/kineto/resnet50_v100/worker0.1623143566756.pt.trace.json.gz');
const VIT = path.join(SHARED, 'traces/kineto/tracelens_h100/Falconsai_nsfw_image_detection__1016002.json.gz');

let dbs, servers, browser, stop;

before(async () => {
  ({ dbs, servers, browser, stop } = await viewersOn('stacks', (dir) => ({
    rn50: dlprofDldb(RN50, dir, 'rn50'),
    vit: dlprofDldb(VIT, dir, 'vit'),
  })));
});

after(async () => {
  if (stop) await stop();
});

function noProblems(page) {
  assert.deepEqual(page.problems, [], `console errors or failed requests:\n${page.problems.join('\n')}`);
}

/** The conv2d fprop op's Stack Trace cell on the Ops page: its text, then the whole stack after "more". */
async function convStack(name) {
  const op = sql(dbs[name], "SELECT op_node_id, stack_trace FROM view_op_nodes WHERE op_node_name = 'aten::conv2d' AND direction = 'fprop'")[0];
  const page = await watchedPage(browser.context);
  await page.goto(`${servers[name].url}/#/ops?filter=conv2d`);
  await settled(page);
  const cell = page.locator(`section[data-table="ops"] tr[data-key="${op.op_node_id}"] td.stack`);
  const shown = await cell.locator('.long-body').innerText();
  await cell.locator('button.more').click();
  const full = await cell.locator('.long-body').textContent();
  const markup = await cell.locator('.long-body *').count();
  noProblems(page);
  await page.close();
  return { op, shown, full, markup };
}

test('PyTorch 2 stack: the cell names the layer (nn.Module: Conv2d_0), "more" shows all 26 frames as text', async () => {
  const { op, shown, full, markup } = await convStack('vit');
  assert.equal(shown, 'nn.Module: Conv2d_0…');
  assert.equal(full, op.stack_trace);
  assert.equal(full.split('\n').length, 26);
  assert.equal(full.split('\n').at(-1), '<built-in method conv2d of type object at 0x7bcd86e1df60>');
  assert.equal(markup, 0);
});

test('2021 stack (Call stack): the cell shows the outermost frame, as DLProf', async () => {
  const { op, shown, full } = await convStack('rn50');
  assert.equal(shown, 'resnet50_profiler_api.py:46…');
  assert.equal(full, op.stack_trace);
  assert.match(full, /\n\(this stack: 36 of 318 calls; 16 other stacks\)$/);
});
