// runs.js - the runs page: every database the server serves (GET
// /api/v1/runs, read again on each visit, so dldbs copied into a served
// folder appear), searched and sorted here, each linked to its dashboard;
// pick a base and a run to compare them.
//
// The search and the sort live in the URL (#/runs?q=…&sort=…&order=…); the
// picked pair goes to #/compare?base=…&run=….

import * as router from '../router.js';
import { h, replace, fmtInt, fmtPct, timeSpan, debounce, busyUntil } from '../util.js';
import { viewHeader } from './common.js';

const COLUMNS = [
  { key: 'name', label: 'Name', text: true },
  { key: 'producer', label: 'Producer', text: true },
  { key: 'date', label: 'Date', text: true },
  { key: 'num_gpus', label: 'GPUs' },
  { key: 'iterations', label: 'Iterations', title: 'Profiled iterations of the default aggregation' },
  { key: 'iter_avg', label: 'Iteration time', title: 'Mean iteration time of the default aggregation' },
  { key: 'gpu_utilization', label: 'GPU utilization' },
];

const PRODUCERS = { dlprof: 'dlprof', 'nvidia-dlprof': 'NVIDIA DLProf' };

function cellOf(col, row) {
  const v = row[col.key];
  if (!row.ok && col.key !== 'name') return col.key === 'producer' ? h('span', { class: 'run-error', title: row.error }, 'cannot be served') : '';
  switch (col.key) {
    case 'name':
      return h('a', { href: router.href('dashboard', { run: row.run }), class: 'run-link', title: row.path }, row.name);
    case 'producer':
      return PRODUCERS[v] || String(v ?? '');
    case 'num_gpus':
    case 'iterations':
      return fmtInt(v);
    case 'iter_avg':
      return timeSpan(v);
    case 'gpu_utilization':
      return fmtPct(v);
    default:
      return String(v ?? '');
  }
}

export default {
  mount(root, ctx) {
    let rows = [];
    let pick = { base: null, run: null };
    const search = h('input', { type: 'search', class: 'filter runs-search', placeholder: 'Search runs…', 'aria-label': 'Search runs' });
    const count = h('span', { class: 'card-count runs-count' });
    const compare = h('button', { type: 'button', class: 'btn btn-primary runs-compare', disabled: true }, 'Compare');
    const help = h('p', { class: 'view-sub runs-help' }, 'Open a run, or pick a base and a run and compare them.');
    const thead = h('thead');
    const tbody = h('tbody');
    const table = h('table', { class: 'data runs-table' }, thead, tbody);
    const card = h(
      'section',
      { class: 'card', dataset: { panel: 'runs' } },
      h(
        'header',
        { class: 'card-head' },
        h('div', { class: 'card-heading' }, h('h2', { class: 'card-title' }, 'Runs'), count),
        h('div', { class: 'card-tools' }, search, compare),
      ),
      h('div', { class: 'card-body table-wrap' }, table),
    );
    root.append(viewHeader('Runs', help), card);

    search.addEventListener(
      'input',
      debounce(() => router.update({ q: search.value.trim() || null }, { replace: true }), 150),
    );
    compare.addEventListener('click', () => {
      if (pick.base && pick.run) router.go('compare', { base: pick.base, run: pick.run });
    });

    function sortState(route) {
      const key = COLUMNS.some((c) => c.key === route.params.sort) ? route.params.sort : null;
      return { key, desc: route.params.order === 'desc' };
    }

    function header(route) {
      const st = sortState(route);
      replace(
        thead,
        h(
          'tr',
          null,
          h('th', { class: 'pick', title: 'The base of a comparison' }, 'Base'),
          h('th', { class: 'pick', title: 'The run compared with the base' }, 'Run'),
          COLUMNS.map((c) => {
            const on = st.key === c.key;
            const next = on && !st.desc ? 'desc' : on ? 'asc' : c.text ? 'asc' : 'desc';
            return h(
              'th',
              { class: [c.text ? null : 'num', on ? 'sorted' : null], 'aria-sort': on ? (st.desc ? 'descending' : 'ascending') : null, title: c.title || null },
              h(
                'button',
                { type: 'button', class: 'sort', dataset: { sort: c.key }, on: { click: () => router.update({ sort: c.key, order: next }) } },
                c.label,
                on ? (st.desc ? ' ▼' : ' ▲') : '',
              ),
            );
          }),
        ),
      );
    }

    function picker(kind, row) {
      return h('input', {
        type: 'radio',
        name: `runs-${kind}`,
        value: row.run,
        checked: pick[kind] === row.run || null,
        disabled: !row.ok || null,
        'aria-label': `${kind === 'base' ? 'Base' : 'Run'}: ${row.name}`,
        on: {
          change: () => {
            pick[kind] = row.run;
            compare.disabled = !(pick.base && pick.run);
          },
        },
      });
    }

    function body(route) {
      const q = String(route.params.q || '').toLowerCase();
      const st = sortState(route);
      let shown = rows.filter(
        (r) =>
          !q ||
          [r.name, r.path, r.producer, r.date].some((s) =>
            String(s ?? '')
              .toLowerCase()
              .includes(q),
          ),
      );
      if (st.key) {
        const col = COLUMNS.find((c) => c.key === st.key);
        shown = shown.slice().sort((a, b) => {
          const x = a[st.key];
          const y = b[st.key];
          const c = col.text ? String(x ?? '').localeCompare(String(y ?? '')) : (Number(x) || 0) - (Number(y) || 0);
          return st.desc ? -c : c;
        });
      }
      count.textContent = shown.length === rows.length ? `${rows.length} runs` : `${shown.length} of ${rows.length} runs`;
      replace(
        tbody,
        shown.length
          ? shown.map((r) =>
              h(
                'tr',
                { dataset: { run: r.run }, class: r.ok ? null : 'run-bad' },
                h('td', { class: 'pick' }, picker('base', r)),
                h('td', { class: 'pick' }, picker('run', r)),
                COLUMNS.map((c) => h('td', { class: c.text ? null : 'num', dataset: { col: c.key } }, cellOf(c, r))),
              ),
            )
          : h('tr', null, h('td', { colspan: COLUMNS.length + 2, class: 'empty' }, q ? 'No run matches the search.' : 'No dldb is served yet.')),
      );
    }

    let loaded = false;
    let route = router.current();
    busyUntil(tbody, ctx.reloadRuns())
      .then((r) => {
        rows = r;
        loaded = true;
        if (!pick.base && rows.length > 1) pick = { base: rows[0].ok ? rows[0].run : null, run: rows[1].ok ? rows[1].run : null };
        compare.disabled = !(pick.base && pick.run);
        body(route);
      })
      .catch((e) => replace(tbody, h('tr', null, h('td', { colspan: COLUMNS.length + 2, class: 'empty' }, `The runs cannot be listed: ${e.message}`))));
    return {
      update(r) {
        route = r;
        if (document.activeElement !== search) search.value = r.params.q || '';
        header(r);
        if (loaded) body(r);
      },
    };
  },
};
