// app.js - start-up, the header (aggregation, domain, reports), the view
// menu and routing between views.
//
// Start-up reads GET /api/v1/runs (the databases served) and, for the run
// shown, GET /api/v1/dl_start (its info: views present, defaults,
// aggregations, domains, mode, GPU count; its version, system config,
// reports and GPU names), both sent by start.js before this module runs;
// then the view named by the URL hash is loaded and rendered. The hash's `run` names the run (absent: the server's
// first); when several are served every link carries it. The runs page and
// the comparison of two runs belong to no one run.

import { get, apiUrl, showError, clearErrors, setRun } from './api.js';
import * as router from './router.js';
import { h, replace, note, loading as spinner } from './util.js';

// The views of a run, in the menu's order. Each module is loaded when its
// view is first shown (dynamic import), so a page fetches and compiles only
// the view it shows; Chart.js too is loaded only before a view that draws
// charts (charts: true). needs: the views of the database it reads (a note
// names those missing); needsAll: false when the view explains that itself;
// visible: whether the menu lists it for this database.
const VIEWS = [
  { id: 'dashboard', title: 'Dashboard', charts: true, load: () => import('./views/dashboard.js') },
  { id: 'op-types', title: 'Op Type Summary', needs: ['view_op_type_summary'], load: () => import('./views/op_types.js') },
  { id: 'group-ops', title: 'Group Ops', needs: ['view_group_ops'], load: () => import('./views/group_ops.js') },
  { id: 'ops', title: 'Ops and Kernels', needs: ['view_op_nodes', 'view_kernel_summaries'], load: () => import('./views/ops.js') },
  {
    id: 'kernels-by-iteration',
    title: 'Kernels by Iteration',
    needs: ['view_iterations_profiled', 'view_iteration_kernels'],
    load: () => import('./views/kernels_by_iteration.js'),
  },
  {
    id: 'kernels-by-op',
    title: 'Kernels by Op',
    needs: ['view_iterations_profiled', 'view_iteration_ops', 'view_iteration_op_kernels'],
    load: () => import('./views/kernels_by_op.js'),
  },
  { id: 'iterations', title: 'Iterations', needs: ['view_iterations_all'], charts: true, load: () => import('./views/iterations.js') },
  {
    id: 'gpus',
    title: 'GPUs',
    needs: ['view_gpu_devices'],
    visible: (ctx) => ctx.numGpus > 1,
    charts: true,
    load: () => import('./views/gpus.js'),
  },
  {
    id: 'ranks',
    title: 'Ranks',
    needs: ['view_dl_ranks'],
    // a distributed job's GPUs are named "rank R, GPU D ..." (view_gpu_names)
    visible: (ctx) => ctx.has('view_dl_ranks') && ctx.gpuNames.some((n) => /^rank \d+, GPU /.test(n || '')),
    load: () => import('./views/ranks.js'),
  },
  {
    id: 'statistics',
    title: 'Statistics',
    needs: ['view_dl_stats_cuda_api'],
    needsAll: false, // the view explains what is missing itself
    charts: true,
    load: () => import('./views/statistics.js'),
  },
  {
    id: 'roofline',
    title: 'Roofline',
    needs: ['view_dl_op_shapes'],
    visible: (ctx) => ctx.has('view_dl_op_shapes'),
    charts: true,
    load: () => import('./views/roofline.js'),
  },
  {
    id: 'timeline',
    title: 'Timeline',
    needs: ['view_dl_timeline_tracks'],
    visible: (ctx) => ctx.has('view_dl_timeline_tracks'),
    load: () => import('./views/timeline.js'),
  },
];
// Pages of no one run.
const PAGES = [
  { id: 'runs', title: 'Runs', load: () => import('./views/runs.js') },
  { id: 'compare', title: 'Compare runs', charts: true, load: () => import('./views/compare.js') },
];

