// iterations.js - Iterations: every iteration as a stacked bar (grey when
// outside the aggregation), All/Profiled toggle, badges, a zoom range, and
// the range DLProf's expert system suggests (ShowBadIterationRange). The
// trace's names of the iterations (ProfilerStep#N), where it has them, are
// in the table's Step column, the tooltips, the badges and the suggestion.
// "Aggregate again" writes the dlprof command that adds an aggregation of
// other iterations or another key op to the database (dlprofviewer itself
// never changes it). Params: show=profiled, from, to, suggest_start,
// suggest_stop; the iterations table's state under 't.'.

import * as router from '../router.js';
import { get, getAll } from '../api.js';
import { h, replace, fmtInt, note, loading, busyUntil } from '../util.js';
import { iterationChart, setIterations, iterMaxBars } from '../charts.js';
import { DataTable } from '../table.js';
import { card, viewHeader, aggrLine, iterSeries, rangeControls, intParam, barsNote, iterNames, iterLabel, stepColumn } from './common.js';

/** s quoted for a POSIX shell where it needs it. */
export function shellQuote(s) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

/**
 * The "Aggregate again" card: first and last iteration and key op, and the
 * dlprof command that adds that aggregation to this database (ours only:
 * NVIDIA's files hold no raw records to aggregate). set(start, stop) fills
 * the range (the suggested one, the zoom, or the aggregation's own). The
 * key op field offers the aggregation's most-called ops (a key op marks
 * each iteration, so it is called once an iteration).
 */
