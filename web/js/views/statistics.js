// statistics.js - Statistics: the tables every CUDA profiler prints (Nsight
// Systems' `nsys stats`) for the aggregation, one tab each (our
// view_dl_stats_* views): CUDA API, GPU kernels, kernel launch
// configurations, memory operations by time and by size, OS runtime calls,
// NVTX ranges and their GPU projection. Each tab has a bar chart of its top
// entries; a click on an API name shows the ops that called it, one on a
// kernel the ops and launches by iteration of kernels of its short name.
// Params: tab, sel (the selected row: an API name, a demangled kernel name,
// or that with its grid and block), kname (a selected kernel's short name,
// the key of DLProf's kernel views), table state under '<tab>.' and 'd1.',
// 'd2.' (the detail tables).

import { get } from '../api.js';
import * as router from '../router.js';
import { h, replace, fmtInt, fmtTime, fmtNs, longText, busyUntil } from '../util.js';
import { DataTable } from '../table.js';
import { Chart, COLORS } from '../charts.js';
import { viewHeader, aggrLine, iterNames, stepColumn } from './common.js';

const DETAIL_PARAMS = ['d1.sort', 'd1.order', 'd1.offset', 'd1.limit', 'd1.filter', 'd2.sort', 'd2.order', 'd2.offset', 'd2.limit', 'd2.filter'];
const TOP = 10;

/** Bytes as MB (10^6, as nsys stats), the exact count as tooltip. */
function mbSpan(v) {
  if (v === null || v === undefined) return '–';
  const n = Number(v);
  return h('span', { class: 'num-bytes', title: `${fmtInt(Math.round(n))} bytes`, dataset: { bytes: String(v) } }, `${(n / 1e6).toFixed(3)} MB`);
}

/** The statistics columns (nsys stats' Time %, Total, count, Avg, Med, Min, Max, StdDev). */
function timeStats(countKey, countLabel) {
  return [
    { key: 'time_pct', label: 'Time (%)', type: 'pct', title: 'Share of the total time of the rows of this table' },
    { key: 'total_time', label: 'Total', type: 'time' },
    { key: countKey, label: countLabel, type: 'int' },
    { key: 'avg', label: 'Avg', type: 'time' },
    { key: 'med', label: 'Med', type: 'time' },
    { key: 'min', label: 'Min', type: 'time' },
    { key: 'max', label: 'Max', type: 'time' },
    { key: 'stddev', label: 'StdDev', type: 'time', title: 'Sample standard deviation' },
  ];
}

const nameCol = (label, max = 110) => ({ key: 'name', label, cls: 'name', render: (row) => longText(row.name, max) });

