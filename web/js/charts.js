// charts.js - Chart.js set-up shared by the views.
//
// Chart.js (/vendor/chart.umd.js, the server's copy of the pinned npm
// package) is loaded on demand by loadChart(): app.js awaits it before it
// mounts a view that draws charts, so pages without charts (the Timeline,
// Ranks) never fetch or compile it. It is then window.Chart and this
// module's Chart. Views create each chart once and later replace chart.data
// and call chart.update().
// Labels drawn on canvases are never HTML, so trace strings are safe there.

import { fmtTime, fmtNs, fmtTimeIn, timeUnit, fmtPct } from './util.js';

// a live binding: importers see the value loadChart() sets
export let Chart = window.Chart || null;
let loading = null;

/** DLProf Viewer's category colours. */
export const COLORS = {
  tc: '#0079DB',
  nonTc: '#9fe051',
  memory: '#B6C5E2',
  dataloader: '#ffd96c',
  io: '#ffb347',
  cpu: '#d58f20',
  other: '#DBA3B4',
  outside: '#d4d7dd',
  idle: '#e3e7ee',
  gpu: '#0079DB',
};

/** Iteration categories: label, key in view_iterations_profiled, colour. */
export const ITER_CATEGORIES = [
  ['Using TC', 'tc_duration', COLORS.tc],
  ['Not using TC', 'non_tc_duration', COLORS.nonTc],
  ['Memory', 'memory_duration', COLORS.memory],
  ['Dataloader', 'dataloader_duration', COLORS.dataloader],
  ['I/O', 'io_duration', COLORS.io],
  ['CPU', 'cpu_duration', COLORS.cpu],
  ['Other', 'other_duration', COLORS.other],
];

/** Loads Chart.js once (a dynamic import of its UMD build, which sets window.Chart) and sets its defaults. */
export function loadChart() {
  if (!loading) {
    loading = (Chart ? Promise.resolve() : import('../vendor/chart.umd.js')).then(() => {
      Chart = window.Chart;
      setDefaults();
    });
  }
  return loading;
}

function setDefaults() {
  Chart.defaults.font.family = getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif';
  Chart.defaults.font.size = 12;
  Chart.defaults.color = '#475569';
  Chart.defaults.borderColor = '#e2e8f0';
  /* No animations: a profile's numbers are shown at once, and a chart of
   * thousands of iteration bars would animate each bar, well past the
   * dashboard's render budget. */
  Chart.defaults.animation = false;
  Chart.defaults.plugins.legend.labels.boxWidth = 12;
  Chart.defaults.plugins.legend.labels.boxHeight = 12;
  Chart.defaults.plugins.tooltip.backgroundColor = 'rgba(15, 23, 42, 0.92)';
  Chart.defaults.maintainAspectRatio = false;
}

/**
 * A doughnut. kind: 'pct' (values are %) or 'time' (values are ns).
 * Returns the chart; fill it with setDoughnut().
 */
export function doughnut(canvas, labels, colors, kind) {
  return new Chart(canvas, {
    type: 'doughnut',
    data: { labels, datasets: [{ data: labels.map(() => 0), backgroundColor: colors, borderWidth: 1, borderColor: '#fff', hoverOffset: 4 }] },
    options: {
      cutout: '62%',
      plugins: {
        legend: { position: 'bottom', labels: { padding: 10, font: { size: 11 } } },
        tooltip: {
          callbacks: {
            label: (ctx) => {
              const v = ctx.parsed;
              if (kind === 'time') {
                const total = ctx.dataset.data.reduce((a, b) => a + b, 0);
                return ` ${ctx.label}: ${fmtTime(v)} (${fmtPct(total ? (100 * v) / total : 0)}) — ${fmtNs(v)}`;
              }
              return ` ${ctx.label}: ${fmtPct(v)} (${v} %)`;
            },
          },
        },
      },
    },
  });
}

/** Replaces a doughnut's values. */
export function setDoughnut(chart, values) {
  chart.data.datasets[0].data = values.map((v) => Number(v) || 0);
  chart.update();
}

/** Draws a translucent box over the x range being dragged (plugin). */
const rangeSelectPlugin = {
  id: 'dlRangeSelect',
  afterDatasetsDraw(chart) {
    const s = chart.$dlSel;
    if (!s) return;
    const { ctx, chartArea } = chart;
    ctx.save();
    ctx.fillStyle = 'rgba(0, 121, 219, 0.12)';
    ctx.strokeStyle = 'rgba(0, 121, 219, 0.6)';
    const x = Math.min(s.x0, s.x1);
    const w = Math.abs(s.x1 - s.x0);
    ctx.fillRect(x, chartArea.top, w, chartArea.bottom - chartArea.top);
    ctx.strokeRect(x, chartArea.top, w, chartArea.bottom - chartArea.top);
    ctx.restore();
  },
};

