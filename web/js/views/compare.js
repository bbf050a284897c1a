// compare.js - two runs compared: #/compare?base=<run>&run=<run>.
//
// The summary (GET /api/v1/dl_compare_summary): iteration time of each run
// (mean, median, spread) and the difference of the means with its 95 %
// confidence interval, GPU and tensor-core utilization, the resource
// breakdown, the counts of added, removed and changed kernels and ops, the
// expert findings that appeared or went away and the notes on what differs
// (GPUs, iteration counts, key ops). A chart of both runs' per-iteration
// times (dl_compare_iterations). Kernel by kernel and op by op
// (dl_compare_kernels, dl_compare_ops): server-paged tables, the biggest
// change first unless sorted, their state in the URL under k. and o.

import { get, getAll } from '../api.js';
import * as router from '../router.js';
import { h, replace, fmtInt, fmtPct, fmtTime, fmtNs, timeSpan, note } from '../util.js';
import { Chart, COLORS } from '../charts.js';
import { DataTable } from '../table.js';
import { viewHeader, card } from './common.js';

const STATUS_LABELS = { added: 'added', removed: 'removed', changed: 'changed', same: 'same' };

/** "+12.3 %" / "−4.0 %" of b against a, or '–'. */
function change(a, b) {
  const x = Number(a);
  const y = Number(b);
  if (a === null || b === null || !Number.isFinite(x) || !Number.isFinite(y) || x === 0) return '–';
  const p = ((y - x) / Math.abs(x)) * 100;
  return `${p >= 0 ? '+' : '−'}${Math.abs(p).toFixed(1)} %`;
}

/** A signed time difference. */
function diffTime(ns) {
  if (ns === null || ns === undefined || !Number.isFinite(Number(ns))) return '–';
  const n = Number(ns);
  return `${n > 0 ? '+' : n < 0 ? '−' : ''}${fmtTime(Math.abs(n))}`;
}

function statusBadge(s) {
  return h('span', { class: ['status', `status-${s}`] }, STATUS_LABELS[s] || String(s ?? ''));
}

function deltaCell(row) {
  const d = Number(row.gpu_time) - Number(row.base_gpu_time);
  return h('span', { class: ['num-time', d > 0 ? 'worse' : d < 0 ? 'better' : null], title: fmtNs(d) }, diffTime(d));
}

/** The summary's rows: [label, base, run, change, key]. */
function summaryRows(s) {
  const pctRow = (label, key) => [label, fmtPct(s[`base_${key}`]), fmtPct(s[key]), change(s[`base_${key}`], s[key]), key];
  const timeRow = (label, key) => [label, timeSpan(s[`base_${key}`]), timeSpan(s[key]), change(s[`base_${key}`], s[key]), key];
  return [
    ['GPUs', s.base_gpu_names || '–', s.gpu_names || '–', s.base_gpu_names === s.gpu_names ? 'same' : 'differ', 'gpu_names'],
    ['Key op', s.base_key_op || '–', s.key_op || '–', s.base_key_op === s.key_op ? 'same' : 'differ', 'key_op'],
    ['Iterations', fmtInt(s.base_iterations), fmtInt(s.iterations), change(s.base_iterations, s.iterations), 'iterations'],
    timeRow('Mean iteration time', 'iter_mean_ns'),
    timeRow('Median iteration time', 'iter_median_ns'),
    timeRow('Standard deviation', 'iter_stddev_ns'),
    timeRow('Wall clock time', 'wall_clock_time'),
    pctRow('GPU utilization', 'gpu_utilization'),
    pctRow('Tensor core utilization', 'tc_utilization'),
    pctRow('Using tensor cores', 'tc_duration_pct'),
    pctRow('Not using tensor cores', 'non_tc_duration_pct'),
    pctRow('Memory', 'memory_duration_pct'),
    pctRow('Data loader', 'dataloader_duration_pct'),
    pctRow('I/O', 'io_duration_pct'),
    pctRow('CPU', 'cpu_duration_pct'),
    pctRow('Other', 'other_duration_pct'),
  ];
}

