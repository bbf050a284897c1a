// timeline.js - Timeline (view_dl_timeline_tracks, /api/v1/dl_timeline): a
// canvas of tracks (iterations, GPU streams, CUDA API threads, range
// threads, Python frames per thread, nested by depth) over time. For each
// visible track the server answers the window at the canvas's width: raw
// events when few, else bins (docs/api.md "The timeline's window"), so a
// long profile draws in one request per track.
// Drag pans; the wheel, W/S zoom and A/D pan; shift-drag measures a range on
// the ruler; a click selects an event and shows its details; the search box
// highlights events whose name holds the text. Group headers collapse. The
// URL holds the window (start, end in ns), the selection (sel=track:start)
// and the search (q). A selected event's details come from
// /api/v1/dl_timeline_event: grid and block, its op (links to the Ops and
// Kernels by Op pages), its CUDA call or kernels (an arrow from the call to
// the kernel, a button that selects the other end), a Python frame's
// enclosing frames (each a button that selects it). "Export window"
// downloads the window's events as Chrome trace JSON. Names reach the page
// through textContent and canvas fillText only.
//
// Other pages open it on a row's range (timelineLink): the URL names the
// row (of=op&op=ID[&iter=N], of=kernel&iter&at&device_id&name,
// of=iteration&iter=N, of=finding&finding=NTH) and the page asks
// /api/v1/dl_timeline_focus for its range and event, or holds the range
// itself (of=range&rs=S&re=E: an idle gap); it then shows the range with a
// tenth of its length on each side, shaded, its event selected, and puts
// the window, the selection and the search in the URL in place of the row.

import * as router from '../router.js';
import { get, getAll } from '../api.js';
import { h, replace, note, fmtTime, fmtNs, fmtInt, debounce } from '../util.js';
import { card, viewHeader } from './common.js';

const HEAD_W = 220; // px: the track headers' column
const RULER_H = 24;
const ROW_H = 22;
const GROUP_H = 20;
const GROUPS = [
  ['iterations', 'Iterations'],
  ['gpu_stream', 'GPU streams'],
  ['cpu_thread', 'CPU threads: CUDA API'],
  ['cpu_ranges', 'CPU threads: ops and NVTX ranges'],
  ['python_thread', 'CPU threads: Python frames'],
];
// Python frames nest: a python_thread row is a stack of levels, as deep as
// the deepest frame drawn so far (up to PY_LEVELS; deeper frames share the
// last level).
const PY_KIND = 'python_thread';
const PY_LEVEL_H = 12;
const PY_LEVELS = 24;
const ZOOM_STEP = 1.25;
const PAN_STEP = 0.1;

const colors = new Map(); // name -> colour: a long kernel name is hashed once, not at every draw