const loaded = new Map(); // view id -> its module's default export, once loaded
const loadingViews = new Map(); // view id -> the promise of it

/** Loads a view's module (and Chart.js where it draws charts), once; resolves to its default export. */
function loadView(v) {
  if (!loadingViews.has(v.id)) {
    const p = Promise.all([v.load(), v.charts ? import('./charts.js').then((c) => c.loadChart()) : null]).then(([m]) => {
      loaded.set(v.id, m.default);
      return m.default;
    });
    p.catch(() => loadingViews.delete(v.id)); // a failed load is tried again on the next visit
    loadingViews.set(v.id, p);
  }
  return loadingViews.get(v.id);
}

// What each view of the database holds, for "missing view" notes, and the
// DLProf release that introduced it where that is known (docs peers.md A.8).
const VIEW_DATA = {
  view_group_ops: ['group-op data', '1.7'],
  view_op_type_summary: ['op-type summary data'],
  view_op_nodes: ['op data'],
  view_kernel_summaries: ['per-op kernel summaries'],
  view_iterations_all: ['iteration data'],
  view_iterations_profiled: ['per-iteration data'],
  view_iteration_ops: ['per-iteration op data'],
  view_iteration_kernels: ['per-iteration kernel data'],
  view_iteration_op_kernels: ['per-iteration op kernel data'],
  view_gpu_devices: ['per-GPU data'],
  view_resource_usage_breakdown: ['resource-usage data', '1.2'],
  view_expert_systems: ['expert-system data'],
  view_performance_summary: ['performance summary data'],
  view_kernel_summary: ['kernel summary data'],
  view_tc_utilization: ['tensor-core utilization data'],
  view_domain_model_gpu_utilization: ['GPU utilization data'],
  view_system_config: ['system configuration'],
  view_op_cpu_times: ['per-op CPU times'],
  view_dl_op_shapes: ['op shapes and perf models'],
};

// DLProf's report names (--reports) as the menu shows them.
const REPORT_LABELS = {
  summary: 'Summary',
  detail: 'Detailed (per op)',
  iteration: 'Iteration (per kernel launch)',
  kernel: 'Kernel',
  tensor: 'Tensor Core',
  op_type: 'Op Type',
  group_node: 'Group Op',
  expert_systems: 'Expert Systems',
  // ours: nsys stats' tables (report/dlr_stats.h)
  cuda_api_sum: 'CUDA API Summary',
  cuda_gpu_kern_sum: 'GPU Kernel Summary',
  cuda_gpu_kern_gb_sum: 'GPU Kernel Grid/Block Summary',
  cuda_gpu_mem_time_sum: 'Memory Operations (by Time)',
  cuda_gpu_mem_size_sum: 'Memory Operations (by Size)',
  osrt_sum: 'OS Runtime Summary',
  nvtx_sum: 'NVTX Range Summary',
  nvtx_gpu_proj_sum: 'NVTX GPU Projection Summary',
};

/** An AMD GPU by its name, as dlprof tells (analysis/dla_aggregate.c): ROCm's
 * "AMD Instinct MI300X", "AMD Radeon Graphics", "Radeon PRO W7900". */
const isAmdGpu = (name) => /^AMD |radeon|instinct/i.test(String(name || ''));

