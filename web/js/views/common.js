// common.js - pieces shared by several views: cards, column sets, the
// iteration chart's data and its range controls, and the iterations' names.

import { getAll } from '../api.js';
import { h, replace, fmtInt, timeSpan } from '../util.js';
import { ITER_CATEGORIES, COLORS } from '../charts.js';
import * as router from '../router.js';

/** A titled card. Returns {el, body, head}. */
export function card(title, opts = {}) {
  const head = h(
    'header',
    { class: 'card-head' },
    h('div', { class: 'card-heading' }, h('h2', { class: 'card-title' }, title), opts.sub || null),
    h('div', { class: 'card-tools' }, opts.tools || null),
  );
  const body = h('div', { class: ['card-body', opts.bodyClass] });
  const el = h('section', { class: ['card', opts.cls], dataset: opts.id ? { panel: opts.id } : null }, head, body);
  return { el, body, head };
}

/** The page heading of a view with an optional line below it. */
export function viewHeader(title, sub) {
  return h('div', { class: 'view-head' }, h('h1', { class: 'view-title' }, title), sub ? h('p', { class: 'view-sub' }, sub) : null);
}

/* ---- iteration names (view_dl_iteration_names) --------------------------- */

const namesByAggr = new Map(); // aggr_id -> Promise of Map iter_value -> name

/**
 * The names the trace gives an aggregation's iterations (a PyTorch profiler
 * trace's "ProfilerStep#16" for iteration 0), as a Promise of a Map
 * iter_value -> name. Fetched once per aggregation. Empty when the database
 * has no names (Nsight Systems exports) or no view_dl_iteration_names (NVIDIA's
 * files, older dldbs), and on a failure: the names only label numbers, so
 * without them the page shows the numbers alone and no error.
 */
export function iterNames(ctx, aggrId) {
  if (aggrId === null || aggrId === undefined || aggrId === '' || !ctx.has('view_dl_iteration_names')) return Promise.resolve(new Map());
  const key = String(aggrId);
  if (!namesByAggr.has(key)) {
    namesByAggr.set(
      key,
      getAll('dl_iteration_names', { aggr_id: key }, { quiet: true })
        .then((d) => new Map(d.rows.filter((r) => r.name !== null && r.name !== undefined && r.name !== '').map((r) => [Number(r.iter_value), String(r.name)])))
        .catch(() => {
          namesByAggr.delete(key); // a later view asks again
          return new Map();
        }),
    );
  }
  return namesByAggr.get(key);
}

/** "3 (ProfilerStep#19)", or "3" when iteration 3 has no name; fmt formats the number. */
export function iterLabel(iter, names, fmt = String) {
  const name = names && names.get(Number(iter));
  return name ? `${fmt(iter)} (${name})` : fmt(iter);
}

/** "ProfilerStep#16 to ProfilerStep#21" (one name when from = to), or '' when either has no name. */
export function stepRange(from, to, names) {
  const a = names && names.get(Number(from));
  const b = names && names.get(Number(to));
  if (!a || !b) return '';
  return a === b ? a : `${a} to ${b}`;
}

const STEP_TIP = 'The iteration’s name in the trace (the PyTorch profiler’s ProfilerStep#N), to match it with the training log';

/**
 * The Step column of an iteration table (rows with iter_value): hidden
 * until setNames() gives it names, so that a profile without names shows
 * the tables as before. Set the names before the table's first update.
 */
export function stepColumn() {
  const col = {
    key: 'iter_name',
    label: 'Step',
    sortable: false,
    hidden: true,
    cls: 'nowrap step',
    title: STEP_TIP,
    names: new Map(),
    render: (r) => col.names.get(Number(r.iter_value)) ?? '',
    setNames(names) {
      col.names = names || new Map();
      col.hidden = !col.names.size;
    },
  };
  return col;
}

