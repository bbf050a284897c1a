// roofline.js - Roofline (view_dl_op_shapes): one roofline per GPU, one
// point per op and input shapes that ran on it, at its arithmetic intensity
// (FLOP per byte) and achieved TFLOP/s, under that GPU's roof (memory
// bandwidth, then the compute peak of the data type of its row with the
// most GPU time, from the peaks of its name); with several GPUs a selector
// picks one (the one of the most GPU time first). A click on a point opens
// its op in Ops and Kernels. Beside it the table of ops and shapes: model,
// FLOPs and bytes per call, TFLOP/s, TB/s, % of roofline, bound.

import * as router from '../router.js';
import { getAll } from '../api.js';
import { h, replace, note, busyUntil } from '../util.js';
import { Chart } from '../charts.js';
import { DataTable } from '../table.js';
import { card, viewHeader, aggrLine } from './common.js';

const MAX_POINTS = 1000;

/** The roof of a GPU: bandwidth (TB/s) and peak (TFLOP/s) over intensities lo..hi. */
function roofPoints(peak, bw, lo, hi) {
  const ridge = peak / bw;
  const pts = [{ x: lo, y: lo * bw }];
  if (ridge > lo && ridge < hi) pts.push({ x: ridge, y: peak });
  pts.push({ x: hi, y: Math.min(peak, hi * bw) });
  return pts;
}

const hasPoint = (r) => Number(r.tflops_per_s) > 0 && Number(r.arithmetic_intensity) > 0;

/**
 * The GPUs of the rows with a point, most GPU time first: { id, name, rows }
 * (id: the view's device_id, -1 when it has none; name: the peaks' GPU name,
 * '' when unknown).
 */
function gpusOf(rows) {
  const by = new Map();
  for (const r of rows) {
    if (!hasPoint(r)) continue;
    const id = r.device_id === null || r.device_id === undefined ? -1 : Number(r.device_id);
    if (!by.has(id)) by.set(id, { id, name: '', rows: [], time: 0 });
    const g = by.get(id);
    g.rows.push(r);
    g.time += Number(r.gpu_time) || 0;
    if (!g.name && r.gpu_name) g.name = r.gpu_name;
  }
  return [...by.values()].sort((a, b) => b.time - a.time || a.id - b.id);
}

const gpuLabel = (g) => `GPU ${g.id}: ${g.name || 'unknown peaks'} (${g.rows.length} points)`;

/** The chart's datasets for one GPU's rows: the points and its roof. */
function datasets(rows) {
  const pts = rows.filter(hasPoint).map((r) => ({ x: Number(r.arithmetic_intensity), y: Number(r.tflops_per_s), row: r }));
  const sets = [
    {
      type: 'scatter',
      label: 'Ops (op and input shapes)',
      data: pts,
      backgroundColor: pts.map((p) => (p.row.bound === 'compute' ? '#0079DB' : '#d58f20')),
      pointRadius: 5,
      pointHoverRadius: 7,
    },
  ];
  const withPeak = rows.find((r) => Number(r.peak_tflops_per_s) > 0 && Number(r.peak_tb_per_s) > 0);
  if (withPeak && pts.length) {
    const xs = pts.map((p) => p.x);
    const lo = Math.min(...xs) / 4;
    const hi = Math.max(Math.max(...xs) * 4, (2 * withPeak.peak_tflops_per_s) / withPeak.peak_tb_per_s);
    sets.push({
      type: 'line',
      label: `Roofline: ${withPeak.gpu_name} (${withPeak.input_types})`,
      data: roofPoints(Number(withPeak.peak_tflops_per_s), Number(withPeak.peak_tb_per_s), lo, hi),
      borderColor: '#475569',
      borderWidth: 1.5,
      pointRadius: 0,
      fill: false,
    });
  }
  return sets;
}