/** A stable colour for a name (hue from its hash). */
function colorOf(name, nccl) {
  if (nccl) return '#c2410c';
  const s = String(name);
  let c = colors.get(s);
  if (c) return c;
  let x = 0;
  for (let i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0;
  c = `hsl(${Math.abs(x) % 360} 55% 55%)`;
  if (colors.size > 50000) colors.clear();
  colors.set(s, c);
  return c;
}

/** The categories /api/v1/dl_timeline_event details. */
const DETAIL_CATEGORIES = new Set(['kernel', 'memcpy', 'memset', 'cuda_api', 'range', 'python_function']);

/**
 * Sets each event's depth (e.depth, 0: outermost) from how the answer's
 * events nest (an event inside the one before it that has not ended is one
 * level deeper); returns the deepest level + 1.
 */
function nestFrames(events) {
  const order = [...events].sort((a, b) => a.start - b.start || b.dur - a.dur);
  const open = []; // ends of the enclosing frames
  let levels = 0;
  for (const e of order) {
    while (open.length && open[open.length - 1] <= e.start) open.pop();
    e.depth = open.length;
    open.push(e.start + Math.max(0, e.dur));
    levels = Math.max(levels, e.depth + 1);
  }
  return levels;
}

/** The URL keys that name a row to open on (dropped once it is open). */
const FOCUS_KEYS = ['of', 'op', 'iter', 'at', 'device_id', 'name', 'finding', 'rs', 're'];

/**
 * A link that opens the Timeline on a row's range. params: of and its keys
 * (above), and q to highlight names there.
 */
export function timelineLink(ctx, params, title) {
  return h(
    'a',
    {
      href: router.href('timeline', { ...ctx.base(router.current()), ...params }),
      class: 'timeline-link',
      title: title || 'Open the Timeline on this range',
    },
    'Timeline',
  );
}

/** A table column of timelineLink(ctx, params(row)) (none where params gives null), where the database has a timeline. */
export function timelineColumn(ctx, params, title) {
  return ctx.has('view_dl_timeline_tracks')
    ? {
        key: 'timeline',
        label: 'Timeline',
        sortable: false,
        render: (r) => {
          const p = params(r);
          return p ? timelineLink(ctx, p, title) : '';
        },
      }
    : null;
}

/** The focus of a kernel launch row (view_iteration_kernels, view_iteration_op_kernels). */
export const launchFocus = (r) => ({ of: 'kernel', iter: r.iter_value, at: r.kernel_timestamp, device_id: r.device_id, name: r.kernel_name });

const num = (v, d) => (v === undefined || v === null || v === '' || !Number.isFinite(Number(v)) ? d : Number(v));

export default {
  mount(root, ctx) {
    const base = () => (ctx && ctx.base ? ctx.base(router.current()) : {});
    const search = h('input', {
      type: 'search',
      class: 'input',
      placeholder: 'Highlight names…',
      'aria-label': 'Highlight events whose name holds this text',
      id: 'timeline-search',
    });
    const measure = h('span', { class: 'timeline-measure', id: 'timeline-measure' });
    const canvas = h('canvas', {
      class: 'timeline-canvas',
      tabindex: '0',
      role: 'img',
      'aria-label': 'Timeline: tracks over time; drag to pan, wheel or W/S to zoom, A/D to pan',
    });
    const details = h('div', { class: 'timeline-details', id: 'timeline-details' }, 'Click an event for its details.');
    const exportBtn = h(
      'button',
      { type: 'button', class: 'btn btn-small', id: 'timeline-export', title: 'Download the window as Chrome trace JSON (Perfetto, chrome://tracing)' },
      'Export window',
    );
    const c = card('Timeline', { id: 'timeline', tools: [measure, search, exportBtn] });
    const focusLine = h('div', { class: 'chart-hint', id: 'timeline-focus' });
    c.body.append(focusLine, h('div', { class: 'timeline-wrap' }, canvas), details);
    const hint = h(
      'div',
      { class: 'chart-hint' },
      'Drag to pan · wheel or W/S to zoom · A/D to pan · shift-drag to measure · click a group header to collapse it.',
    );
    c.body.append(hint);
    root.append(viewHeader('Timeline', 'Every track of the profile: GPU streams, CUDA API calls, ops, ranges and Python frames per thread, iterations.'), c.el);

    const st = {
      tracks: [],
      full: [0, 1], // the whole profile's span, ns
      start: 0,
      end: 1,
      collapsed: new Set(),
      data: new Map(), // track_id -> answer of the current window
      rows: [], // drawn rows: {y, h, group, track}
      sel: null, // {track_id, start}
      flow: null, // {from: {track_id, start}, to: {track_id, start}}: a CUDA call and its kernel
      q: '',
      measure: null, // [t0, t1]
      seq: 0,
      counts: new Map(), // track_id -> {drawn, lit}: what its row shows
      levels: new Map(), // python_thread track_id -> levels its row shows (grows as deeper frames come)
      drawMs: 0, // time spent drawing and how many draws (bench/timeline_page.mjs reads them)
      draws: 0,
    };

    const width = () => Math.max(1, canvas.clientWidth - HEAD_W);
    const xOf = (t) => HEAD_W + ((t - st.start) / (st.end - st.start)) * width();
    const tOf = (x) => st.start + ((x - HEAD_W) / width()) * (st.end - st.start);

    function layout() {
      st.rows = [];
      let y = RULER_H;
      for (const [kind, label] of GROUPS) {
        const tr = st.tracks.filter((t) => t.kind === kind);
        if (!tr.length) continue;
        st.rows.push({ y, h: GROUP_H, group: kind, label: `${st.collapsed.has(kind) ? '▸' : '▾'} ${label} (${tr.length})` });
        y += GROUP_H;
        if (st.collapsed.has(kind)) continue;
        for (const t of tr) {
          const hh = t.kind === PY_KIND ? rowLevels(t) * PY_LEVEL_H + 5 : ROW_H;
          st.rows.push({ y, h: hh, track: t });
          y += hh;
        }
      }
      return y;
    }

    /** The levels of a Python track's row. */
    const rowLevels = (t) => Math.min(PY_LEVELS, Math.max(1, st.levels.get(t.track_id) || 1));

    function draw() {
      const t0 = performance.now();
      const dpr = window.devicePixelRatio || 1;
      const hgt = layout() + 4;
      canvas.style.height = `${hgt}px`;
      // a new size reallocates the canvas: only when it changes
      const cw = Math.round(canvas.clientWidth * dpr);
      const ch = Math.round(hgt * dpr);
      if (canvas.width !== cw || canvas.height !== ch) {
        canvas.width = cw;
        canvas.height = ch;
      }
      const g = canvas.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, canvas.clientWidth, hgt);
      g.font = '11px sans-serif';
      g.textBaseline = 'middle';
      drawRuler(g);
      st.counts.clear();
      const x = scale();
      for (const r of st.rows) paintRow(g, r, x);
      drawFlow(g);
      if (st.measure) {
        const [a, b] = st.measure;
        g.fillStyle = 'rgba(59,130,246,0.15)';
        g.fillRect(xOf(Math.min(a, b)), RULER_H, Math.abs(xOf(b) - xOf(a)), hgt - RULER_H);
      }
      canvas.dataset.rows = JSON.stringify(st.rows.filter((r) => r.track).map((r) => [r.track.track_id, r.y + r.h / 2]));
      // the Python rows' tops and levels: where a frame of some depth is drawn
      canvas.dataset.pyrows = JSON.stringify(
        st.rows.filter((r) => r.track && r.track.kind === PY_KIND).map((r) => [r.track.track_id, r.y + 2, PY_LEVEL_H, rowLevels(r.track)]),
      );
      drawn(t0);
    }

    /** The canvas's x of a time, for this draw (the width read once). */
    function scale() {
      const k = width() / (st.end - st.start);
      const s0 = st.start;
      return (t) => HEAD_W + (t - s0) * k;
    }

    /** Puts the totals of the rows painted on the canvas, and the draw's time. */
    function drawn(t0) {
      let n = 0;
      let lit = 0;
      for (const c of st.counts.values()) {
        n += c.drawn;
        lit += c.lit;
      }
      canvas.dataset.drawn = String(n);
      canvas.dataset.highlighted = String(lit);
      canvas.dataset.start = String(Math.round(st.start));
      canvas.dataset.end = String(Math.round(st.end));
      st.drawMs += performance.now() - t0;
      st.draws++;
      canvas.dataset.drawMs = st.drawMs.toFixed(1);
      canvas.dataset.draws = String(st.draws);
    }

    /** Paints row r (a group header, or a track's header and its answer); xOf: scale(). */
    function paintRow(g, r, xOf) {
      const cw = canvas.clientWidth;
      g.globalAlpha = 1;
      g.fillStyle = r.group ? '#e2e8f0' : '#f8fafc';
      g.fillRect(0, r.y, cw, r.h - 1);
      g.fillStyle = '#0f172a';
      g.save();
      g.beginPath();
      g.rect(0, r.y, HEAD_W - 4, r.h);
      g.clip();
      g.fillText(r.group ? r.label : r.track.name, r.group ? 4 : 14, r.y + r.h / 2);
      g.restore();
      if (r.group) return;
      const a = st.data.get(r.track.track_id);
      if (!a) return;
      const q = st.q.toLowerCase();
      let drawn = 0;
      let lit = 0;
      g.save();
      g.beginPath();
      g.rect(HEAD_W, r.y, cw - HEAD_W, r.h);
      g.clip();
      const py = r.track.kind === PY_KIND;
      const maxLevel = py ? rowLevels(r.track) - 1 : 0;
      for (const e of a.events || []) {
        const x0 = xOf(e.start);
        const x1 = Math.max(x0 + 1, xOf(e.start + e.dur));
        const hit = q && e.name.toLowerCase().includes(q);
        const chosen =
          st.sel &&
          st.sel.track_id === r.track.track_id &&
          st.sel.start === e.start &&
          (!py || st.sel.event_id === undefined || st.sel.event_id === e.event_id);
        // a Python frame sits at its depth; other events fill the row
        const y0 = py ? r.y + 2 + Math.min(e.depth || 0, maxLevel) * PY_LEVEL_H : r.y + 2;
        const hh = py ? PY_LEVEL_H - 1 : r.h - 5;
        g.fillStyle = colorOf(e.name, e.nccl);
        g.globalAlpha = q && !hit ? 0.25 : 1;
        g.fillRect(x0, y0, x1 - x0, hh);
        if (hit || chosen) {
          g.globalAlpha = 1;
          g.strokeStyle = chosen ? '#000' : '#facc15';
          g.lineWidth = 2;
          g.strokeRect(x0, y0, x1 - x0, hh);
          lit += hit ? 1 : 0;
        }
        // a frame that starts left of the window keeps its name in sight
        const tx = py ? Math.max(x0, HEAD_W) : x0;
        if (x1 - tx > 40) {
          g.globalAlpha = 1;
          g.fillStyle = '#fff';
          g.fillText(e.name.slice(0, Math.floor((x1 - tx) / 6)), tx + 2, y0 + hh / 2);
        }
        drawn++;
      }
      for (const b of a.bins || []) {
        const x0 = xOf(b.start);
        const x1 = Math.max(x0 + 1, xOf(b.end));
        const hit = q && b.name && b.name.toLowerCase().includes(q);
        const full = Math.min(1, b.busy / Math.max(1, b.end - b.start));
        g.fillStyle = colorOf(b.name);
        g.globalAlpha = 0.25 + 0.75 * full;
        const hh = Math.max(2, (r.h - 5) * full);
        g.fillRect(x0, r.y + r.h - 3 - hh, x1 - x0, hh);
        if (hit) {
          g.globalAlpha = 1;
          g.fillStyle = '#facc15';
          g.fillRect(x0, r.y + 1, x1 - x0, 2);
          lit++;
        }
        drawn++;
      }
      g.restore();
      g.globalAlpha = 1;
      st.counts.set(r.track.track_id, { drawn, lit });
    }

    /** Paints the row of one track whose answer came in, when nothing overlays the rows
     * (a full draw otherwise): the others stay as they are. */
    function paintTrack(id) {
      const r = st.rows.find((x) => x.track && x.track.track_id === id);
      if (!r || st.measure || st.flow || canvas.width === 0) {
        redraw();
        return;
      }
      const t0 = performance.now();
      const dpr = window.devicePixelRatio || 1;
      const g = canvas.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.font = '11px sans-serif';
      g.textBaseline = 'middle';
      g.clearRect(0, r.y, canvas.clientWidth, r.h);
      paintRow(g, r, scale());
      drawn(t0);
    }

    /** The arrow from the selected CUDA call to its kernel (or back), when both rows show. */
    function drawFlow(g) {
      const f = st.flow;
      const rowOf = (id) => st.rows.find((r) => r.track && r.track.track_id === id);
      const ra = f && rowOf(f.from.track_id);
      const rb = f && rowOf(f.to.track_id);
      canvas.dataset.flow = ra && rb ? `${f.from.track_id}:${f.from.start}>${f.to.track_id}:${f.to.start}` : '';
      if (!ra || !rb) return;
      const x0 = xOf(f.from.start);
      const y0 = ra.y + ra.h / 2;
      const x1 = xOf(f.to.start);
      const y1 = rb.y + rb.h / 2;
      g.save();
      g.beginPath();
      g.rect(HEAD_W, RULER_H, width(), canvas.clientHeight);
      g.clip();
      g.strokeStyle = '#1d4ed8';
      g.fillStyle = '#1d4ed8';
      g.lineWidth = 1.5;
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
      g.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0);
      g.beginPath();
      g.moveTo(x1, y1);
      g.lineTo(x1 - 8 * Math.cos(ang - 0.4), y1 - 8 * Math.sin(ang - 0.4));
      g.lineTo(x1 - 8 * Math.cos(ang + 0.4), y1 - 8 * Math.sin(ang + 0.4));
      g.closePath();
      g.fill();
      g.restore();
    }

    function drawRuler(g) {
      g.fillStyle = '#fff';
      g.fillRect(0, 0, canvas.clientWidth, RULER_H);
      g.fillStyle = '#0f172a';
      g.fillText(`${fmtTime(st.end - st.start)} shown`, 4, RULER_H / 2);
      const span = st.end - st.start;
      let step = 10 ** Math.floor(Math.log10(span / 8));
      if (span / step > 16) step *= 5;
      else if (span / step > 8) step *= 2;
      g.strokeStyle = '#94a3b8';
      for (let t = Math.ceil(st.start / step) * step; t < st.end; t += step) {
        const x = xOf(t);
        g.beginPath();
        g.moveTo(x, RULER_H - 8);
        g.lineTo(x, RULER_H);
        g.stroke();
        g.fillText(fmtTime(t - st.full[0]), x + 2, RULER_H / 2 - 2);
      }
    }

    /** Asks every visible track for the window; draws as answers come. */
    function load() {
      const seq = ++st.seq;
      const s = Math.floor(st.start);
      const e = Math.max(s + 1, Math.ceil(st.end));
      const w = Math.min(10000, Math.max(1, Math.floor(width())));
      const visible = st.tracks.filter((t) => !st.collapsed.has(t.kind));
      // every request goes out before the first draw; each answer paints its row
      const asked = Promise.all(
        visible.map((t) =>
          get('dl_timeline', { track_id: t.track_id, start: s, end: e, width: w }, { quiet: true })
            .then((a) => {
              if (seq !== st.seq) return;
              st.data.set(t.track_id, a);
              if (t.kind === PY_KIND && a.events) {
                // a deeper answer makes the row taller: every row below moves
                const before = rowLevels(t);
                st.levels.set(t.track_id, Math.max(st.levels.get(t.track_id) || 1, nestFrames(a.events)));
                if (rowLevels(t) !== before) {
                  st.relayout = true;
                  redraw();
                  return;
                }
              }
              paintTrack(t.track_id);
            })
            .catch(() => {}),
        ),
      );
      performance.mark('timeline:asked'); // marks for bench/timeline_page.mjs
      draw();
      return asked.then(() => {
        if (seq !== st.seq) return;
        performance.mark('timeline:answered');
        // every row is painted already, unless an overlay asked for full draws
        // or a Python row grew (the rows below it moved)
        if (st.measure || st.flow || st.relayout) draw();
        st.relayout = false;
        performance.mark('timeline:drawn');
        canvas.dataset.loaded = String(seq);
      });
    }
    const redraw = debounce(draw, 16);

    const saveUrl = debounce(() => {
      router.update(
        { start: Math.round(st.start), end: Math.round(st.end), sel: st.sel ? `${st.sel.track_id}:${st.sel.start}` : null, q: st.q || null },
        { replace: true },
      );
    }, 200);

    function setWindow(s, e) {
      const minSpan = 1000;
      if (e - s < minSpan) {
        const m = (s + e) / 2;
        s = m - minSpan / 2;
        e = m + minSpan / 2;
      }
      st.start = s;
      st.end = e;
      saveUrl();
      load();
    }
    const zoom = (factor, at) => {
      const t = at ?? (st.start + st.end) / 2;
      setWindow(t - (t - st.start) * factor, t + (st.end - t) * factor);
    };
    const pan = (frac) => {
      const d = (st.end - st.start) * frac;
      setWindow(st.start + d, st.end + d);
    };

    function rowAt(y) {
      return st.rows.find((r) => y >= r.y && y < r.y + r.h);
    }

    function select(r, x, y) {
      const a = st.data.get(r.track.track_id);
      const t = tOf(x);
      const slack = ((st.end - st.start) / width()) * 2;
      let events = a && a.events ? a.events : [];
      if (r.track.kind === PY_KIND) {
        // the frame at the clicked level (the last level holds the deeper ones too)
        const max = rowLevels(r.track) - 1;
        const level = Math.max(0, Math.min(max, Math.floor((y - r.y - 2) / PY_LEVEL_H)));
        events = events.filter((v) => Math.min(v.depth || 0, max) === level);
        events = [...events].sort((p, q) => (q.depth || 0) - (p.depth || 0));
      }
      const e = events.find((v) => t >= v.start - slack && t <= v.start + v.dur + slack);
      st.sel = e ? { track_id: r.track.track_id, start: e.start } : null;
      if (e && r.track.kind === PY_KIND) st.sel.event_id = e.event_id;
      st.flow = null;
      showDetails(r.track, e);
      saveUrl();
      draw();
    }

    function showDetails(track, e) {
      if (!e) {
        replace(details, 'Click an event for its details (zoom in until the track shows events, not bins).');
        return;
      }
      const row = (k, v) => h('tr', null, h('th', null, k), h('td', null, v));
      replace(
        details,
        h(
          'table',
          { class: 'kv' },
          h(
            'tbody',
            null,
            row('Name', e.name),
            row('Track', track.name),
            row('Category', e.category),
            row('Start', `${fmtTime(e.start - st.full[0])} (${fmtNs(e.start)})`),
            row('Duration', `${fmtTime(e.dur)} (${fmtNs(e.dur)})`),
            row('Event id', fmtInt(e.event_id)),
            e.nccl ? row('NCCL', 'yes') : null,
          ),
        ),
      );
      details.dataset.name = e.name;
      st.flow = null;
      if (!DETAIL_CATEGORIES.has(e.category)) return;
      const want = `${track.track_id}:${e.start}`;
      get('dl_timeline_event', { category: e.category, event_id: e.event_id }, { quiet: true })
        .then((d) => {
          if (!st.sel || `${st.sel.track_id}:${st.sel.start}` !== want) return;
          showMore(track, e, d);
        })
        .catch(() => {});
    }

    /** The event's details and links (a kernel's call and op, a call's kernels). */
    function showMore(track, e, d) {
      const k = d.details || {};
      const row = (label, ...v) => h('tr', null, h('th', null, label), h('td', null, ...v));
      const xyz = (p) => [k[`${p}_x`], k[`${p}_y`], k[`${p}_z`]].join(' × ');
      const rows = [];
      if (k.device_id !== undefined && k.stream_id !== undefined) rows.push(row('Stream', `GPU ${k.device_id}, stream ${k.stream_id}`));
      if (k.grid_x !== undefined) rows.push(row('Grid', xyz('grid')), row('Block', xyz('block')));
      if (k.registers_per_thread !== undefined) rows.push(row('Registers / thread', fmtInt(k.registers_per_thread)));
      if (k.long_name) rows.push(row('Full name', h('code', null, k.long_name)));
      if (k.bytes !== undefined) rows.push(row('Bytes', fmtInt(k.bytes)));
      if (k.domain) rows.push(row('Domain', k.domain));
      if (k.call_stack) rows.push(row('Call stack', h('pre', { class: 'timeline-stack' }, k.call_stack.split(';').join('\n'))));
      // a Python frame: the frames it was called from, outermost first, each a button that selects it
      const parents = (d.links || []).filter((l) => l.role === 'parent');
      if (e.category === 'python_function') {
        if (k.python_id !== undefined && k.python_id !== null) rows.push(row('Python id', `${k.python_id} (parent ${k.parent_python_id ?? 'none'})`));
        const list = h('ol', { class: 'timeline-parents', id: 'timeline-parents' });
        for (const l of parents) {
          const go = h('button', { type: 'button', class: 'btn btn-small timeline-go', 'data-role': 'parent' }, 'Show');
          go.addEventListener('click', () => selectLinked(l));
          list.append(h('li', null, `${l.name} · ${fmtTime(l.dur)} `, go));
        }
        rows.push(row('Called from', parents.length ? list : 'none: an outermost frame'));
      }
      for (const l of d.links || []) {
        if (l.role === 'parent') continue;
        if (l.op_node_id) {
          rows.push(
            row(
              'Op',
              h('a', { href: router.href('ops', { ...base(), op: l.op_node_id }), class: 'timeline-op-link' }, l.op_node_name || l.op_node_id),
              ' ',
              h(
                'a',
                { href: router.href('kernels-by-op', { ...base(), iter: l.iter_value, op: l.op_node_id }), class: 'timeline-kernels-link' },
                `its kernels in iteration ${l.iter_value}`,
              ),
            ),
          );
          // the kernel's own row: the op's kernels in that iteration, filtered to its name
          if (e.category === 'kernel')
            rows.push(
              row(
                'Kernel row',
                h(
                  'a',
                  {
                    href: router.href('kernels-by-op', { ...base(), iter: l.iter_value, op: l.op_node_id, 'k.filter': e.name }),
                    class: 'timeline-kernel-row-link',
                  },
                  `${l.op_node_id} · ${e.name} in iteration ${l.iter_value}`,
                ),
              ),
            );
        }
        if (l.event_id === null) continue;
        const label = l.role === 'call' ? 'CUDA call' : 'Kernel';
        const go = h('button', { type: 'button', class: 'btn btn-small timeline-go', 'data-role': l.role }, 'Show');
        go.addEventListener('click', () => selectLinked(l));
        rows.push(row(label, `${l.name} · ${fmtTime(l.dur)} `, go));
        const from = l.role === 'call' ? { track_id: l.track_id, start: l.start } : { track_id: track.track_id, start: e.start };
        const to = l.role === 'call' ? { track_id: track.track_id, start: e.start } : { track_id: l.track_id, start: l.start };
        if (!st.flow) st.flow = { from, to };
      }
      const body = details.querySelector('tbody');
      if (body) body.append(...rows);
      details.dataset.links = String((d.links || []).filter((l) => l.event_id !== null).length);
      details.dataset.parents = String(parents.length);
      draw();
    }

    /** Selects a linked event, moving the window to it when it is outside. */
    function selectLinked(l) {
      const span = st.end - st.start;
      if (l.start < st.start || l.start + l.dur > st.end) {
        st.start = l.start + l.dur / 2 - span / 2;
        st.end = st.start + span;
      }
      st.sel = { track_id: l.track_id, start: l.start };
      if (l.category === 'python_function') st.sel.event_id = l.event_id;
      saveUrl();
      load().then(() => {
        const t = st.tracks.find((x) => x.track_id === l.track_id);
        const a = st.data.get(l.track_id);
        const ev = a && a.events ? a.events.find((v) => v.start === l.start && (st.sel.event_id === undefined || v.event_id === st.sel.event_id)) : null;
        if (t) showDetails(t, ev || { name: l.name, start: l.start, dur: l.dur, category: l.category, event_id: l.event_id });
        draw();
      });
    }

    /* ---- input ---------------------------------------------------------- */
    let drag = null;
    canvas.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0) return;
      canvas.focus();
      drag = { x: ev.offsetX, y: ev.offsetY, start: st.start, end: st.end, measure: ev.shiftKey, moved: false };
      if (drag.measure) st.measure = [tOf(ev.offsetX), tOf(ev.offsetX)];
    });
    canvas.addEventListener('mousemove', (ev) => {
      if (!drag) return;
      const dx = ev.offsetX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.measure) {
        st.measure[1] = tOf(ev.offsetX);
        measure.textContent = `Selected: ${fmtTime(Math.abs(st.measure[1] - st.measure[0]))}`;
        draw();
        return;
      }
      const d = (dx / width()) * (drag.end - drag.start);
      st.start = drag.start - d;
      st.end = drag.end - d;
      draw();
    });
    const up = (ev) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (d.measure) return;
      if (d.moved) {
        saveUrl();
        load();
        return;
      }
      if (ev.type !== 'mouseup') return;
      const r = rowAt(ev.offsetY);
      if (!r) return;
      if (r.group) {
        if (st.collapsed.has(r.group)) st.collapsed.delete(r.group);
        else st.collapsed.add(r.group);
        load();
      } else if (ev.offsetX >= HEAD_W) {
        select(r, ev.offsetX, ev.offsetY);
      }
    };
    canvas.addEventListener('mouseup', up);
    canvas.addEventListener('mouseleave', up);
    canvas.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault();
        zoom(ev.deltaY < 0 ? 1 / ZOOM_STEP : ZOOM_STEP, ev.offsetX >= HEAD_W ? tOf(ev.offsetX) : undefined);
      },
      { passive: false },
    );
    canvas.addEventListener('keydown', (ev) => {
      const k = ev.key.toLowerCase();
      const act = { w: () => zoom(1 / ZOOM_STEP), s: () => zoom(ZOOM_STEP), a: () => pan(-PAN_STEP), d: () => pan(PAN_STEP) }[k];
      if (!act) return;
      ev.preventDefault();
      act();
    });
    search.addEventListener(
      'input',
      debounce(() => {
        st.q = search.value;
        saveUrl();
        draw();
      }, 150),
    );
    const onResize = debounce(() => load(), 150);
    window.addEventListener('resize', onResize);

    /* ---- export: the window as Chrome trace JSON ------------------------ */
    /** Every event of track t overlapping [s, e), in pieces the server answers raw. */
    async function eventsOf(t, s, e, budget) {
      const out = [];
      const pieces = [[s, e]];
      while (pieces.length) {
        if (--budget.requests < 0) throw new Error('the window holds too many events to export; zoom in');
        const [a, b] = pieces.pop();
        const ans = await get('dl_timeline', { track_id: t.track_id, start: a, end: b, width: 10000 }, { quiet: true });
        if (ans.events) {
          // an event over two pieces belongs to the one its (clipped) start is in
          for (const x of ans.events) if (Math.max(x.start, s) >= a) out.push(x);
          continue;
        }
        let from = a;
        let n = 0;
        const cut = [];
        for (const bin of ans.bins) {
          if (n > 0 && n + bin.count > 9000 && bin.start > from) {
            cut.push([from, bin.start]);
            from = bin.start;
            n = 0;
          }
          n += bin.count;
        }
        cut.push([from, b]);
        if (cut.length === 1 && b - a > 1) {
          const m = Math.floor((a + b) / 2);
          cut.splice(0, 1, [a, m], [m, b]);
        }
        pieces.push(...cut.reverse());
      }
      return out;
    }

    const usec = (ns) => ns / 1000;

    async function exportWindow() {
      const s = Math.floor(st.start);
      const e = Math.max(s + 1, Math.ceil(st.end));
      const budget = { requests: 20000 };
      const procs = new Map();
      const meta = [];
      const events = [];
      exportBtn.disabled = true;
      try {
        for (const t of st.tracks) {
          const proc = t.kind === 'iterations' ? 'Iterations' : t.device_id !== null && t.device_id !== undefined ? `GPU ${t.device_id}` : `Process ${t.pid}`;
          if (!procs.has(proc)) {
            procs.set(proc, procs.size + 1);
            meta.push({ ph: 'M', name: 'process_name', pid: procs.get(proc), args: { name: proc } });
          }
          const pid = procs.get(proc);
          meta.push({ ph: 'M', name: 'thread_name', pid, tid: t.track_id, args: { name: t.name } });
          for (const x of await eventsOf(t, s, e, budget)) {
            const args = { event_id: x.event_id };
            if (x.nccl) args.nccl = 1;
            events.push({ ph: 'X', name: x.name, cat: x.category, pid, tid: t.track_id, ts: usec(x.start), dur: usec(Math.max(0, x.dur)), args });
          }
        }
        const doc = { displayTimeUnit: 'ns', otherData: { producer: 'dlprofviewer', start: s, end: e }, traceEvents: [...meta, ...events] };
        const url = URL.createObjectURL(new Blob([JSON.stringify(doc)], { type: 'application/json' }));
        const a = h('a', { href: url, download: `timeline_${s}_${e}.json` });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10000);
        exportBtn.dataset.exported = String(events.filter((x) => x.cat === 'kernel').length);
      } catch (err) {
        replace(details, note(`Could not export: ${err.message}`, 'note note-error'));
      } finally {
        exportBtn.disabled = false;
      }
    }
    exportBtn.addEventListener('click', () => exportWindow());

    /* ---- start ---------------------------------------------------------- */
    function fromRoute(p) {
      st.start = num(p.start, st.full[0]);
      st.end = num(p.end, st.full[1]);
      if (!(st.end > st.start)) [st.start, st.end] = st.full;
      st.q = p.q || '';
      search.value = st.q;
      const m = /^(\d+):(-?\d+)$/.exec(p.sel || '');
      st.sel = m ? { track_id: Number(m[1]), start: Number(m[2]) } : null;
    }

    /** The range, event and names of the row the URL names (FOCUS_KEYS). */
    function focusOf(p) {
      if (p.of === 'range') {
        const s = num(p.rs, NaN);
        const e = num(p.re, NaN);
        if (!(e > s)) return Promise.reject(new Error('the range is empty'));
        return Promise.resolve({ start: s, end: e, track_id: null, q: null, what: 'the range' });
      }
      const q = { of: p.of };
      for (const k of FOCUS_KEYS.slice(1)) if (p[k] !== undefined) q[k] = p[k];
      const b = base();
      if (b.aggr_id !== undefined && b.aggr_id !== null) q.aggr_id = b.aggr_id;
      return get('dl_timeline_focus', q, { quiet: true });
    }

    /** Opens the window on the row the URL names, then puts the window in the URL in its place. */
    function applyFocus(p) {
      return focusOf(p)
        .then((f) => {
          const span = f.end - f.start;
          const pad = Math.max(1, Math.ceil(span / 10));
          st.start = f.start - pad;
          st.end = f.end + pad;
          st.measure = [f.start, f.end];
          measure.textContent = `Selected: ${fmtTime(span)}`;
          if (f.track_id !== null && f.track_id !== undefined) st.sel = { track_id: Number(f.track_id), start: Number(f.sel_start) };
          if (!p.q && f.q) st.q = f.q;
          search.value = st.q;
          focusLine.textContent = `Showing ${f.what}.`;
          focusLine.dataset.of = p.of;
        })
        .catch((e) => {
          focusLine.textContent = '';
          replace(details, note(`Could not find it on the timeline: ${e.message}`, 'note note-error'));
        })
        .then(() => {
          const c0 = {};
          for (const k of FOCUS_KEYS) c0[k] = null;
          router.update(
            { ...c0, start: Math.round(st.start), end: Math.round(st.end), sel: st.sel ? `${st.sel.track_id}:${st.sel.start}` : null, q: st.q || null },
            { replace: true },
          );
        });
    }

    /** Shows the selected event's details once its track's answer is in. */
    function showSelected() {
      if (!st.sel) return;
      const t = st.tracks.find((x) => x.track_id === st.sel.track_id);
      const a = st.data.get(st.sel.track_id);
      const e = a && a.events ? a.events.find((v) => v.start === st.sel.start) : null;
      if (t) showDetails(t, e);
    }

    getAll('dl_timeline_tracks', {})
      .then((d) => {
        performance.mark('timeline:tracks');
        st.tracks = d.rows;
        if (!st.tracks.length) {
          replace(c.body, note('This profile has no events to draw.'));
          return null;
        }
        st.full = [Math.min(...st.tracks.map((t) => Number(t.first_start))), Math.max(...st.tracks.map((t) => Number(t.last_end)))];
        if (st.full[1] <= st.full[0]) st.full[1] = st.full[0] + 1;
        const p = router.current().params;
        fromRoute(p);
        canvas.dataset.tracks = String(st.tracks.length);
        return (p.of ? applyFocus(p) : Promise.resolve()).then(() => load()).then(showSelected);
      })
      .catch((e) => replace(c.body, note(`Could not load: ${e.message}`, 'note note-error')));

    return {
      update: (r) => {
        if (!st.tracks.length) return; // still starting: the start reads the route
        if (r.params.of) {
          fromRoute(r.params);
          applyFocus(r.params)
            .then(() => load())
            .then(showSelected);
          return;
        }
        const s = num(r.params.start, st.full[0]);
        const e = num(r.params.end, st.full[1]);
        if (Math.round(s) !== Math.round(st.start) || Math.round(e) !== Math.round(st.end)) {
          fromRoute(r.params);
          load();
        }
      },
      destroy: () => window.removeEventListener('resize', onResize),
    };
  },
};
