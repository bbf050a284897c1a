// viewer.mjs - helpers for the dlprofviewer HTTP tests (no npm packages):
// start a real dlprofviewer on a free port, run it to its exit, read a
// database with the sqlite3 CLI (read-only), send raw HTTP requests.
// Environment (set by ctest): DLPROFVIEWER, DL_SHARED_DIR, DL_TEST_WORK,
// DLV_FIXTURE_SQL.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';

export const bin = process.env.DLPROFVIEWER;
export const shared = process.env.DL_SHARED_DIR || join(import.meta.dirname, '../../../shared');
export const work = process.env.DL_TEST_WORK || '/tmp/dlv-test-work';
export const fixtureSql = process.env.DLV_FIXTURE_SQL || join(import.meta.dirname, 'mini.dldb.sql');
export const noRelu = join(shared, 'traces/dlprof/no_relu/dlprof_dldb.sqlite');
export const wRelu = join(shared, 'traces/dlprof/w_Relu/dlprof_dldb_1.sqlite');
export const nsysExport = join(shared, 'traces/nsys/nsys2023.2_cutlass_sgemm.sqlite');

if (!bin || !existsSync(bin)) {
  console.error(`DLPROFVIEWER (${bin}) is not a built dlprofviewer`);
  process.exit(1);
}
mkdirSync(work, { recursive: true });

/** Exits 77 (ctest: skipped) naming the path when it is absent. */
export function requireFile(path) {
  if (!existsSync(path)) {
    console.log(`SKIP: ${path} is absent (set DL_SHARED_DIR)`);
    process.exit(77);
  }
}

/** Builds the mini fixture database at work/name (sqlite3 CLI). */
export function makeMini(name, extraSql = '') {
  const path = join(work, name);
  rmSync(path, { force: true });
  execFileSync('sqlite3', [path, `.read ${fixtureSql}`]);
  if (extraSql) execFileSync('sqlite3', [path, extraSql]);
  return path;
}

/** Rows of a read-only query, as objects (sqlite3 -json). */
export function sql(db, query) {
  const out = execFileSync('sqlite3', ['-readonly', '-json', db, query], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : [];
}

/** Runs dlprofviewer with args until it exits: { code, signal, stdout, stderr }. */
export function runToExit(args, timeoutMs = 20000) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`dlprofviewer ${args.join(' ')} did not exit`));
    }, timeoutMs);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Starts dlprofviewer --port 0 on db; resolves when it prints its URL. */
export function startViewer(db, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['--port', '0', ...extraArgs, db], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exited = null;
    const exit = new Promise((res) => p.on('exit', (code, signal) => res((exited = { code, signal }))));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`dlprofviewer printed no URL line in 15 s: ${stdout}${stderr}`));
    }, 15000);
    p.stderr.on('data', (d) => (stderr += d));
    p.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/^dlprofviewer running at (http:\/\/127\.0\.0\.1:(\d+)\/)\n/);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          port: Number(m[2]),
          stdout: () => stdout,
          stderr: () => stderr,
          /** Sends SIGTERM (or sig) and resolves with { code, signal, stderr }. */
          async stop(sig = 'SIGTERM') {
            if (!exited) p.kill(sig);
            const e = await exit;
            return { ...e, stderr };
          },
        });
      }
    });
    exit.then((e) => reject(new Error(`dlprofviewer exited (${e.code}) before serving: ${stderr}`)));
  });
}

/**
 * Starts dlprofviewer with args (and env added to the environment) and
 * resolves when it prints its URL line, whatever the host and token:
 * { url, host, port, token (or null), base (http://127.0.0.1:PORT/),
 *   stdout(), stderr(), stop(sig) }. Only 127.0.0.1 is ever contacted.
 */
export function startServer(args, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let exited = null;
    const exit = new Promise((res) => p.on('exit', (code, signal) => res((exited = { code, signal }))));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`dlprofviewer printed no URL line in 15 s: ${stdout}${stderr}`));
    }, 15000);
    p.stderr.on('data', (d) => (stderr += d));
    p.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/^dlprofviewer running at (http:\/\/([^/:\s]+):(\d+)\/(?:\?token=([A-Za-z0-9._~-]+))?)\n/);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          host: m[2],
          port: Number(m[3]),
          token: m[4] || null,
          base: `http://127.0.0.1:${m[3]}/`,
          stdout: () => stdout,
          stderr: () => stderr,
          async stop(sig = 'SIGTERM') {
            if (!exited) p.kill(sig);
            const e = await exit;
            return { ...e, stderr };
          },
        });
      }
    });
    exit.then((e) => reject(new Error(`dlprofviewer exited (${e.code}) before serving: ${stderr}`)));
  });
}