const TABS = [
  {
    id: 'api',
    title: 'CUDA API',
    endpoint: 'dl_stats_cuda_api',
    noun: 'API functions',
    report: 'cuda_api_sum',
    columns: [...timeStats('num_calls', 'Calls'), nameCol('API Name')],
    hint: 'CUDA runtime and driver calls (host time). Click a function to see the ops that called it.',
    empty: 'No CUDA API calls in the aggregated iterations.',
    select: (row) => row.name,
  },
  {
    id: 'kernels',
    title: 'GPU Kernels',
    endpoint: 'dl_stats_kernels',
    noun: 'kernels',
    report: 'cuda_gpu_kern_sum',
    columns: [
      ...timeStats('instances', 'Instances'),
      nameCol('Kernel Name'),
      { key: 'grid', label: 'Grid', cls: 'nowrap', title: 'The commonest grid of the kernel' },
      { key: 'block', label: 'Block', cls: 'nowrap', title: 'The commonest block of the kernel' },
      { key: 'configs', label: 'Configs', type: 'int', title: 'Distinct grid/block configurations (see Launch Configurations)' },
    ],
    hint: 'Kernels by demangled name. Click a kernel to see its ops and its launches by iteration.',
    empty: 'No kernels in the aggregated iterations.',
    chartLabel: (row) => row.kernel_name,
    // a row is one demangled name; its details are those of its short name
    // (DLProf's views key kernels by it), which template instantiations share
    select: (row) => row.name,
    detail: (row) => row.kernel_name,
  },
  {
    id: 'configs',
    title: 'Launch Configurations',
    endpoint: 'dl_stats_kernel_configs',
    noun: 'configurations',
    report: 'cuda_gpu_kern_gb_sum',
    columns: [
      ...timeStats('instances', 'Instances'),
      { key: 'grid', label: 'Grid', cls: 'nowrap' },
      { key: 'block', label: 'Block', cls: 'nowrap' },
      nameCol('Kernel Name', 90),
    ],
    hint: 'Kernels per grid and block configuration. Click a row to see the kernel’s ops and launches.',
    empty: 'No kernels in the aggregated iterations.',
    chartLabel: (row) => `${row.kernel_name} <<<${row.grid}>>> <<<${row.block}>>>`,
    select: (row) => `${row.name} <<<${row.grid}>>> <<<${row.block}>>>`,
    detail: (row) => row.kernel_name,
  },
  {
    id: 'mem-time',
    title: 'Memory by Time',
    endpoint: 'dl_stats_memory',
    noun: 'operations',
    report: 'cuda_gpu_mem_time_sum',
    columns: [...timeStats('count', 'Count'), { key: 'name', label: 'Operation', cls: 'name' }],
    hint: 'GPU time of memory copies and memsets, per kind.',
    empty: 'No memory operations in the aggregated iterations.',
  },
  {
    id: 'mem-size',
    title: 'Memory by Size',
    endpoint: 'dl_stats_memory',
    noun: 'operations',
    report: 'cuda_gpu_mem_size_sum',
    sort: 'total_bytes',
    order: 'desc',
    bytes: true,
    columns: [
      { key: 'total_bytes', label: 'Total', type: 'int', render: (row) => mbSpan(row.total_bytes) },
      { key: 'count', label: 'Count', type: 'int' },
      { key: 'avg_bytes', label: 'Avg', type: 'int', render: (row) => mbSpan(row.avg_bytes) },
      { key: 'med_bytes', label: 'Med', type: 'int', render: (row) => mbSpan(row.med_bytes) },
      { key: 'min_bytes', label: 'Min', type: 'int', render: (row) => mbSpan(row.min_bytes) },
      { key: 'max_bytes', label: 'Max', type: 'int', render: (row) => mbSpan(row.max_bytes) },
      { key: 'stddev_bytes', label: 'StdDev', type: 'int', render: (row) => mbSpan(row.stddev_bytes) },
      { key: 'name', label: 'Operation', cls: 'name' },
    ],
    hint: 'Bytes moved by memory copies and set by memsets, per kind (MB = 10⁶ bytes).',
    empty: 'No memory operations in the aggregated iterations.',
  },
  {
    id: 'osrt',
    title: 'OS Runtime',
    endpoint: 'dl_stats_osrt',
    noun: 'functions',
    report: 'osrt_sum',
    columns: [...timeStats('num_calls', 'Calls'), { key: 'name', label: 'Function', cls: 'name' }],
    hint: 'OS runtime library calls (host time).',
    empty:
      'No OS runtime calls: the profile holds none. Only Nsight Systems records them (nsys profile -t osrt); PyTorch profiler traces and dlprof’s own collector do not.',
  },
  {
    id: 'nvtx',
    title: 'NVTX Ranges',
    endpoint: 'dl_stats_nvtx',
    noun: 'ranges',
    report: 'nvtx_sum',
    columns: [...timeStats('instances', 'Instances'), { key: 'style', label: 'Style' }, nameCol('Range')],
    hint: 'NVTX ranges of the aggregation’s domain (CPU time), by name and style.',
    empty: 'No NVTX ranges in the aggregated iterations.',
  },
  {
    id: 'nvtx-gpu',
    title: 'NVTX GPU Projection',
    endpoint: 'dl_stats_nvtx_gpu_proj',
    noun: 'ranges',
    report: 'nvtx_gpu_proj_sum',
    chartKey: 'total_proj_time',
    columns: [
      {
        key: 'total_proj_time',
        label: 'Total Proj',
        type: 'time',
        title: 'From the first GPU start to the last GPU end of the work each range launched, summed',
      },
      { key: 'total_range_time', label: 'Total Range', type: 'time', title: 'CPU time of the ranges, summed' },
      { key: 'range_instances', label: 'Instances', type: 'int' },
      { key: 'proj_avg', label: 'Proj Avg', type: 'time' },
      { key: 'proj_med', label: 'Proj Med', type: 'time' },
      { key: 'proj_min', label: 'Proj Min', type: 'time' },
      { key: 'proj_max', label: 'Proj Max', type: 'time' },
      { key: 'proj_stddev', label: 'Proj StdDev', type: 'time' },
      { key: 'total_gpu_ops', label: 'GPU Ops', type: 'int' },
      { key: 'avg_range_level', label: 'Avg Level', type: 'float' },
      { key: 'avg_num_child', label: 'Avg Children', type: 'float' },
      { key: 'style', label: 'Style' },
      nameCol('Range'),
    ],
    hint: 'NVTX ranges projected onto the GPU: the span of the kernels and memory operations each range launched.',
    empty: 'No NVTX range launched GPU work in the aggregated iterations.',
  },
];

