// gpus.js - GPUs (only with more than one GPU): utilization per device as a
// bar chart and the device table (view_gpu_devices).

import * as router from '../router.js';
import { getAll } from '../api.js';
import { h, replace, note } from '../util.js';
import { pctBarChart } from '../charts.js';
import { DataTable } from '../table.js';
import { card, viewHeader, aggrLine } from './common.js';

export default {
  id: 'gpus',
  title: 'GPUs',
  needs: ['view_gpu_devices'],
  visible: (ctx) => ctx.numGpus > 1,
  mount(root, ctx) {
    const route0 = router.current();
    const canvas = h('canvas', { role: 'img', 'aria-label': 'GPU utilization per device' });
    const chartCard = card('GPU Utilization (%)', { id: 'gpu-chart' });
    chartCard.body.append(h('div', { class: 'chart-wrap chart-gpus' }, canvas));
    const chart = pctBarChart(canvas, 'GPU Utilization (%)');
    const table = new DataTable({
      id: 'gpus',
      title: 'Devices',
      endpoint: 'gpu_devices',
      noun: 'GPUs',
      columns: [
        { key: 'device_id', label: 'Device ID', type: 'int' },
        { key: 'gpu_name', label: 'GPU Name' },
        { key: 'device_gpu_utilization', label: 'GPU Utilization', type: 'pct' },
        { key: 'cuda_major', label: 'Compute Capability', sortable: false, render: (r) => `${r.cuda_major}.${r.cuda_minor}` },
        { key: 'sm_count', label: 'SM Count', type: 'int' },
      ],
      baseParams: (r) => ctx.base(r),
      filterPlaceholder: 'Filter GPU names…',
    });
    root.append(viewHeader('GPUs', aggrLine(ctx, route0)), chartCard.el, table.el);
    getAll('gpu_devices', { ...ctx.base(route0), sort: 'device_id', order: 'asc' })
      .then((d) => {
        // a rank's GPU by its name ("rank R, GPU D (name)"), not its composite id
        chart.data.labels = d.rows.map((r) => (/^rank \d+, GPU /.test(r.gpu_name || '') ? r.gpu_name.replace(/ \(.*\)$/, '') : `GPU ${r.device_id}`));
        chart.data.datasets[0].data = d.rows.map((r) => Number(r.device_gpu_utilization) || 0);
        chart.update();
      })
      .catch((e) => replace(chartCard.body, note(`Could not load: ${e.message}`, 'note note-error')));
    return {
      update: (r) => table.update(r),
      destroy: () => chart.destroy(),
    };
  },
};