/**
 * Sends raw bytes to 127.0.0.1:port and collects what comes back until the
 * server closes, the response is complete (Content-Length or an empty
 * chunk), or timeoutMs passes. Resolves { status, headers, body, raw,
 * closed } (status 0 when nothing came back).
 */
export function rawExchange(port, bytes, { timeoutMs = 5000, head = false } = {}) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const chunks = [];
    let done = false;
    const finish = (closed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks), head), closed });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    sock.on('connect', () => sock.write(bytes));
    sock.on('data', (c) => {
      chunks.push(c);
      const r = parseResponse(Buffer.concat(chunks), head);
      if (r.complete) finish(false);
    });
    sock.on('error', () => finish(true));
    sock.on('close', () => finish(true));
  });
}

/** Parses one HTTP/1.1 response: { status, headers (lower-case), body, complete }
 * (head: the answer to a HEAD, complete with its headers). */
export function parseResponse(buf, head = false) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: Buffer.alloc(0), raw: buf, complete: false };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number((lines[0].match(/^HTTP\/1\.[01] (\d{3})/) || [])[1] || 0);
  const headers = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = buf.subarray(end + 4);
  let complete = false;
  if (head) complete = true;
  else if (headers['content-length'] !== undefined) complete = body.length >= Number(headers['content-length']);
  else if (/chunked/i.test(headers['transfer-encoding'] || '')) complete = body.includes('0\r\n\r\n');
  else if (status === 304 || status === 204) complete = true;
  return { status, headers, body, raw: buf, complete };
}

/** A raw GET (or method) with exact path bytes and headers, body as a Buffer. */
export function rawRequest(port, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Parses RFC 4180 CSV into an array of records (arrays of strings). */
export function parseCsv(text) {
  const records = [];
  let rec = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      rec.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      rec.push(field);
      records.push(rec);
      rec = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || rec.length) {
    rec.push(field);
    records.push(rec);
  }
  return records;
}

/**
 * GET path's JSON from a viewer of startViewer, asserting a 200. A
 * kept-alive connection the viewer closed while idle (while a test computed
 * its answer) fails the request it is reused for: once more on a new one (a
 * viewer that died refuses that one too).
 */
export async function getJson(server, path) {
  const res = await fetch(server.url + path).catch((e) => {
    if (!['UND_ERR_SOCKET', 'ECONNRESET'].includes(e.cause?.code)) throw e;
    return fetch(server.url + path);
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** SQLite's order of two values: NULL first, numbers by value, text bytewise (ASCII). */
/**
 * Copies src to path, changes the copy with SQL statements (the sqlite3
 * CLI), and serves it without the answer cache while fn(server, path)
 * runs; the viewer must then exit 0.
 */
export async function onChangedCopy(src, path, statements, fn) {
  copyFileSync(src, path);
  execFileSync('sqlite3', [path, statements]);
  const s = await startViewer(path, ['--cache-mb', '0']);
  try {
    await fn(s, path);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
}

export const sqliteCmp = (a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/**
 * For a node:test file: before its tests, dlprof (process.env.DLPROF) makes
 * WORK/name/dlprof_dldb.sqlite from trace and a viewer serves it, and
 * another serves NVIDIA's no_relu, both without the answer cache; after
 * them both must exit 0. Returns { dldb, v, nv }, v and nv set before the
 * tests run.
 */
export function viewersOnTrace(name, trace, { before, after }) {
  requireFile(trace);
  requireFile(noRelu);
  const dlprof = process.env.DLPROF;
  if (!dlprof || !existsSync(dlprof)) {
    console.error(`DLPROF (${dlprof}) is not a built dlprof`);
    process.exit(1);
  }
  const out = join(work, name);
  const t = { dldb: join(out, 'dlprof_dldb.sqlite'), v: null, nv: null };
  before(async () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    execFileSync(dlprof, [`--database=${trace}`, `--output_path=${out}`, '-v', 'quiet']);
    t.v = await startViewer(t.dldb, ['--cache-mb', '0']);
    t.nv = await startViewer(noRelu, ['--cache-mb', '0']);
  });
  after(async () => {
    for (const s of [t.v, t.nv]) if (s) assert.equal((await s.stop()).code, 0);
  });
  return t;
}
