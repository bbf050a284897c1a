// op_types.js - Op Type Summary (view_op_type_summary): per op type, the
// number of ops and calls, then total/avg/min/max of CPU time, GPU time,
// CPU overhead and GPU idle time, under a two-row header.

import * as router from '../router.js';
import { DataTable } from '../table.js';
import { viewHeader, aggrLine } from './common.js';

const METRICS = [
  ['cpu_time', 'CPU Time'],
  ['gpu_time', 'GPU Time'],
  ['cpu_overhead', 'CPU Overhead'],
  ['gpu_idle', 'GPU Idle'],
];
const STATS = [
  ['sum', 'Total'],
  ['avg', 'Avg'],
  ['min', 'Min'],
  ['max', 'Max'],
];

export default {
  mount(root, ctx) {
    const columns = [
      { key: 'op_node_type', label: 'Op Type', type: 'ident' },
      { key: 'num_nodes', label: '#\u00a0Ops', type: 'int', title: 'Distinct ops of this type' },
      { key: 'num_calls', label: '#\u00a0Calls', type: 'int' },
    ];
    for (const [m, label] of METRICS) {
      for (const [s, sl] of STATS) columns.push({ key: `${m}_${s}`, label: sl, type: 'time', title: `${sl} ${label} over the ops of this type` });
    }
    const table = new DataTable({
      id: 'op-types',
      title: 'Op types',
      endpoint: 'op_type_summary',
      noun: 'op types',
      columns,
      groups: [{ label: '', span: 3 }, ...METRICS.map(([, label]) => ({ label, span: 4 }))],
      baseParams: (r) => ctx.base(r),
      empty: 'No ops in this aggregation.',
      filterPlaceholder: 'Filter op types…',
    });
    root.append(viewHeader('Op Type Summary', aggrLine(ctx, router.current())), table.el);
    return { update: (r) => table.update(r) };
  },
};
