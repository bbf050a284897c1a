// dashboard.js - the DLProf Viewer dashboard (peers.md A.3): four doughnuts,
// Performance Summary, Iteration Summary, Top 10 GPU Ops, System Config,
// Expert Systems and Guidance. A profile without GPU activity (no kernel,
// memcpy or memset in the aggregation) gets the CPU layout instead: Top 10
// CPU Ops by self CPU time and the iterations first, the GPU-only panels
// and the Tensor Core guidance left out, and one line saying why.

import { get, getAll } from '../api.js';
import * as router from '../router.js';
import { h, replace, fmtInt, fmtTime, fmtNs, fmtPct, timeSpan, pctSpan, linkify, loading, note } from '../util.js';
import { doughnut, setDoughnut, iterationChart, setIterations, iterMaxBars, COLORS, ITER_CATEGORIES } from '../charts.js';
import { cell } from '../table.js';
import { card, viewHeader, aggrLine, opColumns, iterSeries, barsNote, rangeControls, intParam, kvList, iterNames, iterLabel } from './common.js';
import { timelineLink } from './timeline.js';

const GUIDANCE = [
  ['Tensor Cores: what they are and how to use them', 'https://developer.nvidia.com/tensor-cores'],
  ['Automatic Mixed Precision (AMP)', 'https://developer.nvidia.com/automatic-mixed-precision'],
  ['Mixed-precision training guide', 'https://docs.nvidia.com/deeplearning/performance/mixed-precision-training/index.html'],
  ['Tensor Core requirements for matrix shapes', 'https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html'],
  ['Convolution performance and Tensor Cores', 'https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html'],
];

/* What the kernel panel's time is, and how it differs from Kernels by Iteration's. */
const KERNEL_TIME_TIP =
  'Summed GPU durations of every kernel, memcpy and memset in the aggregated iterations: overlapping ones each count. Kernels by Iteration’s Kernel Busy Time is the time when a kernel runs, overlaps counted once.';

function doughnutCard(id, title, opts = {}) {
  const canvas = h('canvas', { role: 'img', 'aria-label': title });
  const center = h('div', { class: 'donut-center' });
  const wrap = h('div', { class: 'donut-wrap' }, canvas, center);
  const c = card(title, { id, cls: 'donut-card', tools: opts.more || null });
  c.body.append(wrap);
  const foot = h('div', { class: 'donut-foot' });
  c.body.append(foot);
  return { ...c, canvas, center, foot, wrap };
}

function centerText(el, big, small, tip) {
  replace(el, h('span', { class: 'donut-big', title: tip || null }, big), small ? h('span', { class: 'donut-small' }, small) : null);
}

function failed(body, e) {
  replace(body, note(`Could not load: ${e.message}`, 'note note-error'));
}

/* The iteration data that the Iteration Summary draws and the kernel panel
 * counts launches from: null when the database has no profiled iterations. */
function loadIterations(env) {
  const { ctx, base } = env;
  if (!ctx.has('view_iterations_profiled')) return Promise.resolve(null);
  return Promise.all([
    ctx.has('view_iterations_all') ? getAll('iterations_all', { aggr_id: base.aggr_id }) : { rows: [] },
    getAll('iterations_profiled', base),
    env.namesP,
  ]).then(([a, p]) => ({ all: a.rows, prof: p.rows }));
}

/* The Iteration Summary for a route's from/to (its data in c.data once loaded). */
function drawIter(c, env, route) {
  if (!c.chart || !c.data) return;
  const { all, prof } = c.data;
  const src = all.length ? all : prof;
  const nums = src.map((r) => Number(r.iter_value));
  const min = nums.length ? Math.min(...nums) : 0;
  const max = nums.length ? Math.max(...nums) : 0;
  const from = intParam(route, 'from');
  const to = intParam(route, 'to');
  c.range.set(min, max, from, to);
  const s = iterSeries(all, prof, from, to, false, iterMaxBars(c.chart));
  setIterations(c.chart, s, env.names);
  c.el.dataset.iterations = String(s.count);
  c.el.dataset.bars = String(s.labels.length);
  c.hint.textContent =
    s.count > 1
      ? `${fmtInt(s.count)} iterations shown${barsNote(s)}. Drag across bars to zoom into a range; grey bars are outside the aggregation.`
      : `${fmtInt(s.count)} iteration shown${s.count ? '' : ' (none in this range)'}.`;
}

