// ranks.js - Ranks (only for a distributed job, view_dl_ranks): per rank its
// iteration time, compute, communication, exposed communication, waiting,
// idle and data loading, with the median and the spread of each; ranks
// sorted so the outliers come first (the largest distance from the median
// of any column, in units of the median iteration); a rank-by-iteration
// heatmap of exposed communication (canvas); the collectives across ranks,
// with their message size and bus bandwidth against the GPU's link. In a
// merge of per-rank dldbs a rank kept as its summary only links to its own
// dldb when the viewer serves it beside the merged one (view_dl_rank_sources).

import * as router from '../router.js';
import { get, getAll } from '../api.js';
import { h, replace, note, loading, fmtTime, fmtInt } from '../util.js';
import { card, viewHeader, aggrLine } from './common.js';

const COLS = [
  { key: 'iter_avg', label: 'Iteration (avg)' },
  { key: 'compute_time', label: 'Compute' },
  { key: 'communication_time', label: 'Communication' },
  { key: 'exposed_communication_time', label: 'Exposed comm.' },
  { key: 'wait_time', label: 'Waiting' },
  { key: 'idle_time', label: 'Idle' },
  { key: 'dataloader_time', label: 'Data loading' },
];

/** The median of numbers (0 for none). */
export function median(v) {
  if (!v.length) return 0;
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Each column's median, min and max over the rows. */
export function spread(rows) {
  const out = {};
  for (const c of COLS) {
    const v = rows.map((r) => Number(r[c.key]) || 0);
    out[c.key] = { median: median(v), min: v.length ? Math.min(...v) : 0, max: v.length ? Math.max(...v) : 0 };
  }
  return out;
}

/** The rows, outliers first: by the largest |value - median| over the columns. */
export function outliersFirst(rows, st) {
  const scale = st.iter_avg.median || 1;
  const score = (r) => Math.max(...COLS.map((c) => Math.abs((Number(r[c.key]) || 0) - st[c.key].median) / scale));
  return rows
    .map((r) => ({ r, s: score(r) }))
    .sort((a, b) => b.s - a.s || a.r.rank - b.r.rank)
    .map((x) => x.r);
}

function summaryTable(st) {
  return h(
    'table',
    { class: 'data-table', id: 'ranks-spread' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, ''),
        COLS.map((c) => h('th', null, c.label)),
      ),
    ),
    h(
      'tbody',
      null,
      ['median', 'min', 'max'].map((k) =>
        h(
          'tr',
          null,
          h('th', null, k),
          COLS.map((c) => h('td', { class: 'num' }, fmtTime(st[c.key][k]))),
        ),
      ),
    ),
  );
}

/** The folder and file name of a path. */
function splitPath(p) {
  const i = String(p || '').lastIndexOf('/');
  return i < 0 ? ['', String(p || '')] : [p.slice(0, i), p.slice(i + 1)];
}

/**
 * The served run of a rank kept as its summary only by a merge (source: its
 * dldb's file name): the run of that name in the folder of the current
 * run, else of that name anywhere; null when not served.
 */
export function sourceRun(runs, current, source) {
  const [dir] = splitPath(current && current.path);
  const named = (runs || []).filter((r) => splitPath(r.path)[1] === source);
  return named.find((r) => splitPath(r.path)[0] === dir) || named[0] || null;
}

/** The rank cell: the rank's iterations here, or its own dldb (a merge's summary-only rank). */
function rankCell(r, src, ctx, route) {
  if (!src || Number(src.detail)) {
    return h('a', { href: router.href('iterations', { ...ctx.base(route), device: r.device_id }) }, String(r.rank));
  }
  const run = sourceRun(ctx.runs, ctx.runRow(route.params.run) || (ctx.runs || [])[0], src.source);
  return run
    ? h('a', { href: router.href('dashboard', { run: run.run }), class: 'rank-source', title: `its own dldb, ${src.source}` }, String(r.rank))
    : h('span', { class: 'rank-summary', title: `summary only: serve ${src.source} beside this dldb for its detail` }, String(r.rank));
}

/**
 * The ranks whose pages of dl_ranks and dl_rank_sources are asked for at
 * once: the profile's GPU count (info) is a merge's GPUs with raw records
 * only, not its ranks, so the pages a thousand ranks need are asked for with
 * the first (a smaller job gets empty pages) instead of after it.
 */
const EXPECT_RANKS = 2000;

