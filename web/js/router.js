// router.js - the page state lives in the URL hash: #/<view>?<params>.
//
// e.g. #/ops?aggr_id=1&domain=default-domain&op=CONV2D_1&sort=gpu_time&order=desc
// Every view, selection, drill-down, sort, page and filter is a parameter,
// so a copied URL opens the same screen and back/forward walk the history.
// Tables on one screen keep their own parameters under a prefix ("k.sort").

const listeners = [];

/** The current route: {view, params} (params is a plain object of strings). */
export function current() {
  return parse(location.hash);
}

/** Parses '#/view?a=1&b=2'. */
export function parse(hash) {
  const s = String(hash || '').replace(/^#\/?/, '');
  const qi = s.indexOf('?');
  const view = decodeURIComponent(qi >= 0 ? s.slice(0, qi) : s) || 'dashboard';
  const params = {};
  if (qi >= 0) for (const [k, v] of new URLSearchParams(s.slice(qi + 1))) params[k] = v;
  return { view, params };
}

const FIRST = ['run', 'aggr_id', 'domain'];

/** Builds '#/view?…' with run, aggr_id and domain first; drops null/'' values. */
export function href(view, params) {
  const q = new URLSearchParams();
  const keys = Object.keys(params || {});
  keys.sort((a, b) => {
    const ia = FIRST.indexOf(a);
    const ib = FIRST.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  for (const k of keys) {
    const v = params[k];
    if (v === null || v === undefined || v === '') continue;
    q.set(k, String(v));
  }
  const qs = q.toString();
  return `#/${view === 'dashboard' ? '' : view}${qs ? `?${qs}` : ''}`;
}

/** Goes to a view with params (push, or replace without a history entry). */
export function go(view, params, opts = {}) {
  const target = href(view, params);
  if (target === location.hash) return;
  if (opts.replace) {
    history.replaceState(history.state, '', target);
    notify();
  } else {
    location.hash = target;
    notify(); // now, not a task later: the page shows the new state at once
  }
}

/** Merges changes into the current params (null removes a key) and goes there. */
export function update(changes, opts = {}) {
  const { view, params } = current();
  const next = { ...params };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined || v === '') delete next[k];
    else next[k] = String(v);
  }
  go(view, next, opts);
}

/** Calls fn(route) on every change of the hash. */
export function onChange(fn) {
  listeners.push(fn);
}

// The hash the listeners last heard of: go() tells them at once, so the
// hashchange that follows is theirs already.
let notified = null;

function notify() {
  notified = location.hash;
  const r = current();
  for (const fn of listeners) fn(r);
}

window.addEventListener('hashchange', () => {
  if (location.hash !== notified) notify();
});