/* The kernel panel's foot: launch and distinct counts, and a details table. */
function kernelFoot(d, launches) {
  const kernelNames = (Number(d.using_tc_count) || 0) + (Number(d.other_count) || 0);
  const counts = h(
    'p',
    { class: 'kernel-counts' },
    launches
      ? [
          h(
            'span',
            { dataset: { key: 'launches' }, title: 'Kernels launched in the aggregated iterations (memcpys and memsets not counted)' },
            `${fmtInt(launches[0])} kernel launches (${fmtInt(launches[1])} using TC)`,
          ),
          ' of ',
        ]
      : null,
    h(
      'span',
      { dataset: { key: 'distinct' }, title: 'Distinct kernel names, and distinct memory operations (by launching API)' },
      `${fmtInt(kernelNames)} distinct kernels`,
      Number(d.memory_count) ? ` + ${fmtInt(d.memory_count)} memory ops` : '',
    ),
  );
  const row = (label, t, n, key) =>
    h('tr', { dataset: { kind: key } }, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, timeSpan(t)), h('td', { class: 'num' }, fmtInt(n)));
  const details = h(
    'details',
    { class: 'kernel-details' },
    h('summary', null, 'Kernel details'),
    h(
      'table',
      { class: 'mini' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, ''),
          h('th', { class: 'num', title: 'Summed GPU durations' }, 'GPU time (sum)'),
          h('th', { class: 'num', title: 'Distinct kernel names (memory: distinct launching APIs), not launches' }, 'Distinct'),
        ),
      ),
      h(
        'tbody',
        null,
        row('Kernels + memory', d.total_gpu_time, d.total_count, 'all'),
        row('Using TC', d.using_tc_gpu_time, d.using_tc_count, 'tc'),
        row('Memory (memcpy, memset)', d.memory_gpu_time, d.memory_count, 'memory'),
        row('Other kernels', d.other_gpu_time, d.other_count, 'other'),
      ),
    ),
  );
  return [counts, details];
}

/* The Top 10 CPU Ops table: view_op_cpu_times' rows, by self CPU time
 * (an op's time less its nested ops', so the column adds up). */
function cpuOpsTable(rows, ctx) {
  if (!rows.length) return note('No ops in this aggregation.');
  const cols = [
    ['Self CPU Time', (r) => timeSpan(r.self_cpu_time), 'num', 'CPU time of the op less that of the ops nested in it'],
    ['Total CPU Time', (r) => timeSpan(r.total_cpu_time), 'num', 'CPU time of the op, nested ops included'],
    ['Calls', (r) => fmtInt(r.calls), 'num', null],
    ['Op Name', (r) => r.op_name, 'name', null],
    ctx.pytorch ? ['Direction', (r) => r.direction, null, null] : null,
    ['Op Type', (r) => r.op_type, null, null],
  ].filter(Boolean);
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'data cpu-ops' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          cols.map(([label, , cls, tip]) => h('th', { class: cls === 'num' ? 'num' : null, scope: 'col', title: tip }, label)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            { dataset: { key: String(r.op_id) } },
            cols.map(([, get1, cls]) => h('td', { class: cls }, get1(r))),
          ),
        ),
      ),
    ),
  );
}

/* Whether the aggregation has GPU activity (a kernel, memcpy or memset):
 * true where that cannot be read (a database without view_kernel_summary
 * keeps the GPU layout). */
function gpuActivity(ctx, base) {
  if (!ctx.has('view_kernel_summary')) return Promise.resolve(true);
  return get('kernel_summary', base, { quiet: true }).then(
    (d) => Number(d.total_count) > 0 || Number(d.total_gpu_time) > 0,
    () => true,
  );
}

/** Resource categories: the iteration categories' labels and colours, with
 * the keys of view_performance_summary's shares (`<key>_pct`). */
const RESOURCE_CATS = ITER_CATEGORIES.map(([label, key, color]) => [label, `${key}_pct`, color]);