/** The tabs as the profile names them: its GPU API is HIP on AMD GPUs (ctx.gpuApi). */
function tabsFor(ctx) {
  const api = ctx.gpuApi || 'CUDA';
  if (api === 'CUDA') return TABS;
  return TABS.map((t) =>
    t.id === 'api'
      ? {
          ...t,
          title: `${api} API`,
          hint: `${api} runtime calls (host time). Click a function to see the ops that called it.`,
          empty: `No ${api} API calls in the aggregated iterations.`,
        }
      : t,
  );
}

function tabOf(tabs, route, fallback) {
  return tabs.find((t) => t.id === route.params.tab) || fallback || tabs[0];
}

/* The first of the tabs whose table has rows in the route's aggregation
 * (the first tab when none has, or the counts cannot be read): a CPU-only
 * profile opens on its NVTX ranges, not on an empty CUDA API table. */
function firstWithRows(tabs, ctx, route) {
  return Promise.all(
    tabs.map((t) =>
      get(t.endpoint, { ...ctx.base(route), limit: 1 }, { quiet: true }).then(
        (d) => Number(d.total) > 0,
        () => false,
      ),
    ),
  ).then((has) => tabs[has.indexOf(true)] || tabs[0]);
}

/** A horizontal bar chart of a tab's top rows. */
function barChart(canvas) {
  return new Chart(canvas, {
    type: 'bar',
    data: { labels: [], datasets: [{ data: [], backgroundColor: COLORS.tc, borderRadius: 3, maxBarThickness: 22 }] },
    options: {
      indexAxis: 'y',
      scales: {
        x: {
          beginAtZero: true,
          grid: { color: '#eef1f5' },
          ticks: { callback: (v) => (canvas.dataset.unit === 'bytes' ? `${Number(v) / 1e6} MB` : fmtTime(v)) },
        },
        y: { grid: { display: false }, ticks: { autoSkip: false } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items) => (items.length ? canvas.fullLabels[items[0].dataIndex] : ''),
            label: (c) => (canvas.dataset.unit === 'bytes' ? ` ${fmtInt(c.parsed.x)} bytes` : ` ${fmtTime(c.parsed.x)} (${fmtNs(c.parsed.x)})`),
          },
        },
      },
    },
  });
}