const ctx = {
  runs: [], // GET /api/v1/runs' rows
  multi: false, // several runs or a folder are served: links carry run=
  defaultRun: null,
  runId: null, // the run whose info is loaded (null: the server's first)
  info: null,
  version: null,
  sysconfig: null,
  gpuNames: [], // view_gpu_names' names ([] when the view is missing)
  /** True when the database has the view (full name, view_…). */
  has(view) {
    return !this.info || this.info.views.includes(view);
  },
  /** True in PyTorch mode (Direction and Stack Trace columns). */
  get pytorch() {
    const m = (this.info && this.info.mode) || (this.sysconfig && this.sysconfig.mode_string) || '';
    return String(m).toLowerCase() === 'pytorch';
  },
  /** True when every GPU of the profile is AMD's: its API calls are HIP's. */
  get amd() {
    return this.gpuNames.length > 0 && this.gpuNames.every(isAmdGpu);
  },
  /** The GPU API's name for labels: "HIP" on AMD GPUs, else "CUDA". */
  get gpuApi() {
    return this.amd ? 'HIP' : 'CUDA';
  },
  get numGpus() {
    return Number((this.info && this.info.num_gpus) || (this.sysconfig && this.sysconfig.num_gpus) || 1);
  },
  /**
   * The aggregations (ids as strings) with rows of a domain, from
   * info.aggregation_domains; null when the database does not say. dlprof
   * aggregates each NVTX domain on its own, so a domain has aggregations of
   * its own.
   */
  domainAggrs(domain) {
    const pairs = (this.info && this.info.aggregation_domains) || [];
    const ids = pairs.filter((p) => p.domain_name === domain).map((p) => String(p.aggr_id));
    return ids.length ? ids : null;
  },
  /** The aggregation to show for a domain: keep when it has the domain's rows (or nothing is known), else the domain's newest. */
  aggrFor(domain, keep) {
    const ids = this.domainAggrs(domain);
    if (!ids || (keep != null && ids.includes(String(keep)))) return keep;
    return ids.reduce((a, b) => (Number(b) > Number(a) ? b : a));
  },
  /** The domains of the menu: those with aggregations (all of view_domains when the database does not say), and the current one. */
  menuDomains(current) {
    const all = (this.info && this.info.domains) || [];
    const pairs = (this.info && this.info.aggregation_domains) || [];
    if (!pairs.length) return all;
    const agg = new Set(pairs.map((p) => p.domain_name));
    return [...all.filter((d) => agg.has(d) || d === current), ...[...agg].filter((d) => !all.includes(d))];
  },
  /** aggr_id and domain of a route (the database's defaults when absent; a domain without aggr_id: its newest aggregation). */
  base(route) {
    const domain = route.params.domain || (this.info && this.info.default_domain);
    return {
      aggr_id: route.params.aggr_id || (route.params.domain && this.aggrFor(domain, null)) || (this.info && this.info.default_aggr_id),
      domain,
    };
  },
  aggregation(route) {
    const id = Number(this.base(route).aggr_id);
    return ((this.info && this.info.aggregations) || []).find((a) => Number(a.aggr_id) === id) || null;
  },
  /** The producer, for notes: "DLProf v1.2.0" when the database says. */
  writer() {
    const v = (this.sysconfig && this.sysconfig.dlprof_version) || (this.version && this.version.db_version && this.version.db_version.original_version);
    if (!v) return 'an older DLProf';
    return `DLProf ${String(v).replace(/^v/, '')}`;
  },
  /**
   * null when every view in `views` is present, else a note naming what is
   * missing and why: "This database was written by DLProf 1.2 and has no
   * group-op data (view_group_ops), which Group Ops needs."
   */
  missing(views, feature) {
    const gone = views.filter((v) => !this.has(v));
    if (!gone.length) return null;
    const what = gone.map((v) => (VIEW_DATA[v] ? VIEW_DATA[v][0] : v)).join(', ');
    const since = gone.map((v) => VIEW_DATA[v] && VIEW_DATA[v][1]).find(Boolean);
    const text =
      `This database was written by ${this.writer()} and has no ${what} (${gone.join(', ')} missing), ` +
      `which ${feature} needs.${since ? ` DLProf writes it from version ${since} on.` : ''}`;
    return h('div', { class: 'note note-missing', dataset: { missing: gone.join(' ') } }, text);
  },
  /** A link to a view keeping run, aggr_id and domain of the current route. */
  href(view, params = {}) {
    const cur = router.current();
    return router.href(view, { run: cur.params.run, aggr_id: cur.params.aggr_id, domain: cur.params.domain, ...params });
  },
  /** The runs list's row of a run id, or null. */
  runRow(id) {
    return this.runs.find((r) => r.run === id) || null;
  },
  /** Reads the runs list again (the server rescans its folders). */
  async reloadRuns() {
    const runs = await get('runs', null, { quiet: true });
    this.runs = runs.rows || [];
    this.multi = !!runs.multi;
    this.defaultRun = runs.default_run || null;
    return this.runs;
  },
};