/** Tables of up to this many ranks are drawn whole; larger ones draw the rows in view. */
export const ROW_CHUNK = 128;
/** Rows drawn above and below those in view. */
const OVERSCAN = 24;

/**
 * A function that makes a rank's table row: a clone of one empty row whose
 * cells get their text (faster than building each cell anew, for a thousand
 * ranks).
 */
function rowMaker(med, ctx, route, sources) {
  const proto = h(
    'tr',
    null,
    h('td', { class: 'num' }),
    h('td'),
    COLS.map(() => h('td', { class: 'num' })),
  );
  return (r) => {
    const tr = proto.cloneNode(true);
    tr.dataset.rank = String(r.rank);
    if (Number(r.compute_time) > med * 1.05) tr.className = 'rank-outlier';
    const c = tr.children;
    c[0].append(rankCell(r, sources.get(Number(r.device_id)), ctx, route));
    c[1].textContent = r.gpu_name || `device ${r.device_id}`;
    COLS.forEach((col, i) => {
      c[i + 2].textContent = fmtTime(Number(r[col.key]) || 0);
    });
    return tr;
  };
}

/**
 * The ranks table. Up to ROW_CHUNK ranks it holds every row. A larger job's
 * table sits in a scrolling box and holds only the rows in view and
 * OVERSCAN around them, between two empty rows as tall as the rows left
 * out, drawn again as the box scrolls: a thousand rows of nine cells take
 * the browser about a second to lay out, the rows in view a few ms.
 * data-complete is set once every rank's row can be reached.
 */
function rankTable(rows, st, ctx, route, sources) {
  const row = rowMaker(st.compute_time.median, ctx, route, sources);
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'data-table', id: 'ranks-table', dataset: { ranks: String(rows.length) } },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'Rank'),
        h('th', null, 'GPU'),
        COLS.map((c) => h('th', null, c.label)),
      ),
    ),
    body,
  );
  if (rows.length <= ROW_CHUNK) {
    body.append(...rows.map(row));
    table.dataset.complete = '1';
    return table;
  }
  const box = h('div', { class: 'ranks-scroll', id: 'ranks-scroll', tabindex: '0' }, table);
  const pad = () => h('tr', { class: 'ranks-pad', 'aria-hidden': 'true' }, h('td', { colspan: String(COLS.length + 2) }));
  const top = pad();
  const bottom = pad();
  let rowH = 0;
  let shown = '';
  const range = () => [
    Math.max(0, Math.floor(box.scrollTop / rowH) - OVERSCAN),
    Math.min(rows.length, Math.ceil((box.scrollTop + box.clientHeight) / rowH) + OVERSCAN),
  ];
  const paint = () => {
    const [a, b] = range();
    if (shown === `${a}:${b}`) return;
    shown = `${a}:${b}`;
    top.firstChild.style.height = `${a * rowH}px`;
    bottom.firstChild.style.height = `${(rows.length - b) * rowH}px`;
    body.replaceChildren(top, ...rows.slice(a, b).map(row), bottom);
  };
  // the first rows now, enough to fill the box (at most the window's height)
  // with rows of 20 px or more and the overscan below; once laid out, their
  // height sizes the pad below them, and the rows are drawn again only when
  // they do not fill the box or it scrolls
  const first = Math.min(rows.length, Math.ceil(window.innerHeight / 20) + OVERSCAN);
  body.append(top, ...rows.slice(0, first).map(row), bottom);
  requestAnimationFrame(() => {
    if (!table.isConnected) return;
    rowH = body.rows[1].getBoundingClientRect().height || 20;
    const [a, b] = range();
    if (a === 0 && b <= first) {
      shown = `${a}:${b}`;
      bottom.firstChild.style.height = `${(rows.length - first) * rowH}px`;
    } else paint();
    box.addEventListener('scroll', () => requestAnimationFrame(paint), { passive: true });
    table.dataset.complete = '1';
  });
  return box;
}

/** A size in bytes per instance ("" unknown): MiB from 1 MiB, else KiB. */
export function fmtSize(bytes, instances) {
  if (bytes === null || bytes === undefined || !instances) return '';
  const b = Number(bytes) / Number(instances);
  return b >= 1048576 ? `${(b / 1048576).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`;
}

/** A bandwidth in bytes/s as GB/s ("" unknown), with its share of the link. */
export function fmtBw(bps, link) {
  if (bps === null || bps === undefined) return '';
  const gb = `${(Number(bps) / 1e9).toFixed(1)} GB/s`;
  return link ? `${gb} (${((100 * Number(bps)) / Number(link)).toFixed(0)}% of ${(Number(link) / 1e9).toFixed(0)})` : gb;
}