/**
 * "Iterations 0 to 0 (1 aggregated) · key op: none" for the current
 * aggregation; with the iterations' names once they are in: "Iterations 0
 * to 5 (ProfilerStep#16 to ProfilerStep#21, 6 aggregated) · …".
 */
export function aggrLine(ctx, route) {
  const a = ctx.aggregation(route);
  if (!a) return null;
  const key = a.key_node_name ? `key op ${a.key_node_name}` : 'no key op';
  const domain = ctx.base(route).domain;
  const text = (steps) =>
    `Iterations ${a.iter_start} to ${a.iter_stop} (${steps ? `${steps}, ` : ''}${fmtInt(a.iter_aggregated)} aggregated) · ${key} · domain ${domain}`;
  const el = h('span', { class: 'aggr-line' }, text(''));
  iterNames(ctx, a.aggr_id).then((names) => {
    const steps = stepRange(a.iter_start, a.iter_stop, names);
    if (steps) {
      el.textContent = text(steps);
      el.dataset.steps = steps;
    }
  });
  return el;
}

/* ---- column sets (keys are view columns) -------------------------------- */

export function opColumns(ctx) {
  const pt = ctx.pytorch;
  return [
    {
      key: 'gpu_time',
      label: 'GPU Time',
      type: 'time',
      title: 'GPU time of the op’s kernels, memcpys and memsets, summed over its calls (overlaps within a call count once)',
    },
    { key: 'cpu_time', label: 'CPU Time', type: 'time', title: 'Total CPU time of the op' },
    { key: 'op_node_id', label: 'Op ID', type: 'ident' },
    { key: 'op_node_name', label: 'Op Name', type: 'path', cls: 'name' },
    { key: 'direction', label: 'Direction', hidden: !pt },
    { key: 'op_node_type', label: 'Op Type', type: 'ident' },
    { key: 'num_calls', label: 'Calls', type: 'int' },
    { key: 'tc_eligible', label: 'TC Eligible', type: 'bool', title: 'The op can use Tensor Cores' },
    { key: 'using_tc', label: 'Using TC', type: 'bool', title: 'At least one kernel of the op uses Tensor Cores' },
    { key: 'kernel_calls', label: 'Kernel Calls', type: 'int' },
    { key: 'data_type', label: 'Data Type' },
    { key: 'stack_trace', label: 'Stack Trace', type: 'stack', hidden: !pt, cls: 'stack' },
  ];
}

export function kernelRowColumns(withOpName) {
  return [
    withOpName ? { key: 'op_node_name', label: 'Op Name', type: 'path', cls: 'name' } : null,
    { key: 'kernel_name', label: 'Kernel Name', cls: 'name' },
    { key: 'device_id', label: 'Device', type: 'int' },
    { key: 'kernel_timestamp', label: 'Timestamp', type: 'timestamp', title: 'Start of the launching API call (session clock)' },
    { key: 'kernel_duration', label: 'GPU Time', type: 'time' },
    { key: 'uses_tc', label: 'Uses TC', type: 'bool' },
    { key: 'grid', label: 'Grid', cls: 'nowrap' },
    { key: 'block', label: 'Block', cls: 'nowrap' },
  ].filter(Boolean);
}

/**
 * Kernel busy time of an iteration: the time in it when a kernel runs (on any
 * GPU), overlapping kernels counted once: the resource breakdown's tensor-core
 * + other-kernel time (docs/dldb.md), not the sum of kernel durations.
 */
function kernelBusy(r) {
  return (Number(r.tc_duration) || 0) + (Number(r.non_tc_duration) || 0);
}

/* Tooltips of the iteration columns: what each one counts. */
export const ITER_TIPS = {
  launches: 'Kernels launched in the iteration (memcpys and memsets not counted)',
  tcLaunches: 'Launches of kernels that use Tensor Cores',
  busy: 'Time in the iteration when at least one kernel runs (on any GPU); overlapping kernels count once, so this is not the sum of kernel durations (the dashboard’s Kernel + Memory GPU Time sums durations). The bar is its share of the iteration duration',
  tcBusy: 'Time in the iteration when a Tensor Core kernel runs (overlaps count once)',
  memory: 'Time in the iteration when a memcpy or memset runs and no kernel does',
};

