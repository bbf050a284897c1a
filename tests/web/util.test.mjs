// util.test.mjs - the page's time formatting (web/js/util.js) in node: a
// duration below 1 µs is whole nanoseconds everywhere (tables, tooltips'
// headlines, chart axes), never "0.45 µs" or "450.57 ns"; and the line a
// stack trace's cell shows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fmtTime, fmtTimeIn, timeUnit, stackPreview } from '../../web/js/util.js';

test('fmtTime: below 1 µs whole ns, from 1 µs 3 significant digits', () => {
  const cases = [
    [0, '0 ns'],
    [0.45, '< 1 ns'],
    [1, '1 ns'],
    [12.345, '12 ns'],
    [450, '450 ns'],
    [450.567, '451 ns'],
    [999.4, '999 ns'],
    [999.6, '1.00 µs'],
    [1000, '1.00 µs'],
    [1234.5678, '1.23 µs'],
    [43040, '43.0 µs'],
    [352000, '352 µs'],
    [999999.9, '1.00 ms'],
    [2864091540, '2.86 s'],
    [null, '–'],
  ];
  for (const [ns, want] of cases) assert.equal(fmtTime(ns), want, `fmtTime(${ns})`);
});

test('fmtTimeIn: an axis in µs or ms shows its ticks below 1 µs in ns', () => {
  const us = timeUnit(1500);
  const ms = timeUnit(1.5e6);
  assert.deepEqual([us[0], ms[0]], ['µs', 'ms']);
  assert.equal(fmtTimeIn(0, us), '0 µs');
  assert.equal(fmtTimeIn(450, us), '450 ns');
  assert.equal(fmtTimeIn(200, ms), '200 ns');
  assert.equal(fmtTimeIn(1500, us), '1.5 µs');
  assert.equal(fmtTimeIn(5e5, ms), '0.5 ms');
  assert.equal(fmtTimeIn(2e5, ms), '0.2 ms');
});

test('stackPreview: the innermost nn.Module frame, else the outermost frame', () => {
  // PyTorch 2 with with_modules=True: the layer's module
  const vit = ['<string>:1', 'nn.Module: ViTModel_0', 'torch/nn/modules/module.py:1743', 'nn.Module: Conv2d_0', 'torch/nn/modules/conv.py:553', '<built-in method conv2d>'].join('\n');
  assert.equal(stackPreview(vit), 'nn.Module: Conv2d_0');
  // DLProf's and 2021's PyTorch stacks: the first line, as before
  assert.equal(stackPreview('dummy_network.py:42\nconv.py:443'), 'dummy_network.py:42');
  assert.equal(stackPreview('a.py:1\n(this stack: 3 of 9 calls; 2 other stacks)'), 'a.py:1');
  assert.equal(stackPreview(''), '');
  assert.equal(stackPreview(null), '');
  assert.equal(stackPreview('x nn.Module: not a frame'), 'x nn.Module: not a frame');
});