/** The line a profile without GPU activity shows under the heading. */
const CPU_ONLY_NOTE =
  'No GPU activity in this profile: the dashboard shows CPU time; the GPU panels (GPU utilization, kernels, Tensor Cores, Top 10 GPU Ops) and the Tensor Core guidance are left out.';

/* The panels, in page order. Each row: id (the card's data-panel), row (the
 * grid row it sits in; cpuRow: in a profile without GPU activity, where
 * 0 leaves the panel out and a missing cpuRow keeps row), card(ctx, more, id)
 * building its card; cpuOnly: shown only without GPU activity; needs: the views
 * it reads, a missing one replaces the panel's body with a note saying why
 * (what: the feature named there); when(ctx): shown only then; chart(c): its
 * chart, made once the views are there; wait: where the loading mark goes;
 * load(env): a Promise of its data; render(c, data, env): fills it in;
 * update(c, env, route): redraws it for a new route. */
const PANELS = [
  {
    id: 'top-cpu-ops',
    row: 1,
    cpuOnly: true,
    card: (ctx, more, id) =>
      card('Top 10 CPU Ops', { id, cls: 'span-3', sub: h('span', { class: 'card-sub' }, 'by self CPU time'), tools: more('ops', 'All ops…') }),
    needs: ['view_op_cpu_times'],
    what: 'the Top 10 CPU Ops panel',
    wait: 'body',
    load: (env) => get('op_cpu_times', { aggr_id: env.base.aggr_id, sort: 'self_cpu_time', order: 'desc', limit: 10 }),
    render: (c, d, env) => replace(c.body, cpuOpsTable(d.rows, env.ctx)),
  },
  {
    id: 'gpu-utilization',
    row: 1,
    cpuRow: 0,
    card: (ctx, more, id) => doughnutCard(id, 'GPU Utilization', { more: ctx.numGpus > 1 ? more('gpus') : null }),
    needs: ['view_domain_model_gpu_utilization'],
    chart: (c) => doughnut(c.canvas, ['Using GPU', 'Idle GPU'], [COLORS.gpu, COLORS.idle], 'pct'),
    wait: 'foot',
    load: (env) => get('domain_model_gpu_utilization', env.base),
    render(c, d, env) {
      const u = Number(d.gpu_utilization) || 0;
      setDoughnut(c.chart, [u, Math.max(0, 100 - u)]);
      centerText(c.center, fmtPct(u), 'GPU busy', `${u} %`);
      replace(c.foot, 'Average over GPUs during the aggregated iterations.');
      if (env.ctx.has('view_dl_timeline_tracks')) idleGap(c.foot, env.ctx);
    },
  },
  {
    id: 'resource-usage',
    row: 1,
    cpuRow: 1,
    card: (ctx, more, id) => doughnutCard(id, 'Resource Usage Breakdown'),
    needs: ['view_resource_usage_breakdown'],
    chart: (c) =>
      doughnut(
        c.canvas,
        RESOURCE_CATS.map((x) => x[0]),
        RESOURCE_CATS.map((x) => x[2]),
        'pct',
      ),
    wait: 'foot',
    load: (env) => get('resource_usage_breakdown', env.base),
    render(c, d) {
      const vals = RESOURCE_CATS.map((x) => Number(d[x[1]]) || 0);
      setDoughnut(c.chart, vals);
      let top = 0;
      vals.forEach((v, i) => {
        if (v > vals[top]) top = i;
      });
      centerText(c.center, fmtPct(vals[top]), RESOURCE_CATS[top][0], `${vals[top]} %`);
      replace(c.foot, 'Share of wall clock time. Other: time in none of the other categories.');
    },
  },
  {
    id: 'kernel-time',
    row: 1,
    cpuRow: 0,
    card(ctx, more, id) {
      const c = doughnutCard(id, 'Kernel + Memory GPU Time', { more: more('kernels-by-iteration') });
      c.head.querySelector('.card-title').title = KERNEL_TIME_TIP;
      return c;
    },
    needs: ['view_kernel_summary'],
    chart: (c) => doughnut(c.canvas, ['Using TC', 'Memory', 'All other kernels'], [COLORS.tc, COLORS.memory, COLORS.nonTc], 'time'),
    wait: 'foot',
    /* Kernel launches: the profiled iterations' kernel counts (memcpys and
     * memsets not counted); null when the iterations cannot be read. */
    load: (env) =>
      Promise.all([
        get('kernel_summary', env.base),
        env.iterations.then(
          (it) => (it ? it.prof.reduce((a, r) => [a[0] + (Number(r.total_kernel_count) || 0), a[1] + (Number(r.using_tc_kernel_count) || 0)], [0, 0]) : null),
          () => null,
        ),
      ]),
    render(c, [d, launches]) {
      setDoughnut(c.chart, [d.using_tc_gpu_time, d.memory_gpu_time, d.other_gpu_time]);
      centerText(c.center, fmtTime(d.total_gpu_time), 'summed durations', fmtNs(d.total_gpu_time));
      replace(c.foot, ...kernelFoot(d, launches));
    },
  },
  {
    id: 'tc-efficiency',
    row: 1,
    cpuRow: 0,
    card: (ctx, more, id) => doughnutCard(id, 'Tensor Core Kernel Efficiency'),
    needs: ['view_tc_utilization'],
    chart: (c) => doughnut(c.canvas, ['Using TC', 'Not using TC'], [COLORS.tc, COLORS.nonTc], 'pct'),
    wait: 'foot',
    // 0 % of nothing is not 0 %: without GPU time in eligible ops the ratio is undefined
    load: (env) => Promise.all([get('tc_utilization', env.base), env.ctx.has('view_op_summary') ? get('op_summary', env.base).catch(() => null) : null]),
    render(c, [d, ops]) {
      if (ops && Number(ops.nodes_tc_eligible_gpu_time) === 0) {
        setDoughnut(c.chart, [0, 0]);
        centerText(c.center, 'n/a', 'TC efficiency', 'no GPU time in Tensor Core eligible ops');
        replace(c.foot, 'No Tensor Core eligible op ran on the GPU in the aggregated iterations (see Op Type Summary).');
        return;
      }
      const u = Number(d.tc_utilization) || 0;
      setDoughnut(c.chart, [u, Math.max(0, 100 - u)]);
      centerText(c.center, fmtPct(u), 'TC efficiency', `${u} %`);
      replace(c.foot, '100 × time of Tensor Core kernels / total time of all kernels in Tensor Core eligible ops.');
    },
  },
  {
    id: 'performance-summary',
    row: 2,
    card: (ctx, more, id) => card('Performance Summary', { id, cls: 'perf-card' }),
    needs: ['view_performance_summary'],
    wait: 'body',
    load: (env) => Promise.all([get('performance_summary', env.base), env.namesP]),
    render(c, [d], env) {
      const names = env.names;
      const gpu = (item) => (env.cpuOnly ? null : item); // no GPU activity: no GPU figures
      replace(
        c.body,
        kvList([
          ['Wall Clock Time', timeSpan(d.wall_clock_time), 'Time spanned by the aggregated iterations', 'wall_clock_time'],
          gpu([
            'Tensor Core Kernel Efficiency',
            pctSpan(d.tc_utilization),
            'Tensor Core kernel time / kernel time in Tensor Core eligible ops',
            'tc_utilization',
          ]),
          gpu(['GPU Utilization', pctSpan(d.gpu_utilization), 'Share of the aggregated time the GPUs run kernels', 'gpu_utilization']),
          ['Total Iterations', fmtInt(d.total_iterations), 'Iterations found in the profile', 'total_iterations'],
          ['Profiled Iterations', fmtInt(d.profiled_iterations), 'Iterations in this aggregation', 'profiled_iterations'],
          ['Iteration Start', iterLabel(d.iter_start, names, fmtInt), null, 'iter_start'],
          ['Iteration Stop', iterLabel(d.iter_stop, names, fmtInt), null, 'iter_stop'],
          ['Average Iteration Time', timeSpan(d.iter_avg), null, 'iter_avg'],
          ['Key Op', d.key_node || 'none', 'The op that marks the start of each iteration (none: the whole profile is one iteration)', 'key_node'],
        ]),
      );
    },
  },
  {
    id: 'iteration-summary',
    row: 2,
    card(ctx, more, id) {
      const range = rangeControls('Zoom');
      const canvas = h('canvas', { role: 'img', 'aria-label': 'Iteration summary: time per iteration by category' });
      const c = card('Iteration Summary', { id, cls: 'span-3', tools: [range.el, more('iterations')] });
      const hint = h('div', { class: 'chart-hint' }, 'Drag across bars to zoom into a range of iterations.');
      c.body.append(h('div', { class: 'chart-wrap chart-iter' }, canvas), hint);
      return { ...c, canvas, range, hint };
    },
    needs: ['view_iterations_profiled'],
    what: 'the Iteration Summary',
    chart: (c) => iterationChart(c.canvas, (a, b) => router.update({ from: a, to: b })),
    load: (env) => env.iterations,
    render(c, data, env) {
      c.data = data;
      drawIter(c, env, router.current());
    },
    update: drawIter,
  },
  {
    id: 'top10',
    row: 3,
    cpuRow: 0,
    card: (ctx, more, id) => card('Top 10 GPU Ops', { id, cls: 'span-3', tools: more('ops', 'All ops…') }),
    needs: ['view_op_nodes'],
    wait: 'body',
    load: (env) => get('op_nodes', { ...env.base, sort: 'gpu_time', order: 'desc', limit: 10 }),
    render(c, d, env) {
      const cols = opColumns(env.ctx).filter(
        (x) => ['gpu_time', 'op_node_name', 'direction', 'op_node_type', 'num_calls', 'tc_eligible', 'using_tc'].includes(x.key) && !x.hidden,
      );
      // ops without GPU time are not GPU ops (a CPU-only profile has only those)
      const rows = d.rows.filter((r) => Number(r.gpu_time) > 0);
      if (!rows.length) {
        replace(c.body, note(d.rows.length ? 'No op ran on the GPU in this aggregation.' : 'No ops in this aggregation.'));
        return;
      }
      const tl = env.ctx.has('view_dl_timeline_tracks');
      const table = h(
        'table',
        { class: 'data clickable' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            cols.map((c) => h('th', { class: ['time', 'int', 'bool'].includes(c.type) ? 'num' : null, scope: 'col' }, c.label)),
            tl ? h('th', { scope: 'col' }, 'Timeline') : null,
          ),
        ),
        h(
          'tbody',
          null,
          rows.map((r) => {
            const tr = h(
              'tr',
              { tabindex: 0, dataset: { key: r.op_node_id }, title: `Show the kernels of ${r.op_node_id}` },
              cols.map((c) => h('td', { class: [['time', 'int', 'bool'].includes(c.type) ? 'num' : null, c.cls] }, cell(c, r))),
              tl ? h('td', null, timelineLink(env.ctx, { of: 'op', op: r.op_node_id }, 'Open the Timeline on this op’s kernels (its first iteration)')) : null,
            );
            const open = () => router.go('ops', { ...env.base, op: r.op_node_id });
            tr.addEventListener('click', open);
            tr.addEventListener('keydown', (ev) => {
              if (ev.key !== 'Enter' && ev.key !== ' ') return;
              ev.preventDefault(); // Space: not a page scroll (as in the other tables)
              open();
            });
            return tr;
          }),
        ),
      );
      replace(c.body, h('div', { class: 'table-scroll' }, table));
    },
  },
  {
    id: 'system-config',
    row: 3,
    cpuRow: 3,
    card: (ctx, more, id) => card('System Config', { id }),
    needs: [], // without view_system_config the page's own copy (ctx.sysconfig) may serve
    wait: 'body',
    load: ({ ctx }) =>
      Promise.all([
        ctx.sysconfig ? Promise.resolve(ctx.sysconfig) : ctx.has('view_system_config') ? get('system_config') : Promise.resolve(null),
        ctx.has('view_gpu_names') ? getAll('gpu_names', {}).catch(() => ({ rows: [] })) : Promise.resolve({ rows: [] }),
      ]),
    render(c, [s, g], env) {
      if (!s) {
        replace(c.body, env.ctx.missing(['view_system_config'], 'this panel') || note('No system configuration.'));
        return;
      }
      const v = env.ctx.version || {};
      const dbv = v.db_version || {};
      const names = [...new Set(g.rows.map((r) => r.gpu_name))].join(', ');
      replace(
        c.body,
        kvList(
          [
            ['Profile Name', s.profile_name, null, 'profile_name'],
            ['GPU Count', s.num_gpus, null, 'num_gpus'],
            env.cpuOnly
              ? ['GPU Activity', 'none in this profile', 'No kernel, memcpy or memset was recorded in the aggregated iterations', 'gpu_activity']
              : null,
            ['GPU Name(s)', names, null, 'gpu_names'],
            ['CPU Model', s.cpu_model, null, 'cpu_model'],
            ['GPU Driver', s.driver_version, null, 'driver_version'],
            ['Framework', s.framework, null, 'framework'],
            ['CUDA', s.cuda_version, null, 'cuda_version'],
            ['cuDNN', s.cudnn_version, null, 'cudnn_version'],
            ['Nsight Systems', s.nsys_version, null, 'nsys_version'],
            ['DLProf', s.dlprof_version ? `${s.dlprof_version}${s.dlprof_build ? ` (build ${s.dlprof_build})` : ''}` : '', null, 'dlprof_version'],
            [
              'DLProf Database',
              dbv.current_version,
              dbv.original_version && dbv.original_version !== dbv.current_version ? `Written as ${dbv.original_version}` : null,
              'db_version',
            ],
            ['Profile Mode', s.mode_string, null, 'mode_string'],
            ['Viewer', v.dlprofviewer ? `dlprofviewer ${v.dlprofviewer}` : '', null, 'viewer'],
            ['Command', s.original_command ? h('code', { class: 'cmd' }, s.original_command) : '', null, 'original_command'],
          ],
          'kv-compact',
        ),
      );
    },
  },
  {
    id: 'expert-systems',
    row: 4,
    cpuRow: 3,
    card: (ctx, more, id) =>
      card('Expert Systems', {
        id,
        cls: 'span-3',
        sub: h('span', { class: 'card-sub' }, 'Experimental recommendations from DLProf'),
      }),
    needs: ['view_expert_systems'],
    wait: 'body',
    load: (env) => getAll('expert_systems', { aggr_id: env.base.aggr_id }),
    render(c, d, env) {
      if (!d.rows.length) {
        replace(c.body, note('No recommendations detected.', 'note note-ok'));
        return;
      }
      const action = (r) => {
        const fn = r.javascript_function;
        if (fn === 'ShowBadDataTypeOps') {
          return h(
            'a',
            { class: 'btn btn-small btn-action', href: env.ctx.href('ops', { bad: 1 }), title: 'Show the ops with a bad data type in Ops and Kernels' },
            'Show ops',
          );
        }
        if (fn === 'ShowOpShapes') {
          return h(
            'a',
            { class: 'btn btn-small btn-action', href: env.ctx.href('roofline', {}), title: 'Show the ops and input shapes on the Roofline page' },
            'Show roofline',
          );
        }
        if (fn === 'ShowBadIterationRange') {
          let args;
          try {
            args = JSON.parse(r.javascript_args || '{}') || {};
          } catch {
            args = {};
          }
          const p = {};
          if (Number.isInteger(args.ideal_start)) p.suggest_start = args.ideal_start;
          if (Number.isInteger(args.ideal_stop)) p.suggest_stop = args.ideal_stop;
          return h(
            'a',
            { class: 'btn btn-small btn-action', href: env.ctx.href('iterations', p), title: 'Show the suggested iteration range in Iterations' },
            'Show range',
          );
        }
        return null;
      };
      /* each finding's evidence on the Timeline, where its rule quotes a range
       * (one request for all the rows, after they render; none: no link) */
      const tds = d.rows.map(() => h('td', { class: 'action' }));
      const evidence = (i) => tds[i];
      if (env.ctx.has('view_dl_findings') && env.ctx.has('view_dl_timeline_tracks'))
        get('dl_timeline_findings', { aggr_id: env.base.aggr_id }, { quiet: true })
          .then((ev) => {
            for (const f of ev.rows) {
              const td = tds[Number(f.finding) - 1];
              if (td) td.append(timelineLink(env.ctx, { of: 'finding', finding: f.finding }, `Open the Timeline on ${f.what}`));
            }
          })
          .catch(() => {});
      /* DLProf's text for a profile without a key op names an empty one */
      const problem = (t) => String(t).replace('key op  not found', 'no key op was set (--key_op), so the whole profile is one iteration');
      replace(
        c.body,
        h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'data expert' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, 'Problem'),
                h('th', { scope: 'col' }, 'Recommendation'),
                h('th', { scope: 'col', class: 'action' }, 'Action'),
                h('th', { scope: 'col', class: 'action' }, 'Evidence'),
              ),
            ),
            h(
              'tbody',
              null,
              d.rows.map((r, i) =>
                h(
                  'tr',
                  null,
                  h('td', { class: 'problem' }, problem(r.problem)),
                  h('td', null, linkify(r.recommendation)),
                  h('td', { class: 'action' }, action(r)),
                  evidence(i),
                ),
              ),
            ),
          ),
        ),
      );
    },
  },
  {
    id: 'guidance',
    row: 4,
    cpuRow: 0,
    card: (ctx, more, id) => card('Guidance', { id }),
    needs: [],
    render(c) {
      c.body.append(
        h('p', null, 'Tensor Cores speed up matrix math in FP16, BF16 and TF32. Ops that are eligible but do not use them are the first place to look.'),
        h(
          'ul',
          { class: 'links' },
          GUIDANCE.map(([t, u]) => h('li', null, h('a', { href: u, target: '_blank', rel: 'noopener noreferrer' }, t))),
        ),
        h('p', { class: 'muted' }, 'Several kernels per op are common: many of them are data transposes, which do not use Tensor Cores.'),
      );
    },
  },
  /* our view_dl_* extension, when the database has it: GPU timeline,
   * communication and est. SM efficiency per GPU */
  {
    id: 'communication',
    row: 5,
    cpuRow: 0,
    when: (ctx) => ctx.has('view_dl_communication'),
    card: (ctx, more, id) =>
      card('GPU Timeline and Communication', {
        id,
        // alone in its row: its nine columns get the page's width
        cls: 'span-all',
        sub: h('span', { class: 'card-sub' }, 'NCCL time not overlapped with computation is exposed'),
      }),
    needs: ['view_dl_communication'],
    wait: 'body',
    load: (env) =>
      Promise.all([
        getAll('dl_communication', { ...env.base, sort: 'device_id', order: 'asc' }),
        env.ctx.has('view_dl_gpu_efficiency') ? getAll('dl_gpu_efficiency', env.base).catch(() => ({ rows: [] })) : Promise.resolve({ rows: [] }),
      ]),
    render(c, [d, e]) {
      if (!d.rows.length) {
        replace(c.body, note('No GPU activity in this aggregation.'));
        return;
      }
      const eff = new Map(e.rows.map((r) => [r.device_id, r]));
      const num = (v, f) => (v === null || v === undefined ? '–' : f(Number(v)));
      const head = [
        'GPU',
        'Communication',
        'Exposed communication',
        'Share of step time',
        'Computation',
        'Memcpy',
        'GPU busy',
        'Est. SM efficiency',
        'Est. achieved occupancy',
      ];
      replace(
        c.body,
        h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'data communication' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                head.map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            h(
              'tbody',
              null,
              d.rows.map((r) => {
                const x = eff.get(r.device_id) || {};
                return h(
                  'tr',
                  { dataset: { device: String(r.device_id) } },
                  h('td', { class: 'nowrap' }, `${r.device_id}${r.gpu_name ? ` – ${r.gpu_name}` : ''}`),
                  h('td', { class: 'num' }, timeSpan(r.communication_time)),
                  h('td', { class: 'num' }, timeSpan(r.exposed_communication_time)),
                  h('td', { class: 'num' }, fmtPct(r.exposed_communication_pct)),
                  h('td', { class: 'num' }, timeSpan(r.computation_time)),
                  h('td', { class: 'num' }, timeSpan(r.memcpy_time)),
                  h('td', { class: 'num' }, timeSpan(r.busy_time)),
                  h('td', { class: 'num' }, num(x.est_sm_efficiency, fmtPct)),
                  h('td', { class: 'num' }, num(x.est_achieved_occupancy, fmtPct)),
                );
              }),
            ),
          ),
        ),
      );
    },
  },
];