/* The bar of an iteration chart that holds iteration `iter`, or -1. */
function barOf(chart, iter) {
  const first = chart.$dlFirst || [];
  const last = chart.$dlLast || [];
  let lo = 0;
  let hi = first.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (iter < first[mid]) hi = mid - 1;
    else if (iter > last[mid]) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Dashed vertical markers at iterations (plugin): chart.$dlMarkers = [{label, at}]. */
const markersPlugin = {
  id: 'dlMarkers',
  afterDatasetsDraw(chart) {
    const marks = chart.$dlMarkers;
    if (!marks || !marks.length) return;
    const { ctx, chartArea, scales } = chart;
    const labels = chart.data.labels;
    ctx.save();
    ctx.strokeStyle = '#c2410c';
    ctx.fillStyle = '#c2410c';
    ctx.setLineDash([5, 4]);
    ctx.lineWidth = 1.5;
    ctx.font = '11px sans-serif';
    for (const m of marks) {
      const i = barOf(chart, Number(m.at));
      if (i < 0) continue;
      const half = (scales.x.right - scales.x.left) / Math.max(1, labels.length) / 2;
      const x = scales.x.getPixelForValue(i) + (m.side === 'end' ? half : -half);
      ctx.beginPath();
      ctx.moveTo(x, chartArea.top);
      ctx.lineTo(x, chartArea.bottom);
      ctx.stroke();
      ctx.textAlign = m.side === 'end' ? 'right' : 'left';
      ctx.fillText(m.label, x + (m.side === 'end' ? -4 : 4), chartArea.top + 12);
    }
    ctx.restore();
  },
};

/**
 * A stacked bar chart of iterations (x: iteration number, y: ns).
 * onSelect(fromLabel, toLabel) is called after a drag across bars.
 */
export function iterationChart(canvas, onSelect) {
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels: [], datasets: [] },
    plugins: [rangeSelectPlugin, markersPlugin],
    options: {
      interaction: { mode: 'index', intersect: false },
      datasets: { bar: { categoryPercentage: 0.9, barPercentage: 0.95, maxBarThickness: 48 } },
      scales: {
        x: { stacked: true, title: { display: true, text: 'Iteration' }, grid: { display: false }, ticks: { autoSkip: true, maxRotation: 0, sampleSize: 64 } },
        y: {
          stacked: true,
          beginAtZero: true,
          title: { display: true, text: 'Time' },
          ticks: { callback: (v, _i, ticks) => fmtTimeIn(v, timeUnit(ticks.length ? ticks[ticks.length - 1].value : v)) },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { filter: (item, data) => data.datasets[item.datasetIndex].$hasData !== false } },
        tooltip: {
          filter: (item) => item.parsed.y > 0,
          callbacks: {
            title: (items) => {
              if (!items.length) return '';
              const { chart: c, label, dataIndex: i } = items[0];
              const n = c.$dlLast[i] - c.$dlFirst[i] + 1;
              const names = c.$dlNames;
              const a = names && names.get(c.$dlFirst[i]);
              const b = names && names.get(c.$dlLast[i]);
              // the trace's names of the iterations (ProfilerStep#N), when it has them
              const step = a && b ? ` · ${n > 1 ? `${a} to ${b}` : a}` : '';
              return n > 1 ? `Iterations ${label} (mean of ${n})${step}` : `Iteration ${label}${step}`;
            },
            label: (ctx) => ` ${ctx.dataset.label}: ${fmtTime(ctx.parsed.y)} (${fmtNs(Math.round(ctx.parsed.y))})`,
          },
        },
      },
    },
  });
  if (onSelect) enableDragSelect(chart, onSelect);
  return chart;
}

/** Bars an iteration chart has room for: about one per 3 CSS pixels. */
export function iterMaxBars(chart) {
  return Math.max(100, Math.floor((chart.chartArea ? chart.chartArea.right - chart.chartArea.left : chart.width) / 3));
}

/**
 * Shows iterSeries() output s (views/common.js) in an iteration chart;
 * names (Map iter_value -> name, views/common.js iterNames) label the
 * tooltips' iterations, the axis keeps the numbers.
 */
export function setIterations(chart, s, names = null) {
  chart.data.labels = s.labels;
  chart.data.datasets = s.datasets;
  chart.$dlFirst = s.first;
  chart.$dlLast = s.last;
  chart.$dlNames = names;
  chart.update();
}

function enableDragSelect(chart, onSelect) {
  const canvas = chart.canvas;
  let dragging = false;
  const within = (x) => Math.max(chart.chartArea.left, Math.min(chart.chartArea.right, x));
  canvas.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0 || !chart.data.labels.length) return;
    const x = ev.offsetX;
    if (x < chart.chartArea.left || x > chart.chartArea.right) return;
    dragging = true;
    chart.$dlSel = { x0: x, x1: x };
  });
  canvas.addEventListener('mousemove', (ev) => {
    if (!dragging) return;
    chart.$dlSel.x1 = within(ev.offsetX);
    chart.draw();
  });
  const finish = (ev) => {
    if (!dragging) return;
    dragging = false;
    const s = chart.$dlSel;
    chart.$dlSel = null;
    chart.draw();
    if (ev && ev.type === 'mouseup' && Math.abs(s.x1 - s.x0) > 4) {
      const labels = chart.data.labels;
      const idx = (px) => Math.max(0, Math.min(labels.length - 1, Math.round(chart.scales.x.getValueForPixel(px))));
      const a = idx(Math.min(s.x0, s.x1));
      const b = idx(Math.max(s.x0, s.x1));
      onSelect(chart.$dlFirst[a], chart.$dlLast[b]);
    }
  };
  canvas.addEventListener('mouseup', finish);
  canvas.addEventListener('mouseleave', finish);
}

/** A simple vertical bar chart of percentages (GPUs view). */
export function pctBarChart(canvas, label) {
  return new Chart(canvas, {
    type: 'bar',
    data: { labels: [], datasets: [{ label, data: [], backgroundColor: COLORS.gpu, maxBarThickness: 64 }] },
    options: {
      scales: {
        y: { beginAtZero: true, suggestedMax: 100, title: { display: true, text: label }, ticks: { callback: (v) => `${v} %` } },
        x: { grid: { display: false } },
      },
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { label: (ctx) => ` ${fmtPct(ctx.parsed.y)} (${ctx.parsed.y} %)` } },
      },
    },
  });
}