let active = null; // {view, key, inst}
const main = () => document.getElementById('main');

function renderNav(route) {
  const nav = document.getElementById('nav');
  const runs = ctx.multi
    ? h(
        'a',
        {
          href: '#/runs',
          class: ['nav-item', 'nav-runs', route.view === 'runs' ? 'active' : null],
          'aria-current': route.view === 'runs' ? 'page' : null,
          dataset: { view: 'runs' },
        },
        'Runs',
      )
    : null;
  if (PAGES.some((p) => p.id === route.view)) {
    replace(nav, runs);
    return;
  }
  const items = VIEWS.filter((v) => !v.visible || v.visible(ctx)).map((v) => {
    const miss = v.needs && v.needs.some((n) => !ctx.has(n));
    return h(
      'a',
      {
        href: ctx.href(v.id),
        class: ['nav-item', route.view === v.id ? 'active' : null, miss ? 'missing' : null],
        'aria-current': route.view === v.id ? 'page' : null,
        title: miss ? 'This database lacks the data for this view' : null,
        dataset: { view: v.id },
      },
      v.title,
    );
  });
  replace(nav, runs, items);
}

function renderSelectors(route) {
  const info = ctx.info;
  const base = ctx.base(route);
  const aggrWrap = document.getElementById('aggr-wrap');
  const aggrSel = document.getElementById('aggr-select');
  const inDomain = ctx.domainAggrs(base.domain); // the aggregations of the domain shown
  const aggs = [...(info.aggregations || [])]
    .filter((a) => !inDomain || inDomain.includes(String(a.aggr_id)))
    .sort((a, b) => String(a.aggr_start).localeCompare(String(b.aggr_start)) || a.aggr_id - b.aggr_id);
  aggrWrap.hidden = aggs.length < 2;
  if (aggs.length >= 2) {
    const cur = aggs.find((a) => String(a.aggr_id) === String(base.aggr_id));
    replace(
      aggrSel,
      // an aggr_id the file lacks (an old link): shown as such, not as the first one
      cur ? null : h('option', { value: '', selected: true, disabled: true }, `${base.aggr_id} (not in this file)`),
      aggs.map((a) =>
        h(
          'option',
          {
            value: a.aggr_id,
            title: a.key_node_name ? `Key op: ${a.key_node_name}` : 'No key op',
            selected: String(a.aggr_id) === String(base.aggr_id) || null,
          },
          `${a.iter_start} to ${a.iter_stop}`,
        ),
      ),
    );
    aggrSel.title = cur && cur.key_node_name ? `Key op: ${cur.key_node_name}` : 'No key op';
  }
  const domWrap = document.getElementById('domain-wrap');
  const domSel = document.getElementById('domain-select');
  const doms = ctx.menuDomains(base.domain);
  domWrap.hidden = doms.length < 2;
  if (doms.length >= 2) {
    replace(
      domSel,
      doms.map((d) => h('option', { value: d, selected: d === base.domain || null }, d)),
    );
  }
}

/** A report's menu label ("CUDA API Summary" is "HIP API Summary" on AMD GPUs). */
function reportLabel(name) {
  const label = REPORT_LABELS[name] || String(name).replace(/_/g, ' ');
  return ctx.amd ? label.replace(/^CUDA API/, 'HIP API') : label;
}