/* The GPUs' longest idle gap (/api/v1/dl_gpu_idle_gaps, whole profile),
 * a link to it on the Timeline, added to el when the answer comes (the
 * panel does not wait for it); the GPUs page lists more. */
function idleGap(el, ctx) {
  get('dl_gpu_idle_gaps', { limit: 1 }, { quiet: true })
    .then((d) => {
      const g = d.rows[0];
      if (!g) return;
      el.append(
        h(
          'div',
          { class: 'idle-gap', dataset: { device: String(g.device_id), start: String(g.start), end: String(g.end) } },
          `Longest idle gap: ${fmtTime(g.duration)} on GPU ${g.device_id} `,
          timelineLink(ctx, { of: 'range', rs: g.start, re: g.end }, 'Open the Timeline on this idle gap'),
        ),
      );
    })
    .catch(() => {});
}

/* The panels shown and the row each sits in, for the layout (cpuOnly). */
function layoutPanels(ctx, cpuOnly) {
  return PANELS.filter((p) => (!p.when || p.when(ctx)) && (!p.cpuOnly || cpuOnly))
    .map((p) => ({ p, row: cpuOnly && p.cpuRow !== undefined ? p.cpuRow : p.row }))
    .filter((x) => x.row > 0);
}

/* Builds the panels into root and starts their requests. Returns the
 * charts (to destroy), the updates (per route) and the settled Promise. */
