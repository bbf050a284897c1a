// dashboard.js - the DLProf Viewer dashboard (peers.md A.3): four doughnuts,
// Performance Summary, Iteration Summary, Top 10 GPU Ops, System Config,
// Expert Systems and Guidance.

import { get, getAll } from '../api.js';
import * as router from '../router.js';
import { h, replace, fmtInt, fmtTime, fmtNs, fmtPct, timeSpan, pctSpan, linkify, loading, note } from '../util.js';
import { doughnut, setDoughnut, iterationChart, setIterations, iterMaxBars, COLORS } from '../charts.js';
import { cell } from '../table.js';
import { card, viewHeader, aggrLine, opColumns, iterSeries, barsNote, rangeControls, intParam, kvList, iterNames, iterLabel } from './common.js';

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

export default {
  id: 'dashboard',
  title: 'Dashboard',
  mount(root, ctx) {
    const route0 = router.current();
    const base = ctx.base(route0);
    const charts = [];
    /* Every panel's request chain; when all have settled (and the charts'
     * next frame is drawn) the page marks itself rendered, which tests and
     * bench/dashboard_render.mjs wait for. */
    const pending = [];
    const track = (p) => {
      pending.push(p);
      return p;
    };
    const more = (view, text = 'More…') => h('a', { class: 'more-link', href: ctx.href(view) }, text);

    /* --- row 1: doughnuts --- */
    const gpu = doughnutCard('gpu-utilization', 'GPU Utilization', { more: ctx.numGpus > 1 ? more('gpus') : null });
    const res = doughnutCard('resource-usage', 'Resource Usage Breakdown');
    const ker = doughnutCard('kernel-time', 'Kernel + Memory GPU Time', { more: more('kernels-by-iteration') });
    ker.head.querySelector('.card-title').title = KERNEL_TIME_TIP;
    const tc = doughnutCard('tc-efficiency', 'Tensor Core Kernel Efficiency');
    const row1 = h('div', { class: 'grid grid-4' }, gpu.el, res.el, ker.el, tc.el);

    /* --- row 2: performance summary + iteration summary --- */
    const perf = card('Performance Summary', { id: 'performance-summary', cls: 'perf-card' });
    const range = rangeControls('Zoom');
    const iterCanvas = h('canvas', { role: 'img', 'aria-label': 'Iteration summary: time per iteration by category' });
    const iter = card('Iteration Summary', { id: 'iteration-summary', cls: 'span-3', tools: [range.el, more('iterations')] });
    const iterNote = h('div', { class: 'chart-hint' }, 'Drag across bars to zoom into a range of iterations.');
    iter.body.append(h('div', { class: 'chart-wrap chart-iter' }, iterCanvas), iterNote);
    const row2 = h('div', { class: 'grid grid-4' }, perf.el, iter.el);

    /* --- row 3: top 10 + system config --- */
    const top = card('Top 10 GPU Ops', { id: 'top10', cls: 'span-3', tools: more('ops', 'All ops…') });
    const sys = card('System Config', { id: 'system-config' });
    const row3 = h('div', { class: 'grid grid-4' }, top.el, sys.el);

    /* --- row 4: expert systems + guidance --- */
    const exp = card('Expert Systems', {
      id: 'expert-systems',
      cls: 'span-3',
      sub: h('span', { class: 'card-sub' }, 'Experimental recommendations from DLProf'),
    });
    const guide = card('Guidance', { id: 'guidance' });
    const row4 = h('div', { class: 'grid grid-4' }, exp.el, guide.el);

    /* --- row 5 (our view_dl_* extension, when the database has it): GPU timeline,
     * communication and est. SM efficiency per GPU --- */
    const comm = ctx.has('view_dl_communication')
      ? card('GPU Timeline and Communication', {
          id: 'communication',
          // alone in its row: its nine columns get the page's width
          cls: 'span-all',
          sub: h('span', { class: 'card-sub' }, 'NCCL time not overlapped with computation is exposed'),
        })
      : null;
    const row5 = comm ? h('div', { class: 'grid grid-4' }, comm.el) : null;

    root.append(...[viewHeader('Dashboard', aggrLine(ctx, route0)), row1, row2, row3, row4, row5].filter(Boolean));
    for (const c of [gpu, res, ker, tc]) c.foot.append(loading());
    for (const c of [perf, top, sys, exp]) c.body.append(loading());

    /* --- iteration data: the Iteration Summary's, and the kernel panel's launch count --- */
    let iterAll = null;
    let iterProf = null;
    let names = new Map(); // the trace's names of the iterations (ProfilerStep#N), for tooltips and the summary
    const namesP = iterNames(ctx, base.aggr_id).then((n) => {
      names = n;
    });
    const iterChart = ctx.has('view_iterations_profiled') ? iterationChart(iterCanvas, (a, b) => router.update({ from: a, to: b })) : null;
    if (iterChart) charts.push(iterChart);
    const iterMiss = ctx.missing(['view_iterations_profiled'], 'the Iteration Summary');
    if (iterMiss) replace(iter.body, iterMiss);
    const iterReady = iterMiss
      ? Promise.resolve()
      : Promise.all([
          ctx.has('view_iterations_all') ? getAll('iterations_all', { aggr_id: base.aggr_id }) : { rows: [] },
          getAll('iterations_profiled', base),
          namesP,
        ])
          .then(([a, p]) => {
            iterAll = a.rows;
            iterProf = p.rows;
          })
          .catch((e) => failed(iter.body, e));

    /* --- GPU utilization --- */
    const gpuMiss = ctx.missing(['view_domain_model_gpu_utilization'], 'this panel');
    if (gpuMiss) replace(gpu.body, gpuMiss);
    else {
      const ch = doughnut(gpu.canvas, ['Using GPU', 'Idle GPU'], [COLORS.gpu, COLORS.idle], 'pct');
      charts.push(ch);
      track(
        get('domain_model_gpu_utilization', base)
          .then((d) => {
            const u = Number(d.gpu_utilization) || 0;
            setDoughnut(ch, [u, Math.max(0, 100 - u)]);
            centerText(gpu.center, fmtPct(u), 'GPU busy', `${u} %`);
            replace(gpu.foot, 'Average over GPUs during the aggregated iterations.');
          })
          .catch((e) => failed(gpu.body, e)),
      );
    }

    /* --- resource usage --- */
    const resMiss = ctx.missing(['view_resource_usage_breakdown'], 'this panel');
    if (resMiss) replace(res.body, resMiss);
    else {
      const cats = [
        ['Using TC', 'tc_duration_pct', COLORS.tc],
        ['Not using TC', 'non_tc_duration_pct', COLORS.nonTc],
        ['Memory', 'memory_duration_pct', COLORS.memory],
        ['Dataloader', 'dataloader_duration_pct', COLORS.dataloader],
        ['I/O', 'io_duration_pct', COLORS.io],
        ['CPU', 'cpu_duration_pct', COLORS.cpu],
        ['Other', 'other_duration_pct', COLORS.other],
      ];
      const ch = doughnut(
        res.canvas,
        cats.map((c) => c[0]),
        cats.map((c) => c[2]),
        'pct',
      );
      charts.push(ch);
      track(
        get('resource_usage_breakdown', base)
          .then((d) => {
            const vals = cats.map((c) => Number(d[c[1]]) || 0);
            setDoughnut(ch, vals);
            let top = 0;
            vals.forEach((v, i) => {
              if (v > vals[top]) top = i;
            });
            centerText(res.center, fmtPct(vals[top]), cats[top][0], `${vals[top]} %`);
            replace(res.foot, 'Share of wall clock time. Other: time in none of the other categories.');
          })
          .catch((e) => failed(res.body, e)),
      );
    }

    /* --- kernel GPU time --- */
    const kerMiss = ctx.missing(['view_kernel_summary'], 'this panel');
    if (kerMiss) replace(ker.body, kerMiss);
    else {
      const ch = doughnut(ker.canvas, ['Using TC', 'Memory', 'All other kernels'], [COLORS.tc, COLORS.memory, COLORS.nonTc], 'time');
      charts.push(ch);
      /* Kernel launches: the profiled iterations' kernel counts (memcpys and
       * memsets not counted); null when the iterations cannot be read. */
      const launchesP = iterReady.then(() =>
        iterProf ? iterProf.reduce((a, r) => [a[0] + (Number(r.total_kernel_count) || 0), a[1] + (Number(r.using_tc_kernel_count) || 0)], [0, 0]) : null,
      );
      track(
        Promise.all([get('kernel_summary', base), launchesP])
          .then(([d, launches]) => {
            setDoughnut(ch, [d.using_tc_gpu_time, d.memory_gpu_time, d.other_gpu_time]);
            centerText(ker.center, fmtTime(d.total_gpu_time), 'summed durations', fmtNs(d.total_gpu_time));
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
              h(
                'tr',
                { dataset: { kind: key } },
                h('th', { scope: 'row' }, label),
                h('td', { class: 'num' }, timeSpan(t)),
                h('td', { class: 'num' }, fmtInt(n)),
              );
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
            replace(ker.foot, counts, details);
          })
          .catch((e) => failed(ker.body, e)),
      );
    }

    /* --- TC efficiency --- */
    const tcMiss = ctx.missing(['view_tc_utilization'], 'this panel');
    if (tcMiss) replace(tc.body, tcMiss);
    else {
      const ch = doughnut(tc.canvas, ['Using TC', 'Not using TC'], [COLORS.tc, COLORS.nonTc], 'pct');
      charts.push(ch);
      // 0 % of nothing is not 0 %: without GPU time in eligible ops the ratio is undefined
      const eligibleP = ctx.has('view_op_summary') ? get('op_summary', base).catch(() => null) : Promise.resolve(null);
      track(
        Promise.all([get('tc_utilization', base), eligibleP])
          .then(([d, ops]) => {
            if (ops && Number(ops.nodes_tc_eligible_gpu_time) === 0) {
              setDoughnut(ch, [0, 0]);
              centerText(tc.center, 'n/a', 'TC efficiency', 'no GPU time in Tensor Core eligible ops');
              replace(tc.foot, 'No Tensor Core eligible op ran on the GPU in the aggregated iterations (see Op Type Summary).');
              return;
            }
            const u = Number(d.tc_utilization) || 0;
            setDoughnut(ch, [u, Math.max(0, 100 - u)]);
            centerText(tc.center, fmtPct(u), 'TC efficiency', `${u} %`);
            replace(tc.foot, '100 × time of Tensor Core kernels / total time of all kernels in Tensor Core eligible ops.');
          })
          .catch((e) => failed(tc.body, e)),
      );
    }

    /* --- performance summary --- */
    const perfMiss = ctx.missing(['view_performance_summary'], 'this panel');
    if (perfMiss) replace(perf.body, perfMiss);
    else {
      track(
        Promise.all([get('performance_summary', base), namesP])
          .then(([d]) => {
            replace(
              perf.body,
              kvList([
                ['Wall Clock Time', timeSpan(d.wall_clock_time), 'Time spanned by the aggregated iterations', 'wall_clock_time'],
                [
                  'Tensor Core Kernel Efficiency',
                  pctSpan(d.tc_utilization),
                  'Tensor Core kernel time / kernel time in Tensor Core eligible ops',
                  'tc_utilization',
                ],
                ['GPU Utilization', pctSpan(d.gpu_utilization), 'Share of the aggregated time the GPUs run kernels', 'gpu_utilization'],
                ['Total Iterations', fmtInt(d.total_iterations), 'Iterations found in the profile', 'total_iterations'],
                ['Profiled Iterations', fmtInt(d.profiled_iterations), 'Iterations in this aggregation', 'profiled_iterations'],
                ['Iteration Start', iterLabel(d.iter_start, names, fmtInt), null, 'iter_start'],
                ['Iteration Stop', iterLabel(d.iter_stop, names, fmtInt), null, 'iter_stop'],
                ['Average Iteration Time', timeSpan(d.iter_avg), null, 'iter_avg'],
                ['Key Op', d.key_node || 'none', 'The op that marks the start of each iteration (none: the whole profile is one iteration)', 'key_node'],
              ]),
            );
          })
          .catch((e) => failed(perf.body, e)),
      );
    }

    /* --- iteration summary --- */
    const drawIter = (route) => {
      if (!iterChart || !iterProf) return;
      const src = iterAll.length ? iterAll : iterProf;
      const nums = src.map((r) => Number(r.iter_value));
      const min = nums.length ? Math.min(...nums) : 0;
      const max = nums.length ? Math.max(...nums) : 0;
      const from = intParam(route, 'from');
      const to = intParam(route, 'to');
      range.set(min, max, from, to);
      const s = iterSeries(iterAll, iterProf, from, to, false, iterMaxBars(iterChart));
      setIterations(iterChart, s, names);
      iter.el.dataset.iterations = String(s.count);
      iter.el.dataset.bars = String(s.labels.length);
      iterNote.textContent =
        s.count > 1
          ? `${fmtInt(s.count)} iterations shown${barsNote(s)}. Drag across bars to zoom into a range; grey bars are outside the aggregation.`
          : `${fmtInt(s.count)} iteration shown${s.count ? '' : ' (none in this range)'}.`;
    };

    /* --- top 10 GPU ops --- */
    const cols = opColumns(ctx).filter(
      (c) => ['gpu_time', 'op_node_name', 'direction', 'op_node_type', 'num_calls', 'tc_eligible', 'using_tc'].includes(c.key) && !c.hidden,
    );
    const topMiss = ctx.missing(['view_op_nodes'], 'this panel');
    if (topMiss) replace(top.body, topMiss);
    else {
      track(
        get('op_nodes', { ...base, sort: 'gpu_time', order: 'desc', limit: 10 })
          .then((d) => {
            // ops without GPU time are not GPU ops (a CPU-only profile has only those)
            const rows = d.rows.filter((r) => Number(r.gpu_time) > 0);
            if (!rows.length) {
              replace(top.body, note(d.rows.length ? 'No op ran on the GPU in this aggregation.' : 'No ops in this aggregation.'));
              return;
            }
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
                  );
                  const open = () => router.go('ops', { ...base, op: r.op_node_id });
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
            replace(top.body, h('div', { class: 'table-scroll' }, table));
          })
          .catch((e) => failed(top.body, e)),
      );
    }

    /* --- system config --- */
    track(
      Promise.all([
        ctx.sysconfig ? Promise.resolve(ctx.sysconfig) : ctx.has('view_system_config') ? get('system_config') : Promise.resolve(null),
        ctx.has('view_gpu_names') ? getAll('gpu_names', {}).catch(() => ({ rows: [] })) : Promise.resolve({ rows: [] }),
      ])
        .then(([s, g]) => {
          if (!s) {
            replace(sys.body, ctx.missing(['view_system_config'], 'this panel') || note('No system configuration.'));
            return;
          }
          const v = ctx.version || {};
          const dbv = v.db_version || {};
          const names = [...new Set(g.rows.map((r) => r.gpu_name))].join(', ');
          replace(
            sys.body,
            kvList(
              [
                ['Profile Name', s.profile_name, null, 'profile_name'],
                ['GPU Count', s.num_gpus, null, 'num_gpus'],
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
        })
        .catch((e) => failed(sys.body, e)),
    );

    /* --- expert systems --- */
    const expMiss = ctx.missing(['view_expert_systems'], 'this panel');
    if (expMiss) replace(exp.body, expMiss);
    else {
      track(
        getAll('expert_systems', { aggr_id: base.aggr_id })
          .then((d) => {
            if (!d.rows.length) {
              replace(exp.body, note('No recommendations detected.', 'note note-ok'));
              return;
            }
            const action = (r) => {
              const fn = r.javascript_function;
              if (fn === 'ShowBadDataTypeOps') {
                return h(
                  'a',
                  { class: 'btn btn-small btn-action', href: ctx.href('ops', { bad: 1 }), title: 'Show the ops with a bad data type in Ops and Kernels' },
                  'Show ops',
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
                  { class: 'btn btn-small btn-action', href: ctx.href('iterations', p), title: 'Show the suggested iteration range in Iterations' },
                  'Show range',
                );
              }
              return null;
            };
            replace(
              exp.body,
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
                    ),
                  ),
                  h(
                    'tbody',
                    null,
                    d.rows.map((r) =>
                      h(
                        'tr',
                        null,
                        h('td', { class: 'problem' }, r.problem),
                        h('td', null, linkify(r.recommendation)),
                        h('td', { class: 'action' }, action(r)),
                      ),
                    ),
                  ),
                ),
              ),
            );
          })
          .catch((e) => failed(exp.body, e)),
      );
    }

    /* --- GPU timeline and communication (view_dl_communication, view_dl_gpu_efficiency) --- */
    if (comm) {
      comm.body.append(loading());
      const effP = ctx.has('view_dl_gpu_efficiency') ? getAll('dl_gpu_efficiency', base).catch(() => ({ rows: [] })) : Promise.resolve({ rows: [] });
      track(
        Promise.all([getAll('dl_communication', { ...base, sort: 'device_id', order: 'asc' }), effP])
          .then(([d, e]) => {
            if (!d.rows.length) {
              replace(comm.body, note('No GPU activity in this aggregation.'));
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
              comm.body,
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
          })
          .catch((e) => failed(comm.body, e)),
      );
    }

    /* --- guidance --- */
    guide.body.append(
      h('p', null, 'Tensor Cores speed up matrix math in FP16, BF16 and TF32. Ops that are eligible but do not use them are the first place to look.'),
      h(
        'ul',
        { class: 'links' },
        GUIDANCE.map(([t, u]) => h('li', null, h('a', { href: u, target: '_blank', rel: 'noopener noreferrer' }, t))),
      ),
      h('p', { class: 'muted' }, 'Several kernels per op are common: many of them are data transposes, which do not use Tensor Cores.'),
    );

    track(iterReady.then(() => drawIter(router.current())));
    Promise.allSettled(pending).then(() =>
      requestAnimationFrame(() => {
        document.documentElement.dataset.rendered = 'dashboard';
      }),
    );

    return {
      update(route) {
        iterReady.then(() => drawIter(route));
      },
      destroy() {
        delete document.documentElement.dataset.rendered;
        for (const c of charts) c.destroy();
      },
    };
  },
};
