// group_ops.js - Group Ops (view_group_ops, DLProf 1.7+): the ops as a tree
// of name scopes. Rows with row_type 1 are groups (row_full_name ends with
// '/', the root is '/'), rows with row_type 2 are ops. Expand/collapse all,
// a name filter (matches and their ancestors) and sibling sorting; params
// expand=all|none, filter, sort, order.

import * as router from '../router.js';
import { getAll, apiUrl } from '../api.js';
import { h, replace, fmtInt, debounce, loading } from '../util.js';
import { cell, isNumeric } from '../table.js';
import { viewHeader, aggrLine } from './common.js';
import { timelineLink } from './timeline.js';

const COLUMNS = [
  { key: 'row_trimmed_name', label: 'Name', cls: 'name tree-name' },
  { key: 'row_type', label: 'Kind', sortable: false, render: (r) => (Number(r.row_type) === 1 ? 'group' : 'op') },
  { key: 'level', label: 'Level', type: 'int' },
  { key: 'num_op_instances', label: 'Calls Aggregated', type: 'int', title: 'Op instances aggregated under this row' },
  { key: 'num_supported_leaf_ops', label: 'TC Eligible Ops', type: 'int' },
  { key: 'num_tc_leaf_ops', label: 'Ops Using TC', type: 'int' },
  { key: 'cpu_time_sum', label: 'CPU Time', type: 'time' },
  { key: 'gpu_time_sum', label: 'GPU Time', type: 'time' },
  { key: 'cpu_overhead_sum', label: 'CPU Overhead', type: 'time' },
  { key: 'gpu_idle_sum', label: 'GPU Idle', type: 'time' },
];

function parentName(name) {
  if (name === '/') return null;
  const s = name.endsWith('/') ? name.slice(0, -1) : name;
  const i = s.lastIndexOf('/');
  return i >= 0 ? s.slice(0, i + 1) : null;
}