/**
 * The heatmap's cells as typed arrays: devices (ids, ascending) by iters
 * (iteration values, ascending); share[d * iters.length + i], GPU d's
 * exposed communication over its duration in iteration i (at most 1), -1
 * where it has no such iteration or a zero duration.
 */
export function heatGrid(devices, iters, dur, exp) {
  const share = new Float64Array(devices.length * iters.length);
  for (let k = 0; k < share.length; k++) {
    const d = dur[k]; // a number, or null: no cell
    share[k] = d > 0 ? Math.min(1, exp[k] / d) : -1;
  }
  return { devices, iters, share };
}

/** The grid of the pages of dl_rank_iterations (rows of any order). */
function gridOfRows(rows) {
  const devices = [...new Set(rows.map((r) => Number(r.device_id)))].sort((a, b) => a - b);
  const iters = [...new Set(rows.map((r) => Number(r.iter_value)))].sort((a, b) => a - b);
  const di = new Map(devices.map((d, i) => [d, i]));
  const ii = new Map(iters.map((v, i) => [v, i]));
  const n = devices.length * iters.length;
  const dur = new Array(n).fill(null);
  const exp = new Array(n).fill(null);
  for (const r of rows) {
    const k = di.get(Number(r.device_id)) * iters.length + ii.get(Number(r.iter_value));
    dur[k] = Number(r.duration);
    exp[k] = Number(r.exposed_communication_time);
  }
  return heatGrid(devices, iters, dur, exp);
}

/**
 * The heatmap's grid: one request (GET /api/v1/dl_rank_heatmap, form
 * grid: column arrays of GPUs by iterations, both columns in the same unit,
 * so their ratio is that of the ns), else the pages of dl_rank_iterations.
 */
async function heatmapGrid(base) {
  try {
    const m = await get('dl_rank_heatmap', { aggr_id: base.aggr_id, form: 'grid' }, { quiet: true });
    return heatGrid(m.device_id, m.iter_value, m.duration, m.exposed_communication_time);
  } catch {
    const all = await getAll('dl_rank_iterations', { ...base, sort: 'iter_value', order: 'asc' }).catch(() => ({ rows: [] }));
    return gridOfRows(all.rows);
  }
}

/** The heatmap's colours as RGBA words: [0..60] for lightness 95 - i (share i / 60), [61] for no cell. */
function palette() {
  const c = document.createElement('canvas');
  c.width = 62;
  c.height = 1;
  const g = c.getContext('2d');
  if (!g) return null;
  for (let i = 0; i <= 60; i++) {
    g.fillStyle = `hsl(10, 80%, ${95 - i}%)`;
    g.fillRect(i, 0, 1, 1);
  }
  g.fillStyle = '#ddd';
  g.fillRect(61, 0, 1, 1);
  return new Uint32Array(g.getImageData(0, 0, 62, 1).data.buffer);
}

/**
 * Draws the grid on the canvas, a row per rank of ranks (their order), a
 * column per iteration: each cell a block of pixels written into one
 * ImageData (no colour string parsed and no fill per cell, of which a
 * thousand ranks have hundreds of thousands), in the colours a fill of
 * hsl(10, 80%, 95 - 60 x share %) gives.
 */
function drawHeatmap(canvas, ranks, grid) {
  const ni = grid.iters.length;
  const cw = Math.max(2, Math.min(24, Math.floor(720 / Math.max(1, ni))));
  const ch = Math.max(1, Math.min(14, Math.floor(600 / Math.max(1, ranks.length))));
  canvas.width = cw * ni;
  canvas.height = ch * ranks.length;
  const g = canvas.getContext('2d');
  const pal = g && canvas.width && canvas.height ? palette() : null;
  if (!pal) return;
  const img = g.createImageData(canvas.width, canvas.height);
  const px = new Uint32Array(img.data.buffer);
  const at = new Map(Array.from(grid.devices, (d, i) => [Number(d), i]));
  const w = canvas.width;
  const line = new Uint32Array(w);
  const grey = pal[61];
  ranks.forEach((rk, r) => {
    const d = at.get(Number(rk.device_id));
    const base = d === undefined ? -1 : d * ni;
    for (let j = 0, x = 0; j < ni; j++) {
      const v = base < 0 ? -1 : grid.share[base + j];
      const c = v < 0 ? grey : pal[95 - Math.round(95 - 60 * v)];
      for (let e = x + cw; x < e; x++) line[x] = c;
    }
    for (let y = 0; y < ch; y++) px.set(line, (r * ch + y) * w);
  });
  g.putImageData(img, 0, 0);
}

