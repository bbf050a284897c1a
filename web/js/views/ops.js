// ops.js - Ops and Kernels: the ops table; a click shows the kernels of
// that op (view_kernel_summaries). Params: op (op_node_id), bad=1 (only ops
// with a bad data type, as DLProf's ShowBadDataTypeOps), table state under
// '' (ops) and 'k.' (kernels). Arriving with an op (a link from Group Ops
// or the dashboard) turns the ops table to the page that holds it under the
// current sort and filter, and scrolls its highlighted row into view.

import { get, getAll } from '../api.js';
import * as router from '../router.js';
import { h, replace, linkify, identText } from '../util.js';
import { DataTable } from '../table.js';
import { viewHeader, aggrLine, opColumns } from './common.js';
import { timelineLink } from './timeline.js';

const KERNEL_PARAMS = ['k.sort', 'k.order', 'k.offset', 'k.limit', 'k.filter'];
const SCAN_PAGE = 1000; // the server's largest page

/**
 * The offset of the page (of q.limit rows) that holds op `id` in the ops
 * list of query q (its sort, order and filter), or null when q does not
 * list it. Reads the list in the server's largest pages until it finds it.
 */
async function pageOf(q, id) {
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const d = await get('op_nodes', { ...q, offset, limit: SCAN_PAGE });
    const i = d.rows.findIndex((r) => r.op_node_id === id);
    if (i >= 0) return Math.floor((offset + i) / q.limit) * q.limit;
    if (d.rows.length < SCAN_PAGE || offset + SCAN_PAGE >= Number(d.filtered)) return null;
  }
}

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const banner = h('div', { class: 'banner banner-warn', hidden: true, role: 'status' });
    const toggle = h('button', { type: 'button', class: 'btn btn-small' });
    toggle.addEventListener('click', () => {
      const r = router.current();
      router.update({ bad: r.params.bad === '1' ? null : 1, offset: null, op: null });
    });

    const ops = new DataTable({
      id: 'ops',
      title: 'Ops',
      endpoint: 'op_nodes',
      noun: 'ops',
      // the Op ID links to the Timeline on the op's kernels in the first iteration that runs one
      columns: opColumns(ctx).map((c) =>
        c.key === 'op_node_id' && ctx.has('view_dl_timeline_tracks')
          ? {
              ...c,
              render: (r) =>
                h(
                  'span',
                  null,
                  identText(r.op_node_id),
                  Number(r.kernel_calls) > 0
                    ? [' ', timelineLink(ctx, { of: 'op', op: r.op_node_id }, 'Open the Timeline on this op’s kernels (its first iteration)')]
                    : null,
                ),
            }
          : c,
      ),
      baseParams: (r) => ({ ...ctx.base(r), is_bad_data_type: r.params.bad === '1' ? 1 : null }),
      rowKey: (row) => row.op_node_id,
      selected: (r) => r.params.op,
      // after the table has marked itself loaded
      onData: () => queueMicrotask(locate),
      onRowClick: (row) => {
        clicked = row.op_node_id; // on this page already: no need to find it
        const changes = { op: row.op_node_id };
        for (const k of KERNEL_PARAMS) changes[k] = null;
        router.update(changes);
      },
      hint: 'Click an op to see its kernels.',
      empty: 'No ops in this aggregation.',
    });
    ops.toolsEl.prepend(toggle);

    const kernels = new DataTable({
      id: 'kernels',
      title: 'Kernels',
      endpoint: 'kernel_summaries',
      prefix: 'k.',
      noun: 'kernels',
      columns: [
        { key: 'kernel_name', label: 'Kernel Name', cls: 'name' },
        { key: 'uses_tc', label: 'Uses TC', type: 'bool' },
        { key: 'calls', label: 'Calls', type: 'int' },
        { key: 'gpu_time', label: 'GPU Time', type: 'time' },
        { key: 'avg', label: 'Avg', type: 'time' },
        { key: 'min', label: 'Min', type: 'time' },
        { key: 'max', label: 'Max', type: 'time' },
      ],
      baseParams: (r) => (r.params.op ? { ...ctx.base(r), op_node_id: r.params.op } : null),
      placeholder: 'Select an op above to see its kernels.',
      empty: 'This op launched no kernels.',
      // a kernel opens the Timeline on its op's kernels (the first iteration), its launches highlighted
      onRowClick: ctx.has('view_dl_timeline_tracks')
        ? (row) => router.go('timeline', { ...ctx.base(router.current()), of: 'op', op: router.current().params.op, q: row.kernel_name })
        : undefined,
      hint: ctx.has('view_dl_timeline_tracks') ? 'Click a kernel to see it in the Timeline.' : undefined,
      filterPlaceholder: 'Filter kernels…',
    });

    root.append(viewHeader('Ops and Kernels', aggrLine(ctx, route0)), banner, ops.el, kernels.el);

    let expert = null; // the ShowBadDataTypeOps finding, for the banner
    const expertReady = ctx.has('view_expert_systems')
      ? getAll('expert_systems', { aggr_id: ctx.base(route0).aggr_id }, { quiet: true })
          .then((d) => {
            expert = d.rows.find((r) => r.javascript_function === 'ShowBadDataTypeOps') || null;
          })
          .catch(() => null)
      : Promise.resolve();

    /* --- bringing an op given by the URL into view --- */
    let clicked = null; // an op chosen in the table, not by a link
    let lastOp; // the op of the last route (undefined: none seen yet)
    let locating = null; // the op to bring into view once its page is shown
    let scanning = null; // the op whose page is being looked for
    const locateHint = (nodes) => {
      ops.setHint(...(nodes || ['Click an op to see its kernels.']));
    };
    const locate = () => {
      const id = locating;
      if (!id || ops.el.classList.contains('is-loading')) return;
      const tr = [...ops.bodyEl.rows].find((row) => row.dataset.key === id);
      if (tr) {
        locating = null;
        tr.scrollIntoView({ block: 'center' });
        return;
      }
      if (scanning === id) return;
      const r = router.current();
      const q = ops.query(r);
      if (!q) return;
      scanning = id;
      ops.el.classList.add('is-loading');
      ops.el.setAttribute('aria-busy', 'true');
      const done = () => {
        scanning = null;
        ops.el.classList.remove('is-loading');
        ops.el.setAttribute('aria-busy', 'false');
      };
      pageOf(q, id)
        .then((offset) => {
          done();
          const now = router.current();
          // the user moved on meanwhile
          if (locating !== id || now.params.op !== id || JSON.stringify(ops.query(now)) !== JSON.stringify(q)) return;
          if (offset === null) {
            locating = null;
            locateHint([
              h('span', { class: 'warn-text' }, 'Op ', h('code', { class: 'id' }, id), ' is not among the ops listed here'),
              q.filter || q.is_bad_data_type ? ' (see the filter and the bad-ops toggle).' : '.',
              ' Its kernels are below.',
            ]);
            kernels.el.scrollIntoView({ block: 'start' });
            return;
          }
          router.update({ offset: offset > 0 ? offset : null }, { replace: true });
        })
        .catch(() => {
          done();
          locating = null;
        });
    };

    let shownOp = null;
    const showOpTitle = async (r) => {
      const id = r.params.op;
      if (id === shownOp) return;
      shownOp = id;
      if (!id) {
        kernels.setTitle('Kernels');
        kernels.setHint();
        return;
      }
      kernels.setTitle('Kernels of ', h('code', { class: 'id' }, id));
      try {
        const d = await get('op_nodes', { ...ctx.base(r), op_node_id: id, limit: 1 });
        if (shownOp !== id) return;
        if (!d.rows.length) {
          kernels.setHint(h('span', { class: 'warn-text' }, `No op ${id} in this aggregation.`));
          return;
        }
        const op = d.rows[0];
        kernels.setHint(h('span', { class: 'op-full-name', title: 'Op name' }, op.op_node_name), ' · ', h('span', { class: 'muted' }, op.op_node_type));
      } catch {
        // the banner shows the failure
      }
    };

    return {
      update(r) {
        const bad = r.params.bad === '1';
        toggle.textContent = bad ? 'Show all ops' : 'Show bad ops';
        toggle.title = bad ? 'Show every op' : 'Show only ops whose data type keeps them off Tensor Cores';
        ops.setTitle(bad ? 'Ops with a bad data type' : 'Ops');
        banner.hidden = !bad;
        if (bad) {
          expertReady.then(() => {
            const base = 'Showing only ops that are eligible for Tensor Cores but run in a data type that keeps them off (is_bad_data_type = 1).';
            replace(
              banner,
              h('strong', null, 'Bad data type ops. '),
              expert ? [h('span', { class: 'banner-problem' }, expert.problem), '. ', linkify(expert.recommendation)] : base,
            );
          });
        }
        const op = r.params.op || null;
        if (op !== lastOp) {
          locateHint(null);
          // an op from a link (or history), not a click in this table: find it
          locating = op && op !== clicked ? op : null;
          lastOp = op;
        }
        clicked = null;
        ops.update(r);
        kernels.update(r);
        showOpTitle(r);
        locate();
      },
    };
  },
};
