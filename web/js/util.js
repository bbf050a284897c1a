// util.js - DOM building and number formatting shared by every view.
//
// Strings from the API (op, kernel, NVTX and file names, expert text) come
// from user code: they reach the DOM only as text nodes (h(), text()) or
// through escapeHtml(). Nothing here assigns innerHTML.

/** Escapes the five HTML metacharacters. The one escaper of the page. */
export function escapeHtml(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

const SAFE_HREF = /^(https?:\/\/|#|\/(?!\/))/i;

/**
 * Creates an element. attrs: class, title, text, href (http(s), '#…' or
 * same-origin '/…' only), dataset {}, on {event: fn}, any other plain
 * attribute; never style, never on* attributes. children: Nodes, strings
 * (become text nodes), arrays, null/false (skipped).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.className = Array.isArray(v) ? v.filter(Boolean).join(' ') : v;
      else if (k === 'text') el.textContent = String(v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
      else if (k === 'href') {
        if (SAFE_HREF.test(String(v))) el.setAttribute('href', String(v));
      } else if (k === 'style' || /^on/i.test(k)) throw new Error(`h(): attribute ${k} is not allowed`);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Removes every child of el, then appends children. */
export function replace(el, ...children) {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, children);
  return el;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"']+/gi;

/**
 * Text with its http(s) URLs turned into links (new tab, rel=noopener).
 * Returns a DocumentFragment made of text nodes and <a> elements.
 */
export function linkify(text) {
  const frag = document.createDocumentFragment();
  const s = String(text ?? '');
  let last = 0;
  for (const m of s.matchAll(URL_RE)) {
    let url = m[0].replace(/[.,;:!?)\]]+$/, '');
    const start = m.index;
    if (start > last) frag.appendChild(document.createTextNode(s.slice(last, start)));
    let ok;
    try {
      const u = new URL(url);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
    if (ok) {
      const a = document.createElement('a');
      a.href = url;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      a.textContent = url;
      frag.appendChild(a);
    } else {
      frag.appendChild(document.createTextNode(url));
    }
    last = start + url.length;
  }
  if (last < s.length) frag.appendChild(document.createTextNode(s.slice(last)));
  return frag;
}

/* ---- numbers ---------------------------------------------------------- */

const NF = new Intl.NumberFormat('en-US');

/** 1234567 -> "1,234,567"; null -> "–". */
export function fmtInt(n) {
  if (n === null || n === undefined || n === '' || !Number.isFinite(Number(n))) return '–';
  return NF.format(Number(n));
}

const TIME_UNITS = [
  ['ns', 1],
  ['µs', 1e3],
  ['ms', 1e6],
  ['s', 1e9],
  ['min', 60e9],
  ['h', 3600e9],
  ['d', 86400e9],
];

/** The unit to show ns in: the largest whose value is >= 1 (up to s below 1000 s). */
export function timeUnit(ns) {
  const a = Math.abs(Number(ns));
  let i = 0;
  while (i < 3 && a >= TIME_UNITS[i + 1][1]) i++;
  if (i === 3) while (i < TIME_UNITS.length - 1 && a / TIME_UNITS[i][1] >= 1000) i++;
  return TIME_UNITS[i];
}

function sig3(v) {
  if (v === 0) return '0';
  if (Math.abs(v) >= 100) return String(Math.round(v));
  return v.toPrecision(3);
}

/**
 * Nanoseconds in a human unit with 3 significant digits: 352000 -> "352 µs".
 * Below 1 µs: whole nanoseconds ("450 ns", never "0.45 µs" or "450.57 ns";
 * the traces' clock ticks in ns), and "< 1 ns" for a tiny non-zero mean.
 */
export function fmtTime(ns) {
  if (ns === null || ns === undefined || ns === '' || !Number.isFinite(Number(ns))) return '–';
  const n = Number(ns);
  if (n === 0) return '0 ns';
  if (Math.abs(n) < 999.5) {
    const r = Math.round(n);
    return r === 0 ? '< 1 ns' : `${r} ns`;
  }
  let idx = TIME_UNITS.indexOf(timeUnit(n));
  let text = sig3(n / TIME_UNITS[idx][1]);
  // 999.7 µs rounds to "1000": show it in the next unit.
  if (Math.abs(Number(text)) >= 1000 && idx < TIME_UNITS.length - 1 && idx >= 0) {
    idx++;
    text = sig3(n / TIME_UNITS[idx][1]);
  }
  return `${text} ${TIME_UNITS[idx][0]}`;
}

/** Exact nanoseconds for a tooltip: "2,864,091,540 ns". */
export function fmtNs(ns) {
  if (ns === null || ns === undefined || ns === '' || !Number.isFinite(Number(ns))) return '';
  const n = Number(ns);
  if (Number.isInteger(n)) return `${NF.format(n)} ns`;
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 }).format(n)} ns`;
}

/**
 * A value (ns) in a fixed unit for chart axes: trims to 3 significant digits.
 * Non-zero values below 1 µs are in ns as fmtTime shows them ("450 ns", not
 * "0.45 µs").
 */
export function fmtTimeIn(ns, unit) {
  if (Number(ns) !== 0 && Math.abs(Number(ns)) < 999.5) return fmtTime(ns);
  const v = Number(ns) / unit[1];
  const t = v === 0 ? '0' : String(Number(v.toPrecision(3)));
  return `${t} ${unit[0]}`;
}

/** A 0-100 percentage with one decimal; tiny non-zero values say "< 0.1 %". */
export function fmtPct(v) {
  if (v === null || v === undefined || v === '' || !Number.isFinite(Number(v))) return '–';
  const n = Number(v);
  if (n > 0 && n < 0.05) return '< 0.1 %';
  return `${n.toFixed(1)} %`;
}

/** A <span> showing a time in human units with exact ns as its tooltip. */
export function timeSpan(ns, cls) {
  return h('span', { class: ['num-time', cls], title: fmtNs(ns), dataset: { ns: String(ns ?? '') } }, fmtTime(ns));
}

/** A <span> showing a percentage with the stored value as its tooltip. */
export function pctSpan(v) {
  return h('span', { class: 'num-pct', title: v === null || v === undefined ? '' : `${v} %` }, fmtPct(v));
}

/** "yes"/"no" badge for a 0/1 column. */
export function boolSpan(v) {
  const yes = Number(v) === 1;
  return h('span', { class: ['bool', yes ? 'bool-yes' : 'bool-no'] }, yes ? 'yes' : 'no');
}

/**
 * An op path with break opportunities after each '/': the scopes muted, the
 * last element (the op) in full ink.
 */
export function pathText(s) {
  const str = String(s ?? '');
  const cut = str.endsWith('/') ? str.lastIndexOf('/', str.length - 2) : str.lastIndexOf('/');
  const head = cut >= 0 ? str.slice(0, cut + 1) : '';
  const tail = cut >= 0 ? str.slice(cut + 1) : str;
  const scopes = [];
  head.split('/').forEach((p, i, all) => {
    if (p) scopes.push(p);
    if (i < all.length - 1) scopes.push('/', h('wbr'));
  });
  return h('span', { class: 'path', title: str }, h('span', { class: 'path-scopes' }, scopes), h('span', { class: 'path-leaf' }, tail));
}

/**
 * An identifier (op ID, op type) with break opportunities after each '_'
 * and inside camelCase, so that a long one wraps at its parts instead of
 * widening its column: cudaDevice|Synchronize_|v3020.
 */
export function identText(s) {
  const parts = String(s ?? '').split(/(?<=_)(?=.)|(?<=[a-z])(?=[A-Z])/);
  return h(
    'span',
    { class: 'ident' },
    parts.map((p, i) => (i ? [h('wbr'), p] : p)),
  );
}

/**
 * Long text cut to `max` characters (or its first line) with a "more" toggle;
 * a cut text has the full text as its tooltip. preview: the text shown cut
 * instead of the first line (stackPreview's), null: the first line.
 */
export function longText(s, max = 100, preview = null) {
  const full = String(s ?? '');
  const firstNl = full.indexOf('\n');
  const cut = Math.min(max, firstNl >= 0 ? firstNl : full.length);
  if (cut >= full.length) return h('span', { class: 'long' }, full);
  const short = `${preview === null ? full.slice(0, cut) : preview.slice(0, max)}…`;
  const body = h('span', { class: 'long-body' }, short);
  const btn = h('button', { type: 'button', class: 'more', 'aria-expanded': 'false' }, 'more');
  btn.addEventListener('click', (ev) => {
    ev.stopPropagation();
    const open = btn.getAttribute('aria-expanded') === 'true';
    body.textContent = open ? short : full;
    btn.textContent = open ? 'more' : 'less';
    btn.setAttribute('aria-expanded', String(!open));
    wrap.classList.toggle('open', !open);
  });
  const wrap = h('span', { class: 'long', title: full }, body, ' ', btn);
  return wrap;
}

/**
 * The line a stack trace's cell shows before "more": the innermost module
 * frame ("nn.Module: Conv2d_0", PyTorch profiler traces recorded with
 * with_modules=True), which names the layer, else the first (outermost)
 * frame, as DLProf showed it.
 */
export function stackPreview(s) {
  const lines = String(s ?? '').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].startsWith('nn.Module: ')) return lines[i];
  return lines[0];
}

/** Debounces fn by ms. */
export function debounce(fn, ms) {
  let t = 0;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}

/**
 * Marks el busy (aria-busy) until promise p settles, so that assistive
 * technology and the page tests know that its content is still to come; a
 * table loading a page of its own (.is-loading) stays busy until it answers.
 * Returns p.
 */
export function busyUntil(el, p) {
  el.setAttribute('aria-busy', 'true');
  const done = () => {
    if (!el.classList.contains('is-loading')) el.setAttribute('aria-busy', 'false');
  };
  p.then(done, done);
  return p;
}

/** A "Loading…" placeholder. */
export function loading(what = 'Loading…') {
  return h('div', { class: 'loading', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), what);
}

/** A muted note (e.g. a missing view). */
export function note(text, cls = 'note') {
  return h('div', { class: cls }, text);
}
