// start.js - the page's first requests, sent as soon as this script runs:
// GET /api/v1/runs and GET /api/v1/dl_start (the run the URL hash names,
// else the server's first; docs/api.md). It imports nothing, and
// index.html loads it before app.js, so the browser runs it while the
// app's other modules are still on their way; api.js's get() takes these
// answers in place of sending the same requests again.

const sent = new Map(); // URL -> Promise<Response>, each taken once

/** The hash's view and run= ('#/timeline?run=ab12cd34&...'). */
function fromHash(hash) {
  const s = String(hash || '').replace(/^#\/?/, '');
  const qi = s.indexOf('?');
  const view = (qi >= 0 ? s.slice(0, qi) : s) || 'dashboard';
  const run = qi >= 0 ? new URLSearchParams(s.slice(qi + 1)).get('run') : null;
  return { view, run };
}

function send(url) {
  sent.set(url, fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
}

/** The answer (a Response promise) of a request sent here for url, once; else null. */
export function take(url) {
  const p = sent.get(url);
  if (!p) return null;
  sent.delete(url);
  return p;
}

const first = fromHash(location.hash);
send('/api/v1/runs');
// the runs page and a comparison show no one run
if (!/^(runs|compare)$/.test(first.view)) {
  const q = first.run ? `?${new URLSearchParams({ run: first.run })}` : '';
  send(`/api/v1/dl_start${q}`);
}