const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export default {
  mount(root, ctx) {
    const route0 = router.current();
    root.append(viewHeader('Statistics', aggrLine(ctx, route0)));
    const tabs = tabsFor(ctx);
    const present = tabs.filter((t) => ctx.has(`view_${t.endpoint}`));
    if (!present.length) {
      root.append(
        h(
          'div',
          { class: 'note note-missing', dataset: { missing: 'view_dl_stats_cuda_api' } },
          `This database was written by ${ctx.writer()} and has no statistics tables (view_dl_stats_cuda_api and the other view_dl_stats_* views are missing). ` +
            'DLProf never wrote them: they come from this project’s dlprof. Run dlprof --database=<Nsight Systems export> ' +
            'to see the CUDA API, kernel, memory, OS runtime and NVTX statistics of the profile.',
        ),
      );
      return {};
    }

    const tabBar = h(
      'div',
      { class: 'tabs', role: 'tablist', 'aria-label': 'Statistics tables' },
      present.map((t) =>
        h('a', { class: 'tab', role: 'tab', href: ctx.href('statistics', { tab: t.id }), dataset: { tab: t.id }, 'aria-selected': 'false' }, t.title),
      ),
    );
    const canvas = h('canvas', { role: 'img', 'aria-label': 'Top entries' });
    const chartTitle = h('h2', { class: 'card-title' });
    const chartSub = h('span', { class: 'card-count' });
    const chartEmpty = h('div', { class: 'chart-empty', hidden: true });
    const chartCard = h(
      'section',
      { class: 'card', dataset: { panel: 'stats-chart' } },
      h('header', { class: 'card-head' }, h('div', { class: 'card-heading' }, chartTitle, chartSub)),
      h('div', { class: 'card-body' }, h('div', { class: 'chart-wrap chart-stats' }, canvas), chartEmpty),
    );
    const chart = Chart ? barChart(canvas) : null;
    const tableBox = h('div', { class: 'stats-table' });
    const detailBox = h('div', { class: 'stats-detail' });
    root.append(tabBar, chartCard, tableBox, detailBox);

    const tables = new Map();
    const tableOf = (t) => {
      if (!tables.has(t.id)) {
        tables.set(
          t.id,
          new DataTable({
            id: `stats-${t.id}`,
            title: t.title,
            endpoint: t.endpoint,
            prefix: `${t.id}.`,
            noun: t.noun,
            columns: t.columns,
            sort: t.sort,
            order: t.order,
            baseParams: (r) => ctx.base(r),
            rowKey: t.select ? t.select : null,
            selected: t.select ? (r) => r.params.sel : null,
            onRowClick: t.select
              ? (row) => {
                  const c = { sel: t.select(row), kname: t.detail ? t.detail(row) : null };
                  for (const k of DETAIL_PARAMS) c[k] = null;
                  router.update(c);
                }
              : null,
            hint: t.hint,
            empty: t.empty,
            filterPlaceholder: 'Filter by name…',
          }),
        );
      }
      return tables.get(t.id);
    };

    /* detail tables: where the time of the selected API or kernel went */
    const apiOps = new DataTable({
      id: 'stats-api-ops',
      title: 'Ops that called it',
      endpoint: 'dl_stats_api_ops',
      prefix: 'd1.',
      noun: 'ops',
      columns: [
        { key: 'op_node_id', label: 'Op ID', cls: 'nowrap', render: (row) => h('a', { href: ctx.href('ops', { op: row.op_node_id }) }, row.op_node_id) },
        { key: 'op_node_name', label: 'Op Name', type: 'path', cls: 'name' },
        { key: 'op_node_type', label: 'Op Type' },
        { key: 'calls', label: 'Calls', type: 'int' },
        { key: 'total_time', label: 'API Time', type: 'time' },
      ],
      baseParams: (r) => (r.params.sel ? { ...ctx.base(r), name: r.params.sel } : null),
      placeholder: 'Select an API function above to see the ops that called it.',
      empty: 'No op of this aggregation called it.',
      filterPlaceholder: 'Filter ops…',
    });
    const kernelOps = ctx.has('view_kernel_summaries')
      ? new DataTable({
          id: 'stats-kernel-ops',
          title: 'Its ops',
          endpoint: 'kernel_summaries',
          prefix: 'd1.',
          noun: 'ops',
          columns: [
            { key: 'op_node_id', label: 'Op ID', cls: 'nowrap', render: (row) => h('a', { href: ctx.href('ops', { op: row.op_node_id }) }, row.op_node_id) },
            { key: 'calls', label: 'Calls', type: 'int' },
            { key: 'gpu_time', label: 'GPU Time', type: 'time' },
            { key: 'avg', label: 'Avg', type: 'time' },
            { key: 'min', label: 'Min', type: 'time' },
            { key: 'max', label: 'Max', type: 'time' },
            { key: 'uses_tc', label: 'Uses TC', type: 'bool' },
          ],
          baseParams: (r) => (r.params.sel ? { ...ctx.base(r), kernel_name: r.params.kname || r.params.sel } : null),
          placeholder: 'Select a kernel above to see its ops.',
          empty: 'No op launched this kernel.',
          filterPlaceholder: 'Filter ops…',
        })
      : null;
    /* the trace's names of the iterations (ProfilerStep#N) in a Step column, where it has them */
    const step = stepColumn();
    const namesP = iterNames(ctx, ctx.base(route0).aggr_id).then((n) => step.setNames(n));
    const kernelIters = ctx.has('view_iteration_kernels')
      ? new DataTable({
          id: 'stats-kernel-iterations',
          title: 'Its launches by iteration',
          endpoint: 'iteration_kernels',
          prefix: 'd2.',
          noun: 'launches',
          columns: [
            {
              key: 'iter_value',
              label: 'Iteration',
              type: 'int',
              render: (row) => h('a', { href: ctx.href('kernels-by-iteration', { iter: row.iter_value }) }, fmtInt(row.iter_value)),
            },
            step,
            { key: 'op_node_name', label: 'Op Name', type: 'path', cls: 'name' },
            { key: 'device_id', label: 'Device', type: 'int' },
            { key: 'kernel_timestamp', label: 'Timestamp', type: 'timestamp' },
            { key: 'kernel_duration', label: 'GPU Time', type: 'time' },
            { key: 'grid', label: 'Grid', cls: 'nowrap' },
            { key: 'block', label: 'Block', cls: 'nowrap' },
          ],
          baseParams: (r) => (r.params.sel ? { ...ctx.base(r), kernel_name: r.params.kname || r.params.sel } : null),
          placeholder: 'Select a kernel above to see its launches.',
          empty: 'No launches.',
          filterPlaceholder: 'Filter op…',
        })
      : null;

    let shown = null; // the tab whose table and chart are in the page
    let chartKey = null;
    const loadChart = async (t, r) => {
      const key = JSON.stringify([t.id, ctx.base(r)]);
      if (key === chartKey) return;
      chartKey = key;
      const valueKey = t.chartKey || (t.bytes ? 'total_bytes' : 'total_time');
      replace(chartTitle, `Top ${TOP}: ${t.title}`);
      replace(chartSub, t.bytes ? 'by total bytes' : t.chartKey ? 'by projected GPU time' : 'by total time');
      try {
        const d = await busyUntil(canvas, get(t.endpoint, { ...ctx.base(r), sort: valueKey, order: 'desc', limit: TOP }));
        if (key !== chartKey || !chart) return;
        const rows = d.rows.filter((row) => Number(row[valueKey]) > 0);
        canvas.hidden = !rows.length;
        chartEmpty.hidden = !!rows.length;
        replace(chartEmpty, t.empty);
        canvas.dataset.unit = t.bytes ? 'bytes' : 'ns';
        canvas.fullLabels = rows.map((row) => cut(String(t.chartLabel ? t.chartLabel(row) : row.name), 300));
        const seen = new Map(); // short kernel names repeat: number the repeats
        chart.data.labels = rows.map((row) => {
          const label = cut(String(t.chartLabel ? t.chartLabel(row) : row.name), 48);
          seen.set(label, (seen.get(label) || 0) + 1);
          return seen.get(label) > 1 ? `${label} (${seen.get(label)})` : label;
        });
        chart.data.datasets[0].data = rows.map((row) => Number(row[valueKey]));
        chart.update();
      } catch {
        if (key === chartKey) chartKey = null; // the banner shows the failure
      }
    };

    let opening = null; // the tab shown without a tab parameter, once known
    const openingP = firstWithRows(present, ctx, route0).then((t) => {
      opening = t;
    });
    busyUntil(tableBox, openingP); // the tab to open is not known yet
    if (kernelIters) busyUntil(kernelIters.el, namesP);
    let destroyed = false;
    const show = (r) => {
      const t = tabOf(tabs, r, opening);
      const active = present.includes(t) ? t : present[0];
      for (const a of tabBar.children) {
        const on = a.dataset.tab === active.id;
        a.classList.toggle('active', on);
        a.setAttribute('aria-selected', on ? 'true' : 'false');
      }
      const table = tableOf(active);
      if (shown !== active.id) {
        shown = active.id;
        replace(tableBox, table.el);
        const details = active.id === 'api' ? [apiOps] : active.id === 'kernels' || active.id === 'configs' ? [kernelOps, kernelIters] : [];
        replace(
          detailBox,
          details.filter(Boolean).map((d) => d.el),
        );
      }
      loadChart(active, r);
      table.update(r);
      const sel = r.params.sel;
      const kname = r.params.kname || sel; // the short name the kernel details are of
      if (active.id === 'api') {
        apiOps.setTitle(sel ? ['Ops that called ', h('code', { class: 'id' }, sel)] : 'Ops that called it');
        apiOps.update(r);
      } else if (active.id === 'kernels' || active.id === 'configs') {
        if (kernelOps) {
          kernelOps.setTitle(sel ? ['Ops launching kernels named ', h('code', { class: 'id' }, kname)] : 'Ops launching it');
          kernelOps.update(r);
        }
        if (kernelIters) {
          kernelIters.setTitle(sel ? ['Launches of kernels named ', h('code', { class: 'id' }, kname), ' by iteration'] : 'Launches by iteration');
          namesP.then(() => kernelIters.update(r));
        }
      }
    };
    return {
      update(r) {
        if (r.params.tab) show(r);
        else openingP.then(() => !destroyed && show(router.current()));
      },
      destroy() {
        destroyed = true;
        if (chart) chart.destroy();
      },
    };
  },
};