export default {
  mount(root, ctx) {
    const route0 = router.current();
    const spreadCard = card('Median and spread', { id: 'ranks-spread' });
    const tableCard = card('Ranks, outliers first', { id: 'ranks-table' });
    const heatCard = card('Exposed communication per rank and iteration', { id: 'ranks-heatmap' });
    const collCard = card('Collectives', { id: 'ranks-collectives' });
    const canvas = h('canvas', { role: 'img', 'aria-label': 'Exposed communication share, rank by iteration', id: 'ranks-heat' });
    heatCard.body.append(
      h(
        'p',
        { class: 'note' },
        'Rows: ranks in the order of the table; columns: iterations; darker: more of the iteration spent in exposed communication (waiting or transfer).',
      ),
      canvas,
    );
    // each card shows that it waits until the answers come
    for (const c of [spreadCard, tableCard, collCard]) c.body.append(loading());
    root.append(viewHeader('Ranks', aggrLine(ctx, route0)), spreadCard.el, tableCard.el, heatCard.el, collCard.el);
    const base = ctx.base(route0);
    Promise.all([
      // one row per GPU: every page asked for at once
      getAll('dl_ranks', { ...base, sort: 'rank', order: 'asc' }, { expect: Math.max(ctx.numGpus, EXPECT_RANKS) }),
      heatmapGrid(base),
      getAll('dl_collectives', { ...base, sort: 'total_time', order: 'desc' }).catch(() => ({ rows: [] })),
      ctx.has('view_dl_rank_sources')
        ? getAll('dl_rank_sources', { sort: 'rank', order: 'asc' }, { expect: Math.max(ctx.numGpus, EXPECT_RANKS) }).catch(() => ({ rows: [] }))
        : { rows: [] },
    ])
      .then(([ranks, grid, colls, srcs]) => {
        const sources = new Map(srcs.rows.map((x) => [Number(x.device_id), x]));
        if (!ranks.rows.length) {
          replace(tableCard.body, note('No ranks in this aggregation.'));
          replace(spreadCard.body);
          replace(collCard.body);
          return;
        }
        const st = spread(ranks.rows);
        const rows = outliersFirst(ranks.rows, st);
        replace(spreadCard.body, summaryTable(st));
        replace(tableCard.body, rankTable(rows, st, ctx, route0, sources));
        drawHeatmap(canvas, rows, grid);
        replace(
          collCard.body,
          colls.rows.length
            ? h(
                'table',
                { class: 'data-table', id: 'ranks-colls' },
                h(
                  'thead',
                  null,
                  h(
                    'tr',
                    null,
                    [
                      'Kernel',
                      'Ranks',
                      'Instances',
                      'Avg',
                      'Start skew (avg)',
                      'Start skew (max)',
                      'Last rank',
                      'Transfer',
                      'Size (avg)',
                      'Bus bandwidth (of link, GB/s)',
                    ].map((t) => h('th', null, t)),
                  ),
                ),
                h(
                  'tbody',
                  null,
                  colls.rows.map((c) =>
                    h(
                      'tr',
                      null,
                      h('td', null, c.kernel_name),
                      h('td', { class: 'num' }, fmtInt(c.ranks)),
                      h('td', { class: 'num' }, fmtInt(c.instances)),
                      h('td', { class: 'num' }, fmtTime(c.avg)),
                      h('td', { class: 'num' }, fmtTime(c.start_skew_avg)),
                      h('td', { class: 'num' }, fmtTime(c.start_skew_max)),
                      h('td', { class: 'num' }, `rank ${c.last_rank} (${c.last_rank_count}×)`),
                      h('td', { class: 'num' }, fmtTime(c.transfer_time)),
                      h('td', { class: 'num' }, fmtSize(c.bytes, c.instances)),
                      h('td', { class: 'num', title: c.collective || '' }, fmtBw(c.bus_bandwidth, c.link_bandwidth)),
                    ),
                  ),
                ),
              )
            : note('No collective ran on every rank.'),
        );
      })
      .catch((e) => {
        replace(tableCard.body, note(`Could not load: ${e.message}`, 'note note-error'));
        replace(spreadCard.body);
        replace(collCard.body);
      });
    return { update: () => {} };
  },
};
