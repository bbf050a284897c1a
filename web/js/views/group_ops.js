// group_ops.js - Group Ops (view_group_ops, DLProf 1.7+): the ops as a tree
// of name scopes. Rows with row_type 1 are groups (row_full_name ends with
// '/', the root is '/'), rows with row_type 2 are ops. The server pages the
// tree (docs/api.md, "Group Ops as a tree"): the top rows (top=1) and the
// children of each open group (parent=NAME), a page at a time, sorted and
// filtered there; "Show more" asks for a group's next page. Expand/collapse
// all, a name filter (matches and the groups on the way to them, open) and
// sibling sorting; params expand=all|none, filter, sort, order, limit.

import * as router from '../router.js';
import { get, apiUrl } from '../api.js';
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

const PAGE = 100; // children asked for at a time; the route's `limit` (1-1000) overrides it

export default {
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

    // The pages read so far: parent name ('' for the top rows) -> {rows, filtered, pending, failed}.
    // They hold for one sort, order, filter and page size (shown); a change reads afresh.
    let kids = new Map();
    let shown = null;
    let gen = 0; // answers for an older `shown` are dropped
    const overrides = new Map(); // node key -> open (toggled by hand)
    let current = null; // the route being rendered

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

    const rowCount = (params) => get('group_ops', { ...base, ...params, limit: 1 }).then((d) => Number(d.total) || 0);
    const ready = Promise.all([rowCount({ row_type: 1 }), rowCount({ row_type: 2 }), rowCount({ row_type: 1, row_full_name: '/' })])
      .then(([groups, ops, root]) => {
        replace(
          hint,
          root
            ? 'Groups sum the ops below them. The root "/" holds the ops in a name scope; ops outside every scope (such as unassociated_* API calls) are listed beside it. '
            : groups
              ? 'Groups sum the ops below them. '
              : 'No op is in a name scope: the ops are listed without groups. ',
          'Click an op to open it in Ops and Kernels.',
        );
        replace(count, `${fmtInt(groups)} groups, ${fmtInt(ops)} ops`);
      })
      .catch((e) => replace(tbody, h('tr', { class: 'placeholder error' }, h('td', { colspan: COLUMNS.length }, `Could not load: ${e.message}`))));

    // Answers that come together (the groups an "Expand all" opens) render once.
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        if (current) render(current);
      }, 0);
    };

    /** Reads the next page of parent's children (the first when none is read); renders when it comes. */
    function load(parent, q) {
      let k = kids.get(parent);
      if (!k) {
        k = { rows: [], filtered: null, pending: false, failed: null };
        kids.set(parent, k);
      }
      if (k.pending) return;
      k.pending = true;
      k.failed = null;
      const my = gen;
      const where = parent === '' ? { top: 1 } : { parent };
      get('group_ops', { ...base, ...where, sort: q.sort, order: q.order, filter: q.filter || null, limit: q.page, offset: k.rows.length }, { quiet: true })
        .then((d) => {
          if (my !== gen) return;
          k.rows.push(...d.rows);
          k.filtered = Number(d.filtered) || 0;
        })
        .catch((e) => {
          if (my === gen) k.failed = e.message;
        })
        .finally(() => {
          if (my !== gen) return;
          k.pending = false;
          later();
        });
    }

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

    const placeholder = (depth, ...children) => {
      const td = h('td', { colspan: COLUMNS.length }, ...children);
      td.style.paddingLeft = `${0.75 + depth * 1.1}rem`;
      return h('tr', { class: 'placeholder' }, td);
    };

    /** The row of one node; toggles and links as the node allows. */
    function nodeRow(n, depth, opened) {
      const { row, key, isGroup } = n;
      const tr = h('tr', { class: [isGroup ? 'tree-group' : 'tree-op'], dataset: { key, level: String(row.level) } });
      if (isGroup) tr.setAttribute('aria-expanded', String(opened));
      COLUMNS.forEach((c, i) => {
        const td = h('td', { class: [isNumeric(c) ? 'num' : null, c.cls] });
        if (i === 0) {
          td.style.paddingLeft = `${0.75 + depth * 1.1}rem`;
          const tog = isGroup
            ? h('button', { type: 'button', class: 'tree-toggle', 'aria-label': opened ? 'Collapse' : 'Expand', title: row.row_full_name }, opened ? '▾' : '▸')
            : h('span', { class: 'tree-leaf', 'aria-hidden': 'true' }, '•');
          if (isGroup) {
            tog.addEventListener('click', (ev) => {
              ev.stopPropagation();
              overrides.set(key, !opened);
              render(router.current());
            });
          }
          const isRoot = row.row_full_name === '/';
          const name = row.row_trimmed_name || (isRoot ? '/ (scoped ops)' : row.row_full_name);
          const tip = isRoot ? '/: the ops in a name scope; ops outside every scope are listed beside it' : row.row_full_name;
          td.append(tog, h('span', { class: 'tree-label', title: tip }, name));
          if (!isGroup) td.append(' ', h('span', { class: 'id muted' }, row.row_full_id));
          if (!isGroup && Number(row.gpu_time_sum) > 0 && ctx.has('view_dl_timeline_tracks')) {
            const tl = timelineLink(ctx, { of: 'op', op: row.row_full_id }, 'Open the Timeline on this op’s kernels (its first iteration)');
            tl.addEventListener('click', (ev) => ev.stopPropagation()); // not the row's own link to Ops
            td.append(' ', tl);
          }
        } else {
          td.append(cell(c, row));
        }
        tr.append(td);
      });
      if (!isGroup) {
        tr.tabIndex = 0;
        const go = () => router.go('ops', { ...ctx.base(router.current()), op: row.row_full_id });
        tr.addEventListener('click', go);
        tr.addEventListener('keydown', (ev) => {
          if (ev.key === 'Enter') go();
        });
      } else {
        tr.addEventListener('click', () => tr.querySelector('.tree-toggle').click());
      }
      return tr;
    }

    function render(r) {
      current = r;
      const sort = r.params.sort || 'row_trimmed_name';
      const order = r.params.order || (sort === 'row_trimmed_name' ? 'asc' : 'desc');
      const filter = r.params.filter || '';
      const limit = Math.trunc(Number(r.params.limit));
      const q = { sort, order, filter, page: limit >= 1 && limit <= 1000 ? limit : PAGE };
      const qk = JSON.stringify(q);
      if (qk !== shown) {
        shown = qk;
        gen++;
        kids = new Map();
      }
      renderHead(r.params.sort ? sort : null, order);
      const expand = r.params.expand || null;
      if (document.activeElement !== filterEl) filterEl.value = filter;
      const isOpen = (key, level) => {
        if (overrides.has(key)) return overrides.get(key);
        if (expand === 'all') return true;
        if (expand === 'none') return false;
        if (filter) return true; // the way down to the matches
        return Number(level) <= 3;
      };
      const out = [];
      let anyOpen = false;
      let anyClosed = false;
      let busy = false;
      const walk = (parent, depth) => {
        const k = kids.get(parent);
        if (!k || (k.filtered === null && !k.failed)) {
          if (!k || !k.pending) load(parent, q);
          out.push(placeholder(depth, loading()));
          busy = true;
          return;
        }
        for (const row of k.rows) {
          const isGroup = Number(row.row_type) === 1;
          const key = isGroup ? `g:${row.row_full_name}` : `o:${row.row_full_id}`;
          const opened = isGroup && isOpen(key, row.level);
          if (isGroup) {
            if (opened) anyOpen = true;
            else anyClosed = true;
          }
          out.push(nodeRow({ row, key, isGroup }, depth, opened));
          if (opened) walk(row.row_full_name, depth + 1);
        }
        if (k.failed) {
          out.push(h('tr', { class: 'placeholder error' }, h('td', { colspan: COLUMNS.length }, `Could not load: ${k.failed}`)));
        } else if (k.pending) {
          out.push(placeholder(depth, loading()));
          busy = true;
        } else if (k.rows.length < k.filtered) {
          const left = k.filtered - k.rows.length;
          const more = h(
            'button',
            { type: 'button', class: 'btn btn-small', dataset: { action: 'more', parent } },
            `Show ${fmtInt(Math.min(left, q.page))} more`,
          );
          more.addEventListener('click', () => {
            load(parent, q);
            render(router.current());
          });
          const tr = placeholder(depth, more, ` (${fmtInt(k.rows.length)} of ${fmtInt(k.filtered)} shown)`);
          tr.className = 'tree-more';
          out.push(tr);
        }
      };
      walk('', 0);
      // Expand all / Collapse all only where they change something (a flat
      // list of ops has no group to open; a shallow tree is open already).
      expandAll.disabled = !anyClosed;
      collapseAll.disabled = !anyOpen;
      const top = kids.get('');
      if (top && top.filtered === 0 && !top.failed) out.push(placeholder(0, filter ? 'No rows match the filter.' : 'No group ops in this aggregation.'));
      replace(tbody, out);
      section.setAttribute('aria-busy', String(busy));
      section.dataset.rows = String(out.length);
    }

    return {
      update(r) {
        ready.then(() => render(r));
      },
    };
  },
};