function reaggregateCard(ctx, aggr, base) {
  const c = card('Aggregate again', { id: 'reaggregate' });
  if (ctx.info.producer !== 'dlprof') {
    c.body.append(
      note(
        'This database was written by NVIDIA DLProf: it holds no raw records to aggregate again. Run NVIDIA DLProf on its Nsight Systems export, or dlprof on the export.',
        'note',
      ),
    );
    return { el: c.el, set() {} };
  }
  const num = (label, key) => h('input', { type: 'number', class: 'range-in', min: 0, step: 1, 'aria-label': label, dataset: { reagg: key } });
  const startEl = num('First iteration to aggregate', 'start');
  const stopEl = num('Last iteration to aggregate', 'stop');
  const keyEl = h('input', {
    type: 'text',
    class: 'reagg-key',
    'aria-label': 'Key op',
    placeholder: 'the default key op',
    list: 'reagg-keys',
    dataset: { reagg: 'key' },
  });
  keyEl.value = aggr.key_node_name || '';
  const keys = h('datalist', { id: 'reagg-keys' });
  if (ctx.has('view_op_nodes'))
    get('op_nodes', { ...base, sort: 'num_calls', order: 'desc', limit: 100 }, { quiet: true })
      .then((r) => {
        const names = [...new Set(r.rows.filter((o) => Number(o.num_calls) > 1).map((o) => String(o.op_node_name)))];
        replace(
          keys,
          names.map((n) => h('option', { value: n })),
        );
      })
      .catch(() => {});
  const code = h('code', { class: 'reagg-cmd' });
  const msg = h('span', { class: 'reagg-msg', role: 'status' });
  const copy = h('button', { type: 'button', class: 'btn btn-small' }, 'Copy');
  const form = h(
    'div',
    { class: 'reagg-form' },
    h('label', null, 'Iterations ', startEl),
    h('label', null, ' to ', stopEl),
    h('label', null, ' key op ', keyEl),
    keys,
  );
  c.body.append(
    h(
      'p',
      { class: 'reagg-hint' },
      'dlprofviewer never changes the database. Run this in its folder to add an aggregation of other iterations or another key op, then reload this page: the new aggregation is in the aggregation menu.',
    ),
    form,
    h('div', { class: 'reagg-line' }, h('pre', { class: 'reagg-pre' }, code), copy, msg),
  );
  const build = () => {
    const a = startEl.value === '' ? null : Math.floor(Number(startEl.value));
    const b = stopEl.value === '' ? null : Math.floor(Number(stopEl.value));
    const parts = ['dlprof', `--database=${shellQuote(ctx.info.database || 'dlprof_dldb.sqlite')}`];
    if (keyEl.value.trim()) parts.push(`--key_op=${shellQuote(keyEl.value.trim())}`);
    if (a !== null) parts.push(`--iter_start=${a}`);
    if (b !== null) parts.push(`--iter_stop=${b}`);
    parts.push('--force=true');
    code.textContent = parts.join(' ');
    const bad = a !== null && b !== null && a > b;
    msg.textContent = bad ? 'The first iteration is after the last.' : '';
    c.el.dataset.valid = String(!bad);
  };
  for (const el of [startEl, stopEl, keyEl]) el.addEventListener('input', build);
  copy.addEventListener('click', () => {
    const done = () => (msg.textContent = 'Copied.');
    const select = () => {
      window.getSelection().selectAllChildren(code);
      msg.textContent = 'Selected: press Ctrl+C to copy.';
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(code.textContent).then(done, select);
    else select();
  });
  build();
  return {
    el: c.el,
    set(start, stop, max) {
      for (const el of [startEl, stopEl]) el.max = String(max);
      if (document.activeElement !== startEl) startEl.value = start === null || start === undefined ? '' : String(start);
      if (document.activeElement !== stopEl) stopEl.value = stop === null || stop === undefined ? '' : String(stop);
      build();
    },
  };
}

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const base = ctx.base(route0);
    const badges = h('div', { class: 'badges' }, loading());
    const suggest = h('div', { class: 'banner banner-info', hidden: true, role: 'status' });
    const range = rangeControls('Zoom');
    const toggle = h('div', { class: 'seg', role: 'group', 'aria-label': 'Iterations shown' });
    const allBtn = h('button', { type: 'button', class: 'seg-btn', dataset: { show: 'all' } }, 'All');
    const profBtn = h('button', { type: 'button', class: 'seg-btn', dataset: { show: 'profiled' } }, 'Profiled');
    toggle.append(allBtn, profBtn);
    allBtn.addEventListener('click', () => router.update({ show: null }));
    profBtn.addEventListener('click', () => router.update({ show: 'profiled' }));
    const canvas = h('canvas', { role: 'img', 'aria-label': 'Time per iteration by category' });
    const chartCard = card('Iteration Summary', { id: 'iterations-chart', tools: [toggle, range.el] });
    const hint = h('div', { class: 'chart-hint' });
    chartCard.body.append(h('div', { class: 'chart-wrap chart-iter-big' }, canvas), hint);
    const chart = iterationChart(canvas, (a, b) => router.update({ from: a, to: b }));
    // a click (no drag) on a bar opens the Timeline on its iterations' time range
    let downX = null;
    canvas.addEventListener('mousedown', (ev) => (downX = ev.offsetX));
    canvas.addEventListener('click', (ev) => {
      if (downX === null || Math.abs(ev.offsetX - downX) > 4 || !all || !ctx.has('view_dl_timeline_tracks')) return;
      const hit = chart.getElementsAtEventForMode(ev, 'index', { intersect: false }, false)[0];
      if (!hit) return;
      const lo = chart.$dlFirst[hit.index];
      const hi = chart.$dlLast[hit.index];
      const rows = all.filter((x) => Number(x.iter_value) >= lo && Number(x.iter_value) <= hi);
      if (!rows.length) return;
      const start = Math.min(...rows.map((x) => Number(x.start_time)));
      const end = Math.max(...rows.map((x) => Number(x.stop_time)));
      router.go('timeline', { ...ctx.base(router.current()), start, end });
    });

    let names = new Map();
    const step = stepColumn();
    const namesP = iterNames(ctx, base.aggr_id).then((n) => {
      names = n;
      step.setNames(n);
    });

    const table = new DataTable({
      id: 'iterations-all',
      title: 'All iterations',
      endpoint: 'iterations_all',
      prefix: 't.',
      noun: 'iterations',
      filterable: false,
      columns: [
        { key: 'iter_value', label: 'Iteration', type: 'int' },
        step,
        { key: 'start_time', label: 'Start', type: 'timestamp' },
        { key: 'stop_time', label: 'Stop', type: 'timestamp' },
        { key: 'duration', label: 'Duration', type: 'time' },
      ],
      baseParams: (r) => ({ aggr_id: ctx.base(r).aggr_id }),
    });

    const reagg = reaggregateCard(ctx, ctx.aggregation(route0) || {}, base);
    busyUntil(table.el, namesP); // the Step column waits for the names
    root.append(viewHeader('Iterations', aggrLine(ctx, route0)), badges, suggest, chartCard.el, table.el, reagg.el);

    const perfP = ctx.has('view_performance_summary') ? get('performance_summary', base, { quiet: true }).catch(() => null) : Promise.resolve(null);
    Promise.all([perfP, namesP]).then(([p]) => {
      const a = ctx.aggregation(route0) || {};
      const badge = (label, value, key) =>
        h('div', { class: 'badge', dataset: { key } }, h('span', { class: 'badge-value' }, fmtInt(value)), h('span', { class: 'badge-label' }, label));
      /* "Start (ProfilerStep#16)": the first and last iteration's names */
      const named = (label, iter) => (names.has(Number(iter)) ? `${label} (${names.get(Number(iter))})` : label);
      const start = p ? p.iter_start : a.iter_start;
      const stop = p ? p.iter_stop : a.iter_stop;
      replace(
        badges,
        badge('Total iterations', p ? p.total_iterations : null, 'total'),
        badge('Profiled iterations', p ? p.profiled_iterations : a.iter_aggregated, 'profiled'),
        badge(named('Start', start), start, 'start'),
        badge(named('Stop', stop), stop, 'stop'),
      );
    });

    let all = null;
    let prof = null;
    const ready = Promise.all([
      getAll('iterations_all', { aggr_id: base.aggr_id }),
      ctx.has('view_iterations_profiled') ? getAll('iterations_profiled', base) : Promise.resolve({ rows: [] }),
      namesP,
    ])
      .then(([a, p]) => {
        all = a.rows;
        prof = p.rows;
      })
      .catch((e) => replace(chartCard.body, note(`Could not load: ${e.message}`, 'note note-error')));

    const draw = (r) => {
      if (!all) return;
      const profiledOnly = r.params.show === 'profiled';
      allBtn.classList.toggle('active', !profiledOnly);
      profBtn.classList.toggle('active', profiledOnly);
      allBtn.setAttribute('aria-pressed', String(!profiledOnly));
      profBtn.setAttribute('aria-pressed', String(profiledOnly));
      const nums = all.map((x) => Number(x.iter_value));
      const min = nums.length ? Math.min(...nums) : 0;
      const max = nums.length ? Math.max(...nums) : 0;
      const from = intParam(r, 'from');
      const to = intParam(r, 'to');
      range.set(min, max, from, to);
      const s = iterSeries(all, prof, from, to, profiledOnly, iterMaxBars(chart));
      const ss = intParam(r, 'suggest_start');
      const se = intParam(r, 'suggest_stop');
      /* the command's range: the suggested one, else the zoom, else the aggregation's */
      const agg = ctx.aggregation(r) || {};
      if (ss !== null || se !== null) reagg.set(ss, se, max);
      else if (from !== null || to !== null) reagg.set(from ?? min, to ?? max, max);
      else reagg.set(agg.iter_start, agg.iter_stop, max);
      chart.$dlMarkers = [];
      if (ss !== null) chart.$dlMarkers.push({ at: String(ss), label: `suggested start ${ss}`, side: 'start' });
      if (se !== null) chart.$dlMarkers.push({ at: String(se), label: `suggested stop ${se}`, side: 'end' });
      setIterations(chart, s, names);
      chartCard.el.dataset.iterations = String(s.count);
      chartCard.el.dataset.bars = String(s.labels.length);
      hint.textContent = `${fmtInt(s.count)} of ${fmtInt(all.length)} iterations shown${barsNote(s)}. Drag across bars to zoom; grey bars are outside the aggregation. In a PyTorch trace an iteration is one profiler step, from its start to its end (until its last kernel ends on a GPU); otherwise it runs from one key op to the next.`;
      suggest.hidden = ss === null && se === null;
      if (!suggest.hidden) {
        const zoom = h('button', { type: 'button', class: 'btn btn-small' }, 'Zoom to this range');
        zoom.addEventListener('click', () => router.update({ from: ss, to: se }));
        replace(
          suggest,
          h('strong', null, 'Suggested iteration range: '),
          h(
            'span',
            { class: 'suggested', dataset: { start: String(ss ?? ''), stop: String(se ?? '') } },
            `${ss === null ? '?' : iterLabel(ss, names)} to ${se === null ? '?' : iterLabel(se, names)}`,
          ),
          '. The aggregated range varies a lot; aggregate the steady part only with ',
          h('code', null, `--iter_start=${ss ?? ''} --iter_stop=${se ?? ''}`),
          ctx.info.producer === 'dlprof' ? ' (the command is under "Aggregate again" below). ' : ' (NVIDIA DLProf: on the Nsight Systems export). ',
          zoom,
        );
      }
    };

    return {
      update(r) {
        ready.then(() => draw(r));
        namesP.then(() => table.update(r)); // the Step column is shown or not from the first page on
      },
      destroy: () => chart.destroy(),
    };
  },
};