/** The verdict line on the difference of the mean iteration times. */
function verdict(s) {
  const d = s.iter_mean_diff_ns;
  if (d === null || d === undefined) return 'The mean iteration times cannot be compared.';
  const pct = Number(s.iter_mean_diff_pct);
  const word = d > 0 ? 'slower' : d < 0 ? 'faster' : 'as fast';
  let text = `The run is ${d === 0 ? 'as fast as' : `${Math.abs(pct).toFixed(1)} % ${word} than`} the base (mean iteration time ${diffTime(d)})`;
  if (s.iter_mean_diff_ci_low_ns !== null && s.iter_mean_diff_ci_high_ns !== null) {
    text += `; 95 % confidence interval of the difference: ${diffTime(s.iter_mean_diff_ci_low_ns)} to ${diffTime(s.iter_mean_diff_ci_high_ns)}`;
    text += ` (${Number(s.iter_mean_diff_ci_low_pct).toFixed(1)} % to ${Number(s.iter_mean_diff_ci_high_pct).toFixed(1)} %)`;
  } else {
    text += '; no confidence interval (a side has fewer than 2 iterations)';
  }
  return `${text}.`;
}

const lines = (s) =>
  String(s || '')
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);

function compareColumns(nameCols) {
  return [
    ...nameCols,
    { key: 'status', label: 'Status', render: (r) => statusBadge(r.status) },
    { key: 'base_calls', label: 'Base calls', type: 'int' },
    { key: 'calls', label: 'Calls', type: 'int' },
    { key: 'base_gpu_time', label: 'Base GPU time', type: 'time' },
    { key: 'gpu_time', label: 'GPU time', type: 'time' },
    { key: 'delta', label: 'Change', type: 'time', sortable: false, render: deltaCell, title: 'GPU time of the run minus that of the base' },
  ];
}

