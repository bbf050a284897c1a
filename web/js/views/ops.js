// ops.js - Ops and Kernels: the ops table; a click shows the kernels of
// that op (view_kernel_summaries). Params: op (op_node_id), bad=1 (only ops
// with a bad data type, as DLProf's ShowBadDataTypeOps), table state under
// '' (ops) and 'k.' (kernels).

import { get, getAll } from '../api.js';
import * as router from '../router.js';
import { h, replace, linkify } from '../util.js';
import { DataTable } from '../table.js';
import { viewHeader, aggrLine, opColumns } from './common.js';

const KERNEL_PARAMS = ['k.sort', 'k.order', 'k.offset', 'k.limit', 'k.filter'];

export default {
  id: 'ops',
  title: 'Ops and Kernels',
  needs: ['view_op_nodes', 'view_kernel_summaries'],
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
      columns: opColumns(ctx),
      baseParams: (r) => ({ ...ctx.base(r), is_bad_data_type: r.params.bad === '1' ? 1 : null }),
      rowKey: (row) => row.op_node_id,
      selected: (r) => r.params.op,
      onRowClick: (row) => {
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
        ops.update(r);
        kernels.update(r);
        showOpTitle(r);
      },
    };
  },
};