/** Columns of view_iterations_profiled; step: a stepColumn() shown after the iteration. */
export function iterationColumns(step = null) {
  return [
    { key: 'iter_value', label: 'Iteration', type: 'int' },
    step,
    { key: 'start_time', label: 'Start', type: 'timestamp', title: 'Start of the iteration (session clock)' },
    { key: 'duration', label: 'Duration', type: 'time' },
    { key: 'total_kernel_count', label: 'Kernel Launches', type: 'int', title: ITER_TIPS.launches },
    { key: 'using_tc_kernel_count', label: 'TC Kernel Launches', type: 'int', title: ITER_TIPS.tcLaunches },
    {
      key: 'kernel_busy',
      label: 'Kernel Busy Time',
      type: 'bar',
      sortable: false,
      title: ITER_TIPS.busy,
      render: (r) => barCell(kernelBusy(r), r.duration),
    },
    { key: 'tc_duration', label: 'TC Kernel Busy Time', type: 'time', title: ITER_TIPS.tcBusy },
    { key: 'memory_duration', label: 'Memory-Only Time', type: 'time', title: ITER_TIPS.memory },
  ].filter(Boolean);
}

/** A time with a thin bar showing value/whole. */
export function barCell(value, whole) {
  const frac = whole > 0 ? Math.max(0, Math.min(1, value / whole)) : 0;
  const bar = h('span', { class: 'bar' }, h('span', { class: 'bar-fill' }));
  bar.firstChild.style.width = `${Math.max(frac * 100, value > 0 ? 1 : 0)}%`;
  return h('span', { class: 'bar-cell' }, timeSpan(value), bar);
}

/* ---- iteration chart data ----------------------------------------------- */

/**
 * Chart data for iterations from..to: profiled iterations stacked by
 * category, the others (outside the aggregation) as one grey bar.
 * all: rows of view_iterations_all; prof: rows of view_iterations_profiled.
 * More iterations than maxBars are drawn per = ceil(count / maxBars)
 * consecutive iterations to a bar, each category at its mean over them (a
 * bar narrower than a pixel or two shows nothing; zooming in shows each
 * iteration). Returns {labels, datasets, first, last, per, count}: bar i
 * covers iterations first[i]..last[i].
 */
export function iterSeries(all, prof, from, to, profiledOnly, maxBars = Infinity) {
  const byIter = new Map(prof.map((r) => [Number(r.iter_value), r]));
  let rows = all.length
    ? all.map((r) => ({ iter: Number(r.iter_value), duration: Number(r.duration) }))
    : prof.map((r) => ({ iter: Number(r.iter_value), duration: Number(r.duration) }));
  if (profiledOnly) rows = rows.filter((r) => byIter.has(r.iter));
  rows = rows.filter((r) => (from === null || r.iter >= from) && (to === null || r.iter <= to));
  rows.sort((a, b) => a.iter - b.iter);
  const per = rows.length > maxBars ? Math.ceil(rows.length / Math.max(1, maxBars)) : 1;
  const first = [];
  const last = [];
  for (let i = 0; i < rows.length; i += per) {
    first.push(rows[i].iter);
    last.push(rows[Math.min(rows.length, i + per) - 1].iter);
  }
  const labels = first.map((f, i) => (f === last[i] ? String(f) : `${f}–${last[i]}`));
  /* value(r) per iteration -> per bar (the mean over the bar's iterations) */
  const bars = (value) => {
    if (per === 1) return rows.map(value);
    const out = [];
    for (let i = 0; i < rows.length; i += per) {
      const end = Math.min(rows.length, i + per);
      let sum = 0;
      for (let j = i; j < end; j++) sum += value(rows[j]);
      out.push(sum / (end - i));
    }
    return out;
  };
  const datasets = ITER_CATEGORIES.map(([label, key, color]) => {
    const data = bars((r) => {
      const p = byIter.get(r.iter);
      return p ? Number(p[key]) || 0 : 0;
    });
    return { label, data, backgroundColor: color, stack: 'it', $hasData: data.some((v) => v > 0) };
  });
  const outside = bars((r) => (byIter.has(r.iter) ? 0 : r.duration));
  datasets.push({ label: 'Outside aggregation', data: outside, backgroundColor: COLORS.outside, stack: 'it', $hasData: outside.some((v) => v > 0) });
  /* Series without a value draw nothing and are not in the legend: leave
   * them out, so thousands of iterations do not make empty bars. */
  const used = datasets.filter((d) => d.$hasData);
  return { labels, datasets: used.length ? used : datasets, first, last, per, count: rows.length };
}