export default {
  mount(root, ctx) {
    const head = h('div');
    const summaryCard = card('Summary', { id: 'compare-summary' });
    const chartCard = card('Iteration times', { id: 'compare-chart' });
    const canvas = h('canvas', { class: 'compare-chart', 'aria-label': 'Per-iteration times of both runs', role: 'img' });
    chartCard.body.append(h('div', { class: 'chart-box' }, canvas));
    let chart = null;
    const pair = (r) => (r.params.base && r.params.run ? { base: r.params.base, run: r.params.run } : null);
    const kernels = new DataTable({
      id: 'compare-kernels',
      title: 'Kernels',
      endpoint: 'dl_compare_kernels',
      prefix: 'k.',
      noun: 'kernels',
      columns: compareColumns([{ key: 'kernel_name', label: 'Kernel', type: 'long', max: 90 }]),
      baseParams: pair,
      empty: 'No kernels in either run.',
      filterPlaceholder: 'Filter kernels…',
    });
    const ops = new DataTable({
      id: 'compare-ops',
      title: 'Ops',
      endpoint: 'dl_compare_ops',
      prefix: 'o.',
      noun: 'ops',
      columns: compareColumns([
        { key: 'op_node_name', label: 'Op', type: 'path' },
        { key: 'op_node_type', label: 'Type', type: 'ident' },
        { key: 'direction', label: 'Direction' },
      ]),
      baseParams: pair,
      empty: 'No ops in either run.',
      filterPlaceholder: 'Filter ops…',
    });
    root.append(head, summaryCard.el, chartCard.el, kernels.el, ops.el);
    let loadedKey = null;

    function runLink(id) {
      const row = ctx.runRow(id);
      return h('a', { href: router.href('dashboard', { run: id }), class: 'run-link', title: row ? row.path : id }, row ? row.name : id);
    }

    function renderSummary(s) {
      const notes = lines(s.notes);
      const appeared = lines(s.findings_appeared);
      const gone = lines(s.findings_gone);
      const rows = summaryRows(s);
      replace(
        summaryCard.body,
        h('p', { class: ['verdict', s.iter_mean_diff_ns > 0 ? 'worse' : s.iter_mean_diff_ns < 0 ? 'better' : null] }, verdict(s)),
        notes.length
          ? h(
              'div',
              { class: 'note compare-notes' },
              h('strong', null, 'What differs: '),
              h(
                'ul',
                null,
                notes.map((n) => h('li', null, n)),
              ),
            )
          : null,
        h(
          'table',
          { class: 'data compare-summary' },
          h(
            'thead',
            null,
            h('tr', null, h('th', null, ''), h('th', { class: 'num' }, 'Base'), h('th', { class: 'num' }, 'Run'), h('th', { class: 'num' }, 'Change')),
          ),
          h(
            'tbody',
            null,
            rows.map(([label, a, b, c, key]) =>
              h(
                'tr',
                { dataset: { key } },
                h('th', { scope: 'row' }, label),
                h('td', { class: 'num' }, a),
                h('td', { class: 'num' }, b),
                h('td', { class: 'num' }, c),
              ),
            ),
          ),
        ),
        h(
          'p',
          { class: 'compare-counts' },
          `Kernels: ${fmtInt(s.kernels_added)} added, ${fmtInt(s.kernels_removed)} removed, ${fmtInt(s.kernels_changed)} changed, ${fmtInt(s.kernels_same)} the same. `,
          `Ops: ${fmtInt(s.ops_added)} added, ${fmtInt(s.ops_removed)} removed, ${fmtInt(s.ops_changed)} changed, ${fmtInt(s.ops_same)} the same.`,
        ),
        h(
          'div',
          { class: 'compare-findings' },
          h('h3', null, 'Findings that appeared'),
          appeared.length
            ? h(
                'ul',
                { class: 'findings-appeared' },
                appeared.map((f) => h('li', null, f)),
              )
            : h('p', { class: 'muted findings-appeared' }, 'None.'),
          h('h3', null, 'Findings that went away'),
          gone.length
            ? h(
                'ul',
                { class: 'findings-gone' },
                gone.map((f) => h('li', null, f)),
              )
            : h('p', { class: 'muted findings-gone' }, 'None.'),
        ),
      );
    }

    function renderChart(rows) {
      const side = (name) => rows.filter((r) => r.side === name).sort((a, b) => a.iter_value - b.iter_value);
      const b = side('base');
      const r = side('run');
      const n = Math.max(b.length, r.length);
      const data = {
        labels: Array.from({ length: n }, (_, i) => String(i + 1)),
        datasets: [
          { label: 'Base', data: b.map((x) => x.duration), borderColor: COLORS.cpu, backgroundColor: COLORS.cpu, pointRadius: n > 60 ? 0 : 3 },
          { label: 'Run', data: r.map((x) => x.duration), borderColor: COLORS.tc, backgroundColor: COLORS.tc, pointRadius: n > 60 ? 0 : 3 },
        ],
      };
      canvas.dataset.base = String(b.length);
      canvas.dataset.run = String(r.length);
      if (!Chart) return;
      if (chart) chart.destroy();
      chart = new Chart(canvas, {
        type: 'line',
        data,
        options: {
          animation: false,
          maintainAspectRatio: false,
          interaction: { mode: 'index', intersect: false },
          scales: {
            x: { title: { display: true, text: 'Aggregated iteration (in order)' } },
            y: { beginAtZero: true, title: { display: true, text: 'Time' }, ticks: { callback: (v) => fmtTime(v) } },
          },
          plugins: { tooltip: { callbacks: { label: (c) => ` ${c.dataset.label}: ${fmtTime(c.parsed.y)}` } } },
        },
      });
    }

    async function load(p) {
      const key = `${p.base}|${p.run}`;
      if (key === loadedKey) return;
      loadedKey = key;
      replace(
        head,
        viewHeader(
          'Compare runs',
          h(
            'span',
            null,
            'Base ',
            runLink(p.base),
            ' and run ',
            runLink(p.run),
            ' · ',
            h('a', { href: router.href('compare', { base: p.run, run: p.base }), class: 'swap' }, 'swap'),
          ),
        ),
      );
      replace(summaryCard.body, h('div', { class: 'loading' }, 'Comparing…'));
      try {
        const [s, it] = await Promise.all([get('dl_compare_summary', p), getAll('dl_compare_iterations', p)]);
        if (loadedKey !== key) return;
        renderSummary(s);
        renderChart(it.rows);
        summaryCard.el.dataset.loaded = key;
      } catch (e) {
        if (loadedKey === key) replace(summaryCard.body, note(`The runs cannot be compared: ${e.message}`));
      }
    }

    return {
      update(route) {
        const p = pair(route);
        if (!p) {
          replace(head, viewHeader('Compare runs'));
          replace(summaryCard.body, note('Pick a base and a run on the runs page.'));
          return;
        }
        if (!ctx.runs.length) ctx.reloadRuns().catch(() => null);
        load(p);
        kernels.update(route);
        ops.update(route);
      },
      destroy() {
        if (chart) chart.destroy();
      },
    };
  },
};