async function renderReports(route) {
  const menu = document.getElementById('reports-menu');
  const list = document.getElementById('reports-list');
  if (!ctx.reports) return;
  const base = ctx.base(route);
  menu.hidden = !ctx.reports.length;
  replace(
    list,
    ctx.reports.map((r) =>
      h(
        'div',
        { class: 'report' },
        h('span', { class: 'report-name', title: `dlprof --reports=${r.name}` }, reportLabel(r.name)),
        r.csv ? h('a', { href: apiUrl(`reports/${r.name}.csv`, base), download: r.csv, title: r.csv }, 'CSV') : null,
        r.json ? h('a', { href: apiUrl(`reports/${r.name}.json`, base), download: r.json, title: r.json }, 'JSON') : null,
      ),
    ),
  );
}

function mountKey(route) {
  const b = ctx.base(route);
  return `${ctx.runId}|${route.view}|${b.aggr_id}|${b.domain}`;
}

/** Shows a page of no one run (the runs page, a comparison). */
function renderPage(page, route) {
  renderNav(route);
  for (const id of ['aggr-wrap', 'domain-wrap', 'reports-menu']) document.getElementById(id).hidden = true;
  document.getElementById('db-name').textContent = '';
  const key = `page|${page.id}`;
  if (!active || active.key !== key) {
    if (active && active.inst.destroy) active.inst.destroy();
    clearErrors();
    const box = replace(main(), h('div', { class: 'view', dataset: { view: page.id } }));
    document.title = `${page.title} · dlprofviewer`;
    show(key, page, box.firstChild);
    window.scrollTo(0, 0);
    return;
  }
  if (active.inst.update) active.inst.update(route);
}

/**
 * Makes view v (a row of VIEWS or PAGES) the active one under key, in el:
 * mounted at once when its module is loaded, else once it is (a spinner
 * meanwhile), then updated with the route of that moment. A later view
 * shown meanwhile wins.
 */
function show(key, v, el) {
  const slot = { key, inst: {} };
  active = slot;
  const mount = (view) => {
    if (active !== slot) return;
    replace(el);
    slot.inst = view.mount(el, ctx) || {};
    if (slot.inst.update) slot.inst.update(router.current());
  };
  if (loaded.has(v.id)) {
    mount(loaded.get(v.id));
    return;
  }
  el.append(spinner());
  loadView(v).then(mount, (e) => {
    if (active === slot) replace(el, note(`The page could not be loaded: ${e.message}`, 'note note-error'));
  });
}

let loading = null; // the run being loaded: {id, promise}