export default {
  id: 'group-ops',
  title: 'Group Ops',
  needs: ['view_group_ops'],
  mount(root, ctx) {
    const route0 = router.current();
    const base = ctx.base(route0);
    const expandAll = h('button', { type: 'button', class: 'btn btn-small', dataset: { action: 'expand-all' } }, 'Expand all');
    const collapseAll = h('button', { type: 'button', class: 'btn btn-small', dataset: { action: 'collapse-all' } }, 'Collapse all');
    const filterEl = h('input', { type: 'search', class: 'filter', placeholder: 'Filter by name…', 'aria-label': 'Filter group ops', spellcheck: 'false' });
    const csv = h(
      'a',
      { class: 'btn btn-small', download: '', href: apiUrl('group_ops', { ...base, format: 'csv' }), title: 'Download all rows as CSV' },
      'CSV',
    );
    const count = h('span', { class: 'card-count' });
    const hint = h('div', { class: 'card-hint' }, 'Groups sum the ops below them. Click an op to open it in Ops and Kernels.');
    const thead = h('thead');
    const tbody = h('tbody');
    const table = h('table', { class: 'data tree clickable' }, thead, tbody);
    const section = h(
      'section',
      { class: 'card table-card', dataset: { table: 'group-ops' } },
      h(
        'header',
        { class: 'card-head' },
        h('div', { class: 'card-heading' }, h('h2', { class: 'card-title' }, 'Name scopes and ops'), count),
        h('div', { class: 'card-tools' }, filterEl, expandAll, collapseAll, csv),
      ),
      hint,
      h('div', { class: 'table-scroll' }, table),
    );
    root.append(viewHeader('Group Ops', aggrLine(ctx, route0)), section);
    replace(tbody, h('tr', { class: 'placeholder' }, h('td', { colspan: COLUMNS.length }, loading())));

    let nodes = null; // key -> {row, key, children[]}
    let roots = [];
    const overrides = new Map(); // node key -> open (toggled by hand)

    expandAll.addEventListener('click', () => {
      overrides.clear();
      if (router.current().params.expand === 'all') render(router.current());
      else router.update({ expand: 'all' });
    });
    collapseAll.addEventListener('click', () => {
      overrides.clear();
      if (router.current().params.expand === 'none') render(router.current());
      else router.update({ expand: 'none' });
    });
    filterEl.addEventListener(
      'input',
      debounce(() => router.update({ filter: filterEl.value.trim() || null }, { replace: true }), 250),
    );

    const ready = getAll('group_ops', { ...base, sort: 'row_full_name', order: 'asc' })
      .then((d) => {
        nodes = new Map();
        for (const row of d.rows) {
          const isGroup = Number(row.row_type) === 1;
          const key = isGroup ? `g:${row.row_full_name}` : `o:${row.row_full_id}`;
          nodes.set(key, { row, key, isGroup, children: [] });
        }
        for (const n of nodes.values()) {
          const p = parentName(String(n.row.row_full_name));
          const parent = p !== null ? nodes.get(`g:${p}`) : null;
          if (parent && parent !== n) {
            parent.children.push(n);
            n.parent = parent;
          } else roots.push(n);
        }
        replace(
          hint,
          nodes.has('g:/')
            ? 'Groups sum the ops below them. The root "/" holds the ops in a name scope; ops outside every scope (such as unassociated_* API calls) are listed beside it. '
            : [...nodes.values()].some((n) => n.isGroup)
              ? 'Groups sum the ops below them. '
              : 'No op is in a name scope: the ops are listed without groups. ',
          'Click an op to open it in Ops and Kernels.',
        );
        replace(
          count,
          `${fmtInt(d.rows.filter((r) => Number(r.row_type) === 1).length)} groups, ${fmtInt(d.rows.filter((r) => Number(r.row_type) === 2).length)} ops`,
        );
      })
      .catch((e) => replace(tbody, h('tr', { class: 'placeholder error' }, h('td', { colspan: COLUMNS.length }, `Could not load: ${e.message}`))));

    const renderHead = (sort, order) => {
      replace(
        thead,
        h(
          'tr',
          null,
          COLUMNS.map((c) => {
            const active = sort === c.key;
            const th = h('th', {
              scope: 'col',
              class: [isNumeric(c) ? 'num' : null, active ? 'sorted' : null],
              title: c.title || null,
              'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : null,
            });
            if (c.sortable === false) th.append(c.label);
            else {
              const b = h(
                'button',
                { type: 'button', class: 'sort', dataset: { sort: c.key } },
                c.label,
                h('span', { class: 'arrow', 'aria-hidden': 'true' }, active ? (order === 'asc' ? '▲' : '▼') : ''),
              );
              b.addEventListener('click', () => {
                let o;
                if (active) o = order === 'asc' ? 'desc' : 'asc';
                else o = isNumeric(c) ? 'desc' : 'asc';
                router.update({ sort: c.key, order: o });
              });
              th.append(b);
            }
            return th;
          }),
        ),
      );
    };

    function render(r) {
      if (!nodes) return;
      const sort = r.params.sort || 'row_trimmed_name';
      const order = r.params.order || (sort === 'row_trimmed_name' ? 'asc' : 'desc');
      renderHead(r.params.sort ? sort : null, order);
      const expand = r.params.expand || null;
      const filter = (r.params.filter || '').toLowerCase();
      if (document.activeElement !== filterEl) filterEl.value = r.params.filter || '';
      // Filtering: keep matches and their ancestors, open the ancestors.
      let keep = null;
      const forced = new Set();
      if (filter) {
        keep = new Set();
        for (const n of nodes.values()) {
          if (String(n.row.row_full_name).toLowerCase().includes(filter) || String(n.row.row_full_id).toLowerCase().includes(filter)) {
            for (let p = n; p; p = p.parent) {
              keep.add(p);
              if (p !== n) forced.add(p);
            }
          }
        }
      }
      const col = COLUMNS.find((c) => c.key === sort) || COLUMNS[0];
      const cmp = (a, b) => {
        const x = a.row[col.key];
        const y = b.row[col.key];
        let v = isNumeric(col) ? (Number(x) || 0) - (Number(y) || 0) : String(x).localeCompare(String(y));
        if (v === 0) v = String(a.row.row_full_name).localeCompare(String(b.row.row_full_name));
        return order === 'asc' ? v : -v;
      };
      const isOpen = (n) => {
        if (forced.has(n)) return true;
        if (overrides.has(n.key)) return overrides.get(n.key);
        if (expand === 'all') return true;
        if (expand === 'none') return false;
        return Number(n.row.level) <= 3;
      };
      const out = [];
      const walk = (list, depth) => {
        for (const n of [...list].sort(cmp)) {
          if (keep && !keep.has(n)) continue;
          const hasKids = n.children.length > 0;
          const opened = hasKids && isOpen(n);
          const tr = h('tr', { class: [n.isGroup ? 'tree-group' : 'tree-op'], dataset: { key: n.key, level: String(n.row.level) } });
          if (hasKids) tr.setAttribute('aria-expanded', String(opened));
          COLUMNS.forEach((c, i) => {
            const td = h('td', { class: [isNumeric(c) ? 'num' : null, c.cls] });
            if (i === 0) {
              td.style.paddingLeft = `${0.75 + depth * 1.1}rem`;
              const tog = hasKids
                ? h(
                    'button',
                    { type: 'button', class: 'tree-toggle', 'aria-label': opened ? 'Collapse' : 'Expand', title: n.row.row_full_name },
                    opened ? '▾' : '▸',
                  )
                : h('span', { class: 'tree-leaf', 'aria-hidden': 'true' }, n.isGroup ? '' : '•');
              if (hasKids) {
                tog.addEventListener('click', (ev) => {
                  ev.stopPropagation();
                  overrides.set(n.key, !opened);
                  render(router.current());
                });
              }
              const isRoot = n.row.row_full_name === '/';
              const name = n.row.row_trimmed_name || (isRoot ? '/ (scoped ops)' : n.row.row_full_name);
              const tip = isRoot ? '/: the ops in a name scope; ops outside every scope are listed beside it' : n.row.row_full_name;
              td.append(tog, h('span', { class: 'tree-label', title: tip }, name));
              if (!n.isGroup) td.append(' ', h('span', { class: 'id muted' }, n.row.row_full_id));
              if (!n.isGroup && Number(n.row.gpu_time_sum) > 0 && ctx.has('view_dl_timeline_tracks')) {
                const tl = timelineLink(ctx, { of: 'op', op: n.row.row_full_id }, 'Open the Timeline on this op’s kernels (its first iteration)');
                tl.addEventListener('click', (ev) => ev.stopPropagation()); // not the row's own link to Ops
                td.append(' ', tl);
              }
            } else {
              td.append(cell(c, n.row));
            }
            tr.append(td);
          });
          if (!n.isGroup) {
            tr.tabIndex = 0;
            const go = () => router.go('ops', { ...ctx.base(router.current()), op: n.row.row_full_id });
            tr.addEventListener('click', go);
            tr.addEventListener('keydown', (ev) => {
              if (ev.key === 'Enter') go();
            });
          } else if (hasKids) {
            tr.addEventListener('click', () => tr.querySelector('.tree-toggle').click());
          }
          out.push(tr);
          if (opened) walk(n.children, depth + 1);
        }
      };
      walk(roots, 0);
      // Expand all / Collapse all only where they change something (a flat
      // list of ops has no group to open; a shallow tree is open already).
      const folders = [...nodes.values()].filter((n) => n.children.length && (!keep || keep.has(n)));
      expandAll.disabled = !folders.some((n) => !isOpen(n));
      collapseAll.disabled = !folders.some((n) => isOpen(n));
      if (!out.length)
        out.push(
          h(
            'tr',
            { class: 'placeholder' },
            h('td', { colspan: COLUMNS.length }, nodes.size ? 'No rows match the filter.' : 'No group ops in this aggregation.'),
          ),
        );
      replace(tbody, out);
      section.dataset.rows = String(out.length);
    }

    return {
      update(r) {
        ready.then(() => render(r));
      },
    };
  },
};
