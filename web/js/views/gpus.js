// gpus.js - GPUs (only with more than one GPU): utilization per device as a
// bar chart, the device table (view_gpu_devices) and, where the database has
// a timeline, each GPU's longest idle gaps (/api/v1/dl_gpu_idle_gaps), each
// a link to the Timeline on it.

import * as router from '../router.js';
import { get, getAll } from '../api.js';
import { h, replace, note, loading, busyUntil, fmtNs, timeSpan } from '../util.js';
import { pctBarChart } from '../charts.js';
import { DataTable } from '../table.js';
import { card, viewHeader, aggrLine } from './common.js';
import { timelineLink } from './timeline.js';

/** The longest idle gaps of every GPU (whole profile), in a card. */
function gapsCard(ctx) {
  const c = card('Longest Idle Gaps', {
    id: 'idle-gaps',
    sub: h('span', { class: 'card-sub' }, 'when a GPU runs nothing between two of its events, whole profile'),
  });
  c.body.append(loading());
  get('dl_gpu_idle_gaps', { limit: 10 }, { quiet: true })
    .then((d) => {
      if (!d.rows.length) {
        replace(c.body, note('No idle gap between two GPU events.'));
        return;
      }
      const row = (r) =>
        h(
          'tr',
          { dataset: { device: String(r.device_id), start: String(r.start), end: String(r.end) } },
          h('td', { class: 'num' }, String(r.device_id)),
          h('td', { class: 'num' }, timeSpan(r.duration)),
          h('td', { class: 'num', title: fmtNs(r.start) }, `${(Number(r.start) / 1e9).toFixed(6)} s`),
          h('td', null, timelineLink(ctx, { of: 'range', rs: r.start, re: r.end }, `Open the Timeline on this idle gap of GPU ${r.device_id}`)),
        );
      const head = h(
        'tr',
        null,
        ['GPU', 'Idle', 'Start', 'Timeline'].map((t) => h('th', { scope: 'col' }, t)),
      );
      replace(c.body, h('div', { class: 'table-scroll' }, h('table', { class: 'data idle-gaps' }, h('thead', null, head), h('tbody', null, d.rows.map(row)))));
    })
    .catch((e) => replace(c.body, note(`Could not load: ${e.message}`, 'note note-error')));
  return c;
}

export default {
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
    if (ctx.has('view_dl_timeline_tracks')) root.append(gapsCard(ctx).el);
    busyUntil(chartCard.body, getAll('gpu_devices', { ...ctx.base(route0), sort: 'device_id', order: 'asc' }))
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