function rooflineChart(canvas, onPick) {
  return new Chart(canvas, {
    type: 'scatter',
    data: { datasets: [] },
    options: {
      parsing: false,
      scales: {
        x: { type: 'logarithmic', title: { display: true, text: 'Arithmetic intensity (FLOP/byte)' } },
        y: { type: 'logarithmic', title: { display: true, text: 'Achieved TFLOP/s' } },
      },
      plugins: {
        tooltip: {
          filter: (item) => item.datasetIndex === 0,
          callbacks: {
            title: (items) => (items[0] ? items[0].raw.row.op_node_name : ''),
            label: (item) => {
              const r = item.raw.row;
              return [` ${r.input_dims}`, ` ${r.model}: ${item.raw.y.toFixed(3)} TFLOP/s, ${Number(r.tb_per_s).toFixed(3)} TB/s`, ` ${r.bound || ''}`];
            },
          },
        },
      },
      onClick: (evt, elements) => {
        const el = elements.find((e) => e.datasetIndex === 0);
        if (el) onPick(el.element.$context.raw.row);
      },
    },
  });
}

const fmtNum = (v, digits = 3) => (v === null || v === undefined ? '' : Number(v).toPrecision(digits));

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const openOp = (row) => {
      const b = ctx.base(router.current());
      router.go('ops', { aggr_id: b.aggr_id, domain: b.domain, op: row.op_node_id });
    };
    const canvas = h('canvas', { role: 'img', 'aria-label': 'Roofline: achieved TFLOP/s against arithmetic intensity per op and input shapes' });
    const tools = h('span', { class: 'roofline-gpus' });
    const chartCard = card('Roofline', { id: 'roofline-chart', tools });
    chartCard.body.append(h('div', { class: 'chart-wrap chart-roofline' }, canvas));
    const chart = rooflineChart(canvas, openOp);
    const table = new DataTable({
      id: 'op-shapes',
      title: 'Ops and input shapes',
      endpoint: 'dl_op_shapes',
      noun: 'rows',
      columns: [
        { key: 'op_node_name', label: 'Op Name', type: 'ident' },
        { key: 'input_dims', label: 'Input Dims', type: 'ident' },
        { key: 'input_types', label: 'Type' },
        { key: 'model', label: 'Model' },
        { key: 'calls', label: 'Calls', type: 'int' },
        { key: 'gpu_time', label: 'GPU Time', type: 'time' },
        { key: 'flops', label: 'FLOPs / call', render: (r) => fmtNum(r.flops) },
        { key: 'bytes', label: 'Bytes / call', render: (r) => fmtNum(r.bytes) },
        { key: 'arithmetic_intensity', label: 'FLOP/byte', render: (r) => fmtNum(r.arithmetic_intensity) },
        { key: 'tflops_per_s', label: 'TFLOP/s', render: (r) => fmtNum(r.tflops_per_s) },
        { key: 'tb_per_s', label: 'TB/s', render: (r) => fmtNum(r.tb_per_s) },
        { key: 'pct_of_roofline', label: '% of Roofline', render: (r) => fmtNum(r.pct_of_roofline) },
        { key: 'bound', label: 'Bound' },
      ],
      baseParams: (r) => ctx.base(r),
      onRowClick: openOp,
      empty: 'No op of this aggregation has input shapes.',
      filterPlaceholder: 'Filter op names…',
      hint: 'FLOPs and bytes per call from the perf models (docs/dldb.md "Op shapes and perf models"); a click opens the op.',
    });
    root.append(viewHeader('Roofline', aggrLine(ctx, route0)), chartCard.el, table.el);
    const show = (g) => {
      chart.data.datasets = datasets(g ? g.rows : []);
      chart.update();
      canvas.dataset.points = String(chart.data.datasets[0] ? chart.data.datasets[0].data.length : 0);
      canvas.dataset.gpu = g ? String(g.id) : '';
    };
    busyUntil(chartCard.body, getAll('dl_op_shapes', { ...ctx.base(route0), sort: 'gpu_time', order: 'desc' }))
      .then((d) => {
        const gpus = gpusOf(d.rows.slice(0, MAX_POINTS));
        if (gpus.length > 1) {
          const select = h(
            'select',
            { id: 'roofline-gpu', 'aria-label': 'GPU of the roofline', on: { change: (ev) => show(gpus[Number(ev.target.value)]) } },
            gpus.map((g, i) => h('option', { value: i }, gpuLabel(g))),
          );
          replace(tools, h('label', { for: 'roofline-gpu', class: 'selector' }, 'GPU '), select);
        }
        show(gpus[0]);
      })
      .catch((e) => replace(chartCard.body, note(`Could not load: ${e.message}`, 'note note-error')));
    return {
      update: (r) => table.update(r),
      destroy: () => chart.destroy(),
    };
  },
};
