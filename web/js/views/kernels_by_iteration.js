// kernels_by_iteration.js - Kernels by Iteration: the profiled iterations;
// a click shows every kernel launched in that iteration
// (view_iteration_kernels). Params: iter, table state under '' and 'k.'.
// Iterations the trace names (ProfilerStep#N) show the name too.

import * as router from '../router.js';
import { h, busyUntil } from '../util.js';
import { DataTable } from '../table.js';
import { viewHeader, aggrLine, iterationColumns, kernelRowColumns, iterNames, iterLabel, stepColumn } from './common.js';
import { timelineColumn, launchFocus } from './timeline.js';

const KERNEL_PARAMS = ['k.sort', 'k.order', 'k.offset', 'k.limit', 'k.filter'];

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const steps = [stepColumn(), stepColumn()]; // the two iteration tables' Step columns
    let names = new Map();
    const namesP = iterNames(ctx, ctx.base(route0).aggr_id).then((n) => {
      names = n;
      for (const s of steps) s.setNames(n);
    });
    const iters = new DataTable({
      id: 'iterations',
      title: 'Iterations',
      endpoint: 'iterations_profiled',
      noun: 'iterations',
      filterable: false,
      columns: iterationColumns(steps[0]),
      baseParams: (r) => ctx.base(r),
      rowKey: (row) => row.iter_value,
      selected: (r) => r.params.iter,
      onRowClick: (row) => {
        const c = { iter: row.iter_value };
        for (const k of KERNEL_PARAMS) c[k] = null;
        router.update(c);
      },
      hint: 'Click an iteration to see its kernels.',
      empty: 'No profiled iterations.',
    });
    const kernels = new DataTable({
      id: 'iteration-kernels',
      title: 'Kernels',
      endpoint: 'iteration_kernels',
      prefix: 'k.',
      noun: 'kernels',
      // the Timeline on the launch: its call's start to the kernel's end
      columns: [...kernelRowColumns(true), timelineColumn(ctx, launchFocus, 'Open the Timeline on this launch')].filter(Boolean),
      baseParams: (r) => (r.params.iter !== undefined ? { ...ctx.base(r), iter_value: r.params.iter } : null),
      placeholder: 'Select an iteration above to see its kernels.',
      empty: 'No kernels in this iteration.',
      filterPlaceholder: 'Filter op or kernel…',
    });
    /* Our view_dl_* extensions: est. SM efficiency (blocks per SM from Kineto
     * traces, else grids and SM counts) and achieved occupancy (Kineto traces
     * only) per iteration and per kernel. */
    const extra = [];
    if (ctx.has('view_dl_iteration_efficiency'))
      extra.push(
        new DataTable({
          id: 'iteration-efficiency',
          title: 'Est. SM Efficiency by Iteration',
          endpoint: 'dl_iteration_efficiency',
          prefix: 'ie.',
          noun: 'iterations',
          filterable: false,
          columns: [
            { key: 'iter_value', label: 'Iteration', type: 'int' },
            steps[1],
            { key: 'device_id', label: 'GPU', type: 'int' },
            { key: 'duration', label: 'Duration', type: 'time' },
            { key: 'gpu_utilization', label: 'GPU Utilization', type: 'pct' },
            { key: 'est_sm_efficiency', label: 'Est. SM Efficiency', type: 'pct' },
            { key: 'est_achieved_occupancy', label: 'Est. Achieved Occupancy', type: 'pct' },
            { key: 'exposed_communication_time', label: 'Exposed Communication', type: 'time' },
          ],
          baseParams: (r) => ctx.base(r),
          empty: 'No iterations.',
        }),
      );
    if (ctx.has('view_dl_kernel_efficiency'))
      extra.push(
        new DataTable({
          id: 'kernel-efficiency',
          title: 'Kernels: Est. SM Efficiency and Occupancy (aggregated iterations)',
          endpoint: 'dl_kernel_efficiency',
          prefix: 'ke.',
          noun: 'kernels',
          columns: [
            { key: 'kernel_name', label: 'Kernel Name', type: 'long', cls: 'name' },
            { key: 'calls', label: 'Calls', type: 'int' },
            { key: 'gpu_time', label: 'Total Duration', type: 'time' },
            { key: 'avg', label: 'Mean Duration', type: 'time' },
            { key: 'uses_tc', label: 'Uses TC', type: 'bool' },
            { key: 'is_communication', label: 'Communication', type: 'bool' },
            { key: 'mean_blocks_per_sm', label: 'Mean Blocks per SM', type: 'float' },
            { key: 'est_sm_efficiency', label: 'Est. SM Efficiency', type: 'pct' },
            { key: 'mean_est_achieved_occupancy', label: 'Mean Est. Achieved Occupancy', type: 'pct' },
          ],
          baseParams: (r) => ctx.base(r),
          empty: 'No kernels.',
          filterPlaceholder: 'Filter kernels…',
        }),
      );
    for (const t of [iters, kernels, ...extra]) busyUntil(t.el, namesP);
    root.append(viewHeader('Kernels by Iteration', aggrLine(ctx, route0)), iters.el, kernels.el, ...extra.map((t) => t.el));
    return {
      update(r) {
        // after the names: the titles name the iteration, the tables know whether to show Step
        namesP.then(() => {
          kernels.setTitle(r.params.iter !== undefined ? ['Kernels in iteration ', h('span', { class: 'id' }, iterLabel(r.params.iter, names))] : 'Kernels');
          iters.update(r);
          kernels.update(r);
          for (const t of extra) t.update(r);
        });
      },
    };
  },
};
