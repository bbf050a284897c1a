// kernels_by_op.js - Kernels by Op: iterations -> ops in the iteration
// (view_iteration_ops) -> kernels of that op in that iteration
// (view_iteration_op_kernels). Params: iter, op; table state under '', 'o.'
// and 'k.'. Iterations the trace names (ProfilerStep#N) show the name too.

import * as router from '../router.js';
import { h, busyUntil } from '../util.js';
import { DataTable } from '../table.js';
import { viewHeader, aggrLine, iterationColumns, kernelRowColumns, iterNames, iterLabel, stepColumn } from './common.js';
import { timelineColumn, launchFocus } from './timeline.js';

const state = (p) => [`${p}sort`, `${p}order`, `${p}offset`, `${p}limit`, `${p}filter`];

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const pt = ctx.pytorch;
    const step = stepColumn();
    let names = new Map();
    const namesP = iterNames(ctx, ctx.base(route0).aggr_id).then((n) => {
      names = n;
      step.setNames(n);
    });
    const iters = new DataTable({
      id: 'iterations',
      title: 'Iterations',
      endpoint: 'iterations_profiled',
      noun: 'iterations',
      filterable: false,
      columns: iterationColumns(step),
      baseParams: (r) => ctx.base(r),
      rowKey: (row) => row.iter_value,
      selected: (r) => r.params.iter,
      onRowClick: (row) => {
        const c = { iter: row.iter_value, op: null };
        for (const k of [...state('o.'), ...state('k.')]) c[k] = null;
        router.update(c);
      },
      hint: 'Click an iteration to see its ops.',
      empty: 'No profiled iterations.',
    });
    const ops = new DataTable({
      id: 'iteration-ops',
      title: 'Ops',
      endpoint: 'iteration_ops',
      prefix: 'o.',
      noun: 'ops',
      columns: [
        { key: 'op_node_id', label: 'Op ID', type: 'ident' },
        { key: 'op_node_name', label: 'Op Name', type: 'path', cls: 'name' },
        { key: 'direction', label: 'Direction', hidden: !pt },
        { key: 'op_node_type', label: 'Op Type', type: 'ident' },
        { key: 'total_count', label: 'Kernels', type: 'int' },
        { key: 'tc_count', label: 'TC Kernels', type: 'int' },
        { key: 'total_gpu_time', label: 'GPU Time', type: 'time' },
        { key: 'tc_gpu_time', label: 'TC GPU Time', type: 'time' },
        { key: 'data_type', label: 'Data Type' },
        { key: 'stack_trace', label: 'Stack Trace', type: 'stack', hidden: !pt, cls: 'stack' },
      ],
      baseParams: (r) => (r.params.iter !== undefined ? { ...ctx.base(r), iter_value: r.params.iter } : null),
      rowKey: (row) => row.op_node_id,
      selected: (r) => r.params.op,
      onRowClick: (row) => {
        const c = { op: row.op_node_id };
        for (const k of state('k.')) c[k] = null;
        router.update(c);
      },
      placeholder: 'Select an iteration above to see its ops.',
      empty: 'No ops in this iteration.',
    });
    const kernels = new DataTable({
      id: 'iteration-op-kernels',
      title: 'Kernels',
      endpoint: 'iteration_op_kernels',
      prefix: 'k.',
      noun: 'kernels',
      // the Timeline on the launch: its call's start to the kernel's end
      columns: [...kernelRowColumns(false), timelineColumn(ctx, launchFocus, 'Open the Timeline on this launch')].filter(Boolean),
      baseParams: (r) => (r.params.iter !== undefined && r.params.op ? { ...ctx.base(r), iter_value: r.params.iter, op_node_id: r.params.op } : null),
      placeholder: 'Select an op above to see its kernels.',
      empty: 'This op launched no kernels in this iteration.',
      filterPlaceholder: 'Filter kernels…',
    });
    for (const t of [iters, ops, kernels]) busyUntil(t.el, namesP);
    root.append(viewHeader('Kernels by Op', aggrLine(ctx, route0)), iters.el, ops.el, kernels.el);
    return {
      update(r) {
        // after the names: the titles name the iteration, the table knows whether to show Step
        namesP.then(() => {
          const it = r.params.iter;
          const label = it !== undefined ? iterLabel(it, names) : '';
          ops.setTitle(it !== undefined ? ['Ops in iteration ', h('span', { class: 'id' }, label)] : 'Ops');
          kernels.setTitle(
            it !== undefined && r.params.op
              ? ['Kernels of ', h('code', { class: 'id' }, r.params.op), ' in iteration ', h('span', { class: 'id' }, label)]
              : 'Kernels',
          );
          iters.update(r);
          ops.update(r);
          kernels.update(r);
        });
      },
    };
  },
};