function buildPanels(root, ctx, env) {
  const more = (view, text = 'More…') => h('a', { class: 'more-link', href: ctx.href(view) }, text);
  const shown = layoutPanels(ctx, env.cpuOnly).map((x) => ({ ...x, c: x.p.card(ctx, more, x.p.id) }));
  const rows = [...new Set(shown.map((x) => x.row))].sort((a, b) => a - b);
  if (env.cpuOnly) root.append(note(CPU_ONLY_NOTE, 'note note-cpu-only'));
  root.append(
    ...rows.map((n) =>
      h(
        'div',
        { class: 'grid grid-4' },
        shown.filter((x) => x.row === n).map(({ c }) => c.el),
      ),
    ),
  );

  /* Each panel's request chain; when all have settled (and the charts'
   * next frame is drawn) the page marks itself rendered, which tests and
   * bench/dashboard_render.mjs wait for. */
  const charts = [];
  const pending = [];
  const updates = [];
  for (const { p, c } of shown) {
    const miss = p.needs.length ? ctx.missing(p.needs, p.what || 'this panel') : null;
    if (miss) {
      replace(c.body, miss);
      continue;
    }
    if (p.chart) charts.push((c.chart = p.chart(c)));
    if (!p.load) {
      p.render(c, null, env);
      continue;
    }
    if (p.wait) c[p.wait].append(loading());
    const done = p
      .load(env)
      .then((d) => p.render(c, d, env))
      .catch((e) => failed(c.body, e));
    pending.push(done);
    if (p.update) updates.push((route) => done.then(() => p.update(c, env, route)));
  }
  return { charts, updates, settled: Promise.allSettled(pending) };
}

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const env = { ctx, base: ctx.base(route0), names: new Map(), cpuOnly: false }; // names: the trace's iteration names (ProfilerStep#N)
    env.namesP = iterNames(ctx, env.base.aggr_id).then((n) => {
      env.names = n;
    });
    env.iterations = loadIterations(env);
    root.append(viewHeader('Dashboard', aggrLine(ctx, route0)));
    let built = null;
    let route = route0;
    let gone = false;
    // the layout waits for whether the profile ran on a GPU: loading till then
    const deciding = loading();
    root.append(deciding);
    gpuActivity(ctx, env.base).then((gpu) => {
      deciding.remove();
      if (gone) return;
      env.cpuOnly = !gpu;
      root.dataset.layout = gpu ? 'gpu' : 'cpu';
      built = buildPanels(root, ctx, env);
      for (const u of built.updates) u(route);
      built.settled.then(() =>
        requestAnimationFrame(() => {
          if (!gone) document.documentElement.dataset.rendered = 'dashboard';
        }),
      );
    });

    return {
      update(r) {
        route = r;
        if (built) for (const u of built.updates) u(r);
      },
      destroy() {
        gone = true;
        delete document.documentElement.dataset.rendered;
        if (built) for (const c of built.charts) c.destroy();
      },
    };
  },
};