function render(route) {
  // Several runs served: the bare URL opens the runs page.
  if (ctx.multi && !location.hash.replace(/^#\/?/, '')) {
    router.go('runs', {}, { replace: true });
    return;
  }
  const page = PAGES.find((p) => p.id === route.view);
  if (page) {
    renderPage(page, route);
    return;
  }
  const want = route.params.run || null;
  if (!ctx.info || want !== ctx.runId) {
    if (!loading || loading.id !== want) {
      const l = { id: want };
      l.promise = loadRun(want).then((ok) => {
        if (loading === l) loading = null;
        if (ok) render(router.current());
      });
      loading = l;
    }
    return;
  }
  const view = VIEWS.find((v) => v.id === route.view && (!v.visible || v.visible(ctx)));
  if (!view) {
    router.go('dashboard', { run: route.params.run, aggr_id: route.params.aggr_id, domain: route.params.domain }, { replace: true });
    return;
  }
  // Fill in run (when several are served), aggr_id and domain so that every URL is complete when copied.
  const b = ctx.base(route);
  const run = route.params.run || (ctx.multi ? ctx.defaultRun : null);
  if (!route.params.aggr_id || !route.params.domain || (run && !route.params.run)) {
    router.go(route.view, { ...route.params, run, aggr_id: b.aggr_id, domain: b.domain }, { replace: true });
    return;
  }
  renderNav(route);
  renderSelectors(route);
  renderReports(route);
  const key = mountKey(route);
  if (!active || active.key !== key) {
    if (active && active.inst.destroy) active.inst.destroy();
    clearErrors();
    const box = replace(main(), h('div', { class: 'view', dataset: { view: view.id } }));
    const viewEl = box.firstChild;
    document.title = `${view.title} · dlprofviewer`;
    const miss = view.needs ? ctx.missing(view.needs, view.title) : null;
    if (miss && view.needsAll !== false) {
      viewEl.append(h('h1', { class: 'view-title' }, view.title), miss);
      active = { key, inst: {} };
      return;
    }
    show(key, view, viewEl);
    window.scrollTo(0, 0);
    return;
  }
  clearErrors(); /* the same view, other state: errors were about the old one */
  if (active.inst.update) active.inst.update(route);
}

function wireSelectors() {
  document.getElementById('aggr-select').addEventListener('change', (ev) => {
    const r = router.current();
    // A new aggregation: keep the view, drop selections that may not exist there.
    router.go(r.view, { run: r.params.run, aggr_id: ev.target.value, domain: r.params.domain });
  });
  document.getElementById('domain-select').addEventListener('change', (ev) => {
    const r = router.current();
    // Another domain: its own aggregation where the current one has none of its rows.
    router.go(r.view, { run: r.params.run, aggr_id: ctx.aggrFor(ev.target.value, r.params.aggr_id), domain: ev.target.value });
  });
  // Close open menus on outside clicks.
  document.addEventListener('click', (ev) => {
    for (const d of document.querySelectorAll('details.menu[open]')) if (!d.contains(ev.target)) d.open = false;
  });
}

/**
 * Loads run id (null: the server's first): its info, version, system
 * config, reports and GPU names, in one answer (GET /api/v1/dl_start).
 * False (and the reason shown) when it cannot be shown.
 */
async function loadRun(id) {
  setRun(id);
  if (active && active.inst.destroy) active.inst.destroy();
  active = null;
  ctx.info = null;
  ctx.runId = id;
  replace(main(), h('div', { class: 'loading boot', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Loading profile…'));
  let s;
  try {
    s = await get('dl_start');
    if (!s.info) throw new Error('no database is served yet');
  } catch (e) {
    if (ctx.runId !== id) return false;
    const back = ctx.multi || e.code === 'run_not_found' || (s && !s.info) ? h('p', null, h('a', { href: '#/runs' }, 'See the runs served')) : null;
    replace(main(), h('div', { class: 'fatal' }, h('h1', null, 'The profile cannot be shown'), h('p', null, e.message), back));
    renderNav({ view: 'runs', params: {} });
    return false;
  }
  if (ctx.runId !== id) return false; // another run was asked for meanwhile
  const info = s.info;
  ctx.info = info;
  ctx.gpuNames = (s.gpu_names || []).map((r) => r.gpu_name);
  ctx.version = s.version;
  ctx.sysconfig = s.system_config;
  ctx.reports = s.reports || [];
  const row = ctx.runRow(id || ctx.defaultRun);
  const name = ctx.multi && row ? row.name : info.database || '';
  const sysconfig = s.system_config;
  document.getElementById('db-name').textContent = sysconfig && sysconfig.profile_name ? `${sysconfig.profile_name} · ${name}` : name;
  return true;
}

async function start() {
  wireSelectors();
  // the view of the URL starts loading now, beside the first requests
  const first = [...VIEWS, ...PAGES].find((v) => v.id === router.current().view);
  if (first) loadView(first).catch(() => null);
  await ctx.reloadRuns().catch(() => null);
  router.onChange(render);
  render(router.current());
}

window.addEventListener('error', (ev) => showError(`Page error: ${ev.message}`));
start().catch((e) => {
  showError(e);
  replace(main(), note(`The page failed to start: ${e.message}`));
});