/** ", N iterations to a bar (their mean)" when iterSeries grouped them, else "". */
export function barsNote(s) {
  return s.per > 1 ? `, ${fmtInt(s.per)} to a bar (their mean)` : '';
}

/**
 * From/To inputs for an iteration range kept in the URL (params from, to).
 * Returns {el, set(min, max, from, to)}.
 */
export function rangeControls(label = 'Iterations') {
  const fromEl = h('input', { type: 'number', class: 'range-in', min: 0, step: 1, 'aria-label': 'First iteration shown', dataset: { range: 'from' } });
  const toEl = h('input', { type: 'number', class: 'range-in', min: 0, step: 1, 'aria-label': 'Last iteration shown', dataset: { range: 'to' } });
  const reset = h('button', { type: 'button', class: 'btn btn-small', title: 'Show all iterations' }, 'Reset zoom');
  const apply = () => {
    let a = fromEl.value === '' ? null : Math.max(0, Math.floor(Number(fromEl.value)));
    let b = toEl.value === '' ? null : Math.max(0, Math.floor(Number(toEl.value)));
    if (a !== null && b !== null && a > b) {
      [a, b] = [b, a];
      // set() leaves the focused field alone: show the reordered range in both
      fromEl.value = String(a);
      toEl.value = String(b);
    }
    router.update({ from: a, to: b });
  };
  fromEl.addEventListener('change', apply);
  toEl.addEventListener('change', apply);
  reset.addEventListener('click', () => router.update({ from: null, to: null }));
  const el = h('div', { class: 'range-controls' }, h('span', { class: 'range-label' }, label), fromEl, h('span', null, 'to'), toEl, reset);
  return {
    el,
    set(min, max, from, to) {
      for (const i of [fromEl, toEl]) {
        i.min = String(min);
        i.max = String(max);
      }
      if (document.activeElement !== fromEl) fromEl.value = from === null ? '' : String(from);
      if (document.activeElement !== toEl) toEl.value = to === null ? '' : String(to);
      fromEl.placeholder = String(min);
      toEl.placeholder = String(max);
      reset.disabled = from === null && to === null;
    },
  };
}

/** Integer URL param or null. */
export function intParam(route, name) {
  const v = route.params[name];
  if (v === undefined || v === '' || !/^\d+$/.test(v)) return null;
  return Number(v);
}

/** A definition list of [label, value node, tooltip] items; empty values are skipped. */
export function kvList(items, cls) {
  return h(
    'dl',
    { class: ['kv', cls] },
    items
      .filter((it) => it && it[1] !== null && it[1] !== undefined && it[1] !== '')
      .map(([label, value, tip, key]) =>
        h(
          'div',
          { class: 'kv-item', dataset: key ? { key } : null },
          h('dt', { title: tip || null }, label, tip ? h('span', { class: 'info', 'aria-hidden': 'true' }, 'i') : null),
          h('dd', null, value),
        ),
      ),
  );
}

export { replace };
