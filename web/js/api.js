// api.js - the page's only caller of fetch().
//
// Every answer of /api/v1 is JSON; every error has the envelope
// {"error":{"status","code","message"}} (docs/api.md). get() decodes it,
// retries network failures and 5xx answers with a short back-off, and shows
// failures in the page's error banner unless the caller asked for quiet.
// The page's first requests are sent by start.js; get() takes their answers.

import { take } from './start.js';

const BASE = '/api/v1/';
const RETRY_DELAYS_MS = [300, 1200];
const PAGE_MAX = 1000; // the server's largest page (limit 1..1000)

/** An API failure: HTTP status, the envelope's code and message. */
export class ApiError extends Error {
  constructor(status, code, message, url) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.url = url;
  }
}

// The run (a served database, GET /api/v1/runs) the page shows: added as
// run=<id> to every request that names none. null: the server's first run.
let currentRun = null;

/** Sets the run every request reads (null: the server's default). */
export function setRun(id) {
  currentRun = id || null;
}

/** Endpoints that read no one run: they take no run=, or their own. */
const RUNLESS = /^(runs|dl_compare_)/;

/** The URL of an endpoint with query parameters (null/undefined/'' dropped). */
export function apiUrl(path, params) {
  const q = new URLSearchParams();
  if (currentRun && !RUNLESS.test(path) && !(params && 'run' in params)) q.set('run', currentRun);
  for (const [k, v] of Object.entries(params || {})) {
    if (v === null || v === undefined || v === '') continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return BASE + path + (s ? `?${s}` : '');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function decodeError(res, url) {
  let code = 'http_error';
  let message = `${res.status} ${res.statusText || 'error'}`;
  try {
    const body = await res.json();
    if (body && body.error) {
      code = String(body.error.code || code);
      message = String(body.error.message || message);
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, code, message, url);
}

/**
 * GETs /api/v1/<path> and returns the decoded JSON.
 * opts.quiet: do not show failures in the banner (the caller handles them).
 * Throws ApiError.
 */
export async function get(path, params, opts = {}) {
  const url = apiUrl(path, params);
  let lastErr = null;
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1]);
    let res;
    try {
      // the first try takes the answer start.js asked for, when it did
      res = await ((attempt === 0 && take(url)) || fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
    } catch (e) {
      lastErr = new ApiError(0, 'network', `The server cannot be reached (${e.message || e}).`, url);
      continue;
    }
    if (res.ok) {
      try {
        return await res.json();
      } catch {
        lastErr = new ApiError(res.status, 'bad_json', 'The server answered something that is not JSON.', url);
        break;
      }
    }
    lastErr = await decodeError(res, url);
    if (res.status < 500) break; // a client error will not change by retrying
  }
  if (!opts.quiet) showError(lastErr);
  throw lastErr;
}

/**
 * GETs every row of a list endpoint (max `cap` rows): the first page gives
 * the count, the other pages are then asked for at once (the server answers
 * them in parallel). opts.expect: the rows the caller expects (e.g. one per
 * rank), so that the pages up to it are asked for with the first one, not
 * after it. Returns {total, filtered, rows}.
 */
export async function getAll(path, params, opts = {}) {
  const cap = opts.cap ?? 100000;
  const page = (offset) => get(path, { ...params, offset, limit: PAGE_MAX }, opts);
  const early = [];
  for (let offset = PAGE_MAX; offset < Math.min(cap, Number(opts.expect) || 0); offset += PAGE_MAX) early.push(page(offset));
  const first = await page(0);
  const want = Math.min(cap, Number(first.filtered) || 0);
  const rest = [];
  if (first.rows.length === PAGE_MAX) {
    for (let offset = PAGE_MAX * (early.length + 1); offset < want; offset += PAGE_MAX) rest.push(page(offset));
  }
  const rows = first.rows.slice();
  for (const p of await Promise.all([...early, ...rest])) rows.push(...p.rows);
  return { total: first.total, filtered: first.filtered, rows: rows.length > cap ? rows.slice(0, cap) : rows };
}

/* ---- the error banner --------------------------------------------------- */

const shown = new Map(); // message -> element, so one failure shows once

/** Shows an error (ApiError, Error or string) in the banner at the top. */
export function showError(err) {
  const box = document.getElementById('errors');
  if (!box) return;
  let text;
  if (err instanceof ApiError) {
    text = err.status ? `${err.message} (${err.status} ${err.code})` : err.message;
  } else {
    text = String((err && err.message) || err);
  }
  if (shown.has(text)) return;
  const msg = document.createElement('span');
  msg.className = 'error-text';
  msg.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'error-close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  const item = document.createElement('div');
  item.className = 'error-item';
  item.setAttribute('role', 'alert');
  item.append(msg, close);
  close.addEventListener('click', () => {
    item.remove();
    shown.delete(text);
    box.hidden = box.childElementCount === 0;
  });
  shown.set(text, item);
  box.appendChild(item);
  box.hidden = false;
}

/** Removes every error from the banner. */
export function clearErrors() {
  const box = document.getElementById('errors');
  if (!box) return;
  box.replaceChildren();
  shown.clear();
  box.hidden = true;
}
