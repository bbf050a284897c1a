// hardening.test.mjs - dlprofviewer against hostile clients: the
// access token of a viewer that serves a network, security headers on every
// kind of answer, no directory listing, only GET and HEAD, path traversal in
// every form, oversized requests, slow clients, the database replaced or
// removed while serving, CSV formula injection, and the answer cache.
// Every request goes to 127.0.0.1; every loop and wait is bounded.
// Run: node tests/server/hardening.test.mjs (ctest sets DLPROFVIEWER).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import { copyFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  work, makeMini, startServer, rawExchange, parseCsv, runToExit, noRelu,
} from './viewer.mjs';

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function assertSecurity(r, what) {
  for (const [k, want] of Object.entries(SECURITY)) assert.equal(r.headers[k], want, `${k} on ${what}`);
}

/** A request as raw bytes (GET unless said), with Connection: close. */
function req(port, target, { method = 'GET', headers = [], body = '' } = {}) {
  const text = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    headers.map((h) => `${h}\r\n`).join('') + 'Connection: close\r\n\r\n' + body;
  return rawExchange(port, text, { head: method === 'HEAD' });
}

function jsonError(r) {
  assert.match(r.headers['content-type'] || '', /^application\/json/);
  const j = JSON.parse(r.body.toString());
  assert.deepEqual(Object.keys(j), ['error']);
  assert.equal(j.error.status, r.status);
  return j.error;
}

let mini; // a loopback viewer on the mini fixture, no token
let miniDb;

before(async () => {
  miniDb = makeMini('hardening-mini.sqlite');
  mini = await startServer(['--port', '0', miniDb], { DLPROFVIEWER_REQUEST_TIMEOUT_MS: '1500' });
});

after(async () => {
  if (mini) {
    const e = await mini.stop();
    assert.equal(e.code, 0, `dlprofviewer exit: ${e.code} ${e.signal}\n${e.stderr}`);
  }
});

test('loopback needs no token; 0.0.0.0 prints the host name and a random token', async () => {
  assert.equal(mini.token, null);
  assert.equal(mini.host, '127.0.0.1');
  assert.equal((await req(mini.port, '/api/v1/health')).status, 200);
  const tokens = [];
  for (let i = 0; i < 2; i++) {
    const v = await startServer(['--bind', '0.0.0.0', '--port', '0', miniDb]);
    try {
      assert.equal(v.host, os.hostname());
      assert.match(v.token || '', /^[0-9a-f]{48}$/);
      assert.equal(v.url, `http://${os.hostname()}:${v.port}/?token=${v.token}`);
      tokens.push(v.token);
      assert.equal((await req(v.port, '/api/v1/health')).status, 401);
    } finally {
      const e = await v.stop();
      assert.equal(e.code, 0, e.stderr);
    }
  }
  assert.notEqual(tokens[0], tokens[1]);
});

test('token rules: query parameter, then an HttpOnly SameSite=Strict cookie; 401 otherwise', async () => {
  const v = await startServer(['--bind', '0.0.0.0', '--port', '0', miniDb]);
  const cookie = `dlprofviewer_token_${v.port}`;
  try {
    // without it: 401, JSON for the API, a small page otherwise, no cookie
    for (const path of ['/api/v1/health', '/api/v1/op_nodes', '/api/v1/nope', '/api']) {
      const r = await req(v.port, path);
      assert.equal(r.status, 401, path);
      assert.equal(jsonError(r).code, 'unauthorized');
      assert.equal(r.headers['set-cookie'], undefined);
      assertSecurity(r, `401 ${path}`);
    }
    for (const path of ['/', '/index.html', '/vendor/chart.umd.js', '/no-such-file', '/../etc/passwd']) {
      const r = await req(v.port, path);
      assert.equal(r.status, 401, path);
      assert.match(r.headers['content-type'], /^text\/html/);
      const page = r.body.toString();
      assert.match(page, /access token/);
      assert.ok(!/<script|style=|on\w+=/i.test(page), page);
      assertSecurity(r, `401 ${path}`);
    }
    const head = await req(v.port, '/', { method: 'HEAD' });
    assert.equal(head.status, 401);
    assert.equal(head.body.length, 0);
    assert.equal((await req(v.port, '/api/v1/health', { method: 'POST', body: '' })).status, 401);
    // wrong tokens, in the query or a cookie, or the cookie of another port
    for (const [path, headers] of [
      [`/api/v1/health?token=${v.token}x`, []],
      ['/api/v1/health?token=', []],
      [`/api/v1/health?xtoken=${v.token}`, []],
      ['/api/v1/health', [`Cookie: ${cookie}=nope`]],
      ['/api/v1/health', [`Cookie: dlprofviewer_token_${v.port + 1}=${v.token}`]],
      ['/api/v1/health', [`Cookie: x${cookie}=${v.token}`]],
    ]) {
      const r = await req(v.port, path, { headers });
      assert.equal(r.status, 401, `${path} ${headers}`);
      assert.equal(r.headers['set-cookie'], undefined);
    }
    // the right token in the query: 200 and the cookie
    let r = await req(v.port, `/api/v1/health?token=${v.token}`);
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(r.headers['set-cookie'], `${cookie}=${v.token}; Path=/; HttpOnly; SameSite=Strict`);
    r = await req(v.port, `/?token=${v.token}`);
    assert.equal(r.status, 200);
    assert.ok(r.headers['set-cookie'].includes('HttpOnly'));
    // percent-encoded, and beside other parameters
    r = await req(v.port, `/api/v1/op_nodes?limit=1&token=${encodeURIComponent(v.token).replace(/a/g, '%61')}`);
    assert.equal(r.status, 200, r.body.toString());
    // then the cookie alone lets the page and its API calls in
    for (const path of ['/', '/vendor/chart.umd.js', '/api/v1/info', '/api/v1/op_nodes?limit=2']) {
      r = await req(v.port, path, { headers: [`Cookie: theme=dark; ${cookie}=${v.token}`] });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['set-cookie'], undefined, path);
    }
    // a right query token wins over a stale cookie
    r = await req(v.port, `/api/v1/health?token=${v.token}`, { headers: [`Cookie: ${cookie}=old`] });
    assert.equal(r.status, 200);
  } finally {
    const e = await v.stop();
    assert.equal(e.code, 0, e.stderr);
  }
});

test('--token sets the token; --no-token serves a network without one; bad tokens are refused', async () => {
  const t = await startServer(['--token', 'team-Token_1.x~', '--port', '0', miniDb]);
  try {
    assert.equal(t.url, `http://127.0.0.1:${t.port}/?token=team-Token_1.x~`);
    assert.equal((await req(t.port, '/api/v1/health')).status, 401);
    assert.equal((await req(t.port, '/api/v1/health?token=team-Token_1.x~')).status, 200);
  } finally {
    assert.equal((await t.stop()).code, 0);
  }
  const open = await startServer(['--bind', '0.0.0.0', '--no-token', '--port', '0', miniDb]);
  try {
    assert.equal(open.token, null);
    assert.equal(open.url, `http://${os.hostname()}:${open.port}/`);
    assert.equal((await req(open.port, '/api/v1/health')).status, 200);
    assert.match(open.stderr(), /warning: --no-token/);
  } finally {
    assert.equal((await open.stop()).code, 0);
  }
  for (const args of [['--token', 'short'], ['--token', 'has spaces in it'], ['--token', 'semi;colon=x1'],
    ['--token', 'x'.repeat(129)], ['--token', 'abcdefgh12', '--no-token'], ['--cache-mb', '-1'],
    ['--cache-mb', 'lots']]) {
    const r = await runToExit([...args, '--port', '0', miniDb]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
  }
});

test('security headers on every kind of answer, civetweb\'s own errors and 304 included', async () => {
  const p = mini.port;
  const etag = (await req(p, '/vendor/chart.umd.js')).headers.etag;
  const cases = [
    ['200 API', await req(p, '/api/v1/op_nodes'), 200],
    ['200 page', await req(p, '/'), 200],
    ['200 HEAD', await req(p, '/api/v1/health', { method: 'HEAD' }), 200],
    ['200 CSV', await req(p, '/api/v1/op_nodes?format=csv'), 200],
    ['304', await req(p, '/vendor/chart.umd.js', { headers: [`If-None-Match: ${etag}`] }), 304],
    ['400', await req(p, '/api/v1/op_nodes?limit=x'), 400],
    ['404 API', await req(p, '/api/v1/nope'), 404],
    ['404 page', await req(p, '/nope.html'), 404],
    ['405', await req(p, '/', { method: 'DELETE' }), 405],
    ['413', await req(p, '/', { headers: ['Content-Length: 3'], body: 'abc' }), 413],
    ['431', await req(p, '/', { headers: Array.from({ length: 50 }, (_, i) => `X-H${i}: ${i}`) }), 431],
    ['civetweb 400', await rawExchange(p, 'GARBAGE\r\n\r\n'), null],
    ['civetweb too large', await req(p, `/?q=${'x'.repeat(10000)}`), null],
  ];
  for (const [what, r, status] of cases) {
    if (status !== null) assert.equal(r.status, status, what);
    else assert.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status}`);
    assertSecurity(r, what);
  }
});

test('no directory listing', async () => {
  for (const path of ['/vendor/', '/vendor', '/js/', '/js', '/css/', '/api/', '/api/v1/', '/api/v1']) {
    const r = await req(mini.port, path);
    assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
    assert.ok(!/Index of|<a href/i.test(r.body.toString()), path);
  }
});

test('only GET and HEAD', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'FOO', 'get']) {
    for (const path of ['/', '/api/v1/health', '/index.html']) {
      const r = await req(mini.port, path, { method, headers: ['Content-Length: 0'] });
      assert.ok([400, 405, 501].includes(r.status), `${method} ${path}: ${r.status}`);
      assertSecurity(r, `${method} ${path}`);
      if (r.status === 405) {
        assert.equal(jsonError(r).code, 'method_not_allowed');
        assert.equal(r.headers.allow, 'GET, HEAD');
      }
    }
  }
  const c = await rawExchange(mini.port, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
  assert.ok(c.status === 0 || c.status >= 400, `CONNECT: ${c.status}`);
  assert.equal((await req(mini.port, '/api/v1/health')).status, 200);
});

test('path traversal in any form reaches nothing outside the embedded files', async () => {
  const targets = [
    '/../../../../etc/passwd', '/..%2f..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd',
    '/%252e%252e/%252e%252e/etc/passwd', '/..%252f..%252fetc%252fpasswd', '/....//....//etc/passwd',
    '/..\\..\\..\\etc\\passwd', '/..%5c..%5c..%5cetc%5cpasswd', '/vendor\\..\\..\\etc\\passwd',
    '/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd', '/%e0%80%ae%e0%80%ae/etc/passwd', '//etc/passwd',
    '/./index.html/../../etc/passwd', '/vendor/../../etc/passwd', '/vendor/%2e%2e/%2e%2e/etc/passwd',
    '/api/v1/../../../etc/passwd', '/api/v1/reports/..%2f..%2f..%2fetc%2fpasswd.csv',
    '/api/v1/reports/../../../../etc/passwd', `/${miniDb}`, `/..${miniDb}`, '/%00/etc/passwd',
    '/index.html%00/../../etc/passwd', 'http://127.0.0.1/../../etc/passwd', '../../etc/passwd',
    '/proc/self/environ', '/etc/passwd', `/${'../'.repeat(40)}etc/passwd`,
  ];
  for (const t of targets) {
    const r = await req(mini.port, t);
    assert.ok(r.status === 0 || (r.status >= 400 && r.status < 500), `${t}: ${r.status}`);
    const body = r.body.toString('latin1');
    assert.ok(!body.includes('root:') && !body.includes('SQLite format 3') && !body.includes('PATH='), t);
  }
  assert.equal((await req(mini.port, '/index.html')).status, 200);
  // an encoded NUL cannot cut a path short: 400, not the file before it
  for (const t of ['/index.html%00.js', '/%00', '/vendor/chart.umd.js%00/x', '/index.html%zz']) {
    const r = await req(mini.port, t);
    assert.equal(r.status, 400, t);
    assert.equal(jsonError(r).code, 'bad_path');
  }
  // encoded characters that are not special decode as usual
  assert.equal((await req(mini.port, '/index%2Ehtml')).status, 200);
  assert.equal((await req(mini.port, '/api/v1/%68ealth')).status, 200);
});

test('oversized requests are refused and the server goes on', async () => {
  const p = mini.port;
  // a request line and headers over the limit
  let r = await req(p, `/api/v1/op_nodes?filter=${'a'.repeat(9000)}`);
  assert.ok([400, 413, 414, 431].includes(r.status), `long URL: ${r.status}`);
  r = await req(p, '/', { headers: [`X-Big: ${'b'.repeat(9000)}`] });
  assert.ok([400, 413, 431].includes(r.status), `big header: ${r.status}`);
  // too many headers, under the byte limit and over civetweb's 64
  for (const n of [49, 70, 200]) {
    r = await req(p, '/', { headers: Array.from({ length: n }, (_, i) => `X-${i}: 1`) });
    assert.ok([400, 413, 431].includes(r.status), `${n} headers: ${r.status}`);
  }
  r = await req(p, '/', { headers: Array.from({ length: 40 }, (_, i) => `X-${i}: 1`) });
  assert.equal(r.status, 200, '40 headers are fine');
  // a body on a GET, announced huge, or chunked: refused at once, not read
  r = await req(p, '/api/v1/health', { headers: ['Content-Length: 5'], body: 'hello' });
  assert.equal(r.status, 413);
  assert.equal(jsonError(r).code, 'body_not_allowed');
  r = await req(p, '/api/v1/health', { headers: ['Content-Length: 10000000000'] });
  assert.equal(r.status, 413);
  r = await req(p, '/api/v1/health', { headers: ['Transfer-Encoding: chunked'], body: '5\r\nhello\r\n' });
  assert.ok([400, 413].includes(r.status), `chunked: ${r.status}`);
  // a long query string within the limit is answered normally (400 for the long filter)
  r = await req(p, `/api/v1/op_nodes?filter=${'a'.repeat(300)}`);
  assert.equal(r.status, 400);
  assert.equal((await req(p, '/api/v1/health')).status, 200);
});

test('slow clients (slowloris) do not starve a normal request, and are dropped', async () => {
  // more slow connections than worker threads (16), each trickling one header byte
  // every 250 ms and never finishing; the server's request timeout here is 1.5 s.
  const n = 24;
  const socks = [];
  let closed = 0;
  for (let i = 0; i < n; i++) {
    const s = net.connect({ host: '127.0.0.1', port: mini.port });
    s.on('error', () => {});
    s.on('close', () => closed++);
    s.write(`GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-${i}: `);
    socks.push(s);
  }
  const trickle = setInterval(() => { for (const s of socks) if (!s.destroyed) s.write('a'); }, 250);
  try {
    await sleep(300);
    // a normal request still gets its answer (it may wait for a slow one's timeout)
    const r = await rawExchange(mini.port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      { timeoutMs: 15000 });
    assert.equal(r.status, 200, 'normal request starved');
    // every slow connection is closed by the server, within a bounded wait
    for (let i = 0; i < 60 && closed < n; i++) await sleep(250);
    assert.equal(closed, n, `${n - closed} slow connections still open`);
  } finally {
    clearInterval(trickle);
    for (const s of socks) s.destroy();
  }
  // an idle connection that sends nothing is dropped too
  const idle = net.connect({ host: '127.0.0.1', port: mini.port });
  idle.on('error', () => {});
  const idleClosed = new Promise((res) => idle.on('close', res));
  const gone = await Promise.race([idleClosed.then(() => true), sleep(10000).then(() => false)]);
  idle.destroy();
  assert.ok(gone, 'an idle connection was kept open');
  assert.equal((await req(mini.port, '/api/v1/health')).status, 200);
});

test('the database replaced or removed at run time: the new file served, clean errors, no stale answers, no crash', async () => {
  const live = join(work, 'hardening-live.sqlite');
  const other = makeMini('hardening-other.sqlite', "UPDATE ops SET gpu_time = gpu_time + 1;");
  copyFileSync(miniDb, live);
  const v = await startServer(['--port', '0', live]);
  try {
    const path = '/api/v1/op_nodes?limit=3';
    const first = await req(v.port, path);
    assert.equal(first.status, 200);
    assert.deepEqual((await req(v.port, path)).body, first.body); // served again (cached)
    assert.deepEqual((await req(v.port, '/api/v1/op_nodes?limit=3&sort=gpu_time&order=desc')).body, first.body);
    // replaced by another dldb (a rename over it, as dlprof's re-aggregation
    // and a new profile write it): served from the next request on, not the
    // answers cached from the old file
    const tmp = join(work, 'hardening-live.tmp');
    copyFileSync(other, tmp);
    renameSync(tmp, live);
    const rows = (r) => JSON.parse(r.body.toString()).rows;
    const second = await req(v.port, path);
    assert.equal(second.status, 200);
    assert.deepEqual(
      rows(second).map((x) => x.gpu_time),
      rows(first).map((x) => x.gpu_time + 1),
    );
    for (const p of ['/api/v1/health', '/api/v1/performance_summary', '/api/v1/info', '/api/v1/op_nodes?format=csv']) {
      const r = await req(v.port, p);
      assert.equal(r.status, 200, p);
      assertSecurity(r, p);
    }
    // replaced by a file it cannot serve: why, on every request, and the page still loads to say so
    writeFileSync(tmp, 'not a database at all');
    renameSync(tmp, live);
    for (const p of [path, '/api/v1/health', '/api/v1/performance_summary', '/api/v1/info', '/api/v1/op_nodes?format=csv']) {
      const r = await req(v.port, p);
      assert.equal(r.status, 500, p);
      const e = jsonError(r);
      assert.equal(e.code, 'db_error');
      assert.match(e.message, /was replaced by a file dlprofviewer cannot serve \(.*not an SQLite database/);
      assertSecurity(r, p);
    }
    assert.equal((await req(v.port, '/')).status, 200);
    // requests racing with more swaps: every answer is a 200 or a clean 500
    const racing = [];
    for (let i = 0; i < 40; i++) {
      racing.push(req(v.port, i % 2 ? path : '/api/v1/kernel_summary'));
      if (i % 10 === 0) {
        copyFileSync(i % 20 ? other : miniDb, tmp);
        renameSync(tmp, live);
      }
    }
    for (const r of await Promise.all(racing)) {
      assert.ok(r.status === 500 || r.status === 404 || r.status === 200, `status ${r.status}`);
      assert.ok(r.status === 200 || jsonError(r).code !== undefined);
    }
    // removed
    rmSync(live);
    const r = await req(v.port, path);
    assert.equal(r.status, 500);
    assert.match(jsonError(r).message, /cannot be found/);
  } finally {
    const e = await v.stop();
    assert.equal(e.code, 0, e.stderr);
  }
  // truncated in place (same file): errors or the answers already built, never a crash
  copyFileSync(miniDb, live);
  const w = await startServer(['--port', '0', live]);
  try {
    assert.equal((await req(w.port, '/api/v1/op_nodes')).status, 200);
    truncateSync(live, 1024);
    for (const p of ['/api/v1/op_nodes', '/api/v1/iteration_kernels', '/api/v1/health', '/api/v1/aggregations']) {
      const r = await req(w.port, p);
      assert.ok(r.status === 200 || r.status === 500, `${p}: ${r.status}`);
      if (r.status === 500) assert.equal(jsonError(r).code, 'db_error');
    }
  } finally {
    const e = await w.stop();
    assert.equal(e.code, 0, e.stderr);
    rmSync(live, { force: true });
  }
});

test('CSV exports defuse spreadsheet formulas in names; JSON keeps them as they are', async () => {
  const db = makeMini('hardening-formula.sqlite', `INSERT INTO ops VALUES
    (2, 'default-domain', 5, -7, '=HYPERLINK("http://evil.example/","x")', '+cmd|calc', '@SUM(A1)', '-1+2'),
    (2, 'default-domain', 4, 8, 'evil' || char(9) || 'tab', '=1', 'EVIL_2', char(9) || 'x');`);
  const v = await startServer(['--port', '0', db]);
  try {
    const r = await req(v.port, '/api/v1/op_nodes?format=csv&filter=evil&sort=gpu_time');
    assert.equal(r.status, 200);
    let text = r.body.toString();
    if (/chunked/i.test(r.headers['transfer-encoding'] || '')) {
      let out = '';
      for (let i = 0; i < text.length;) {
        const nl = text.indexOf('\r\n', i);
        const n = parseInt(text.slice(i, nl), 16);
        if (!n) break;
        out += text.slice(nl + 2, nl + 2 + n);
        i = nl + 2 + n + 2;
      }
      text = out;
    }
    const recs = parseCsv(text);
    assert.deepEqual(recs[0], ['aggr_id', 'domain_name', 'gpu_time', 'cpu_time', 'op_node_name', 'op_node_type', 'op_node_id', 'stack_trace']);
    assert.deepEqual(recs[1], ['2', 'default-domain', '5', '-7', '\'=HYPERLINK("http://evil.example/","x")', "'+cmd|calc", "'@SUM(A1)", "'-1+2"]);
    assert.deepEqual(recs[2], ['2', 'default-domain', '4', '8', 'evil\ttab', "'=1", 'EVIL_2', "'\tx"]);
    const j = await req(v.port, '/api/v1/op_nodes?filter=evil&sort=gpu_time');
    const rows = JSON.parse(j.body.toString()).rows;
    assert.equal(rows[0].op_node_name, '=HYPERLINK("http://evil.example/","x")');
    assert.equal(rows[0].cpu_time, -7);
  } finally {
    assert.equal((await v.stop()).code, 0);
  }
});

test('the answer cache: equal requests, equal answers; --cache-mb 0 answers the same', async () => {
  const plain = await startServer(['--port', '0', '--cache-mb', '0', miniDb]);
  try {
    const paths = ['/api/v1/op_nodes', '/api/v1/op_nodes?limit=100', '/api/v1/op_nodes?order=desc&sort=gpu_time&offset=0',
      '/api/v1/op_nodes?sort=op_node_id', '/api/v1/op_nodes?filter=net', '/api/v1/op_nodes?filter=NET',
      '/api/v1/iteration_kernels?iter_value=3&device_id=0', '/api/v1/iteration_kernels?device_id=0&iter_value=3',
      '/api/v1/performance_summary', '/api/v1/performance_summary?aggr_id=1', '/api/v1/op_nodes?domain=other%20domain'];
    for (const p of paths) {
      const a = await req(mini.port, p);
      const b = await req(mini.port, p);
      const c = await req(plain.port, p);
      assert.equal(a.status, 200, p);
      assert.deepEqual(b.body, a.body, p);
      assert.deepEqual(c.body, a.body, p);
    }
    const a = JSON.parse((await req(mini.port, '/api/v1/op_nodes?filter=net')).body);
    const b = JSON.parse((await req(mini.port, '/api/v1/op_nodes?filter=x_y')).body);
    assert.notEqual(a.filtered, b.filtered);
  } finally {
    assert.equal((await plain.stop()).code, 0);
  }
});

test('the page works through the token cookie in a real browser', async (t) => {
  let chromium;
  try {
    const { createRequire } = await import('node:module');
    const require = createRequire(join(import.meta.dirname, '..', 'package.json'));
    ({ chromium } = require('playwright-core'));
  } catch {
    t.skip('playwright-core is not installed (tests/node_modules)');
    return;
  }
  const exe = process.env.DL_CHROMIUM || '/usr/bin/chromium';
  if (!(await import('node:fs')).existsSync(exe)) {
    t.skip(`${exe} is absent`);
    return;
  }
  if (!(await import('node:fs')).existsSync(noRelu)) {
    t.skip(`${noRelu} is absent (set DL_SHARED_DIR)`);
    return;
  }
  const v = await startServer(['--token', 'browser-test-token', '--port', '0', noRelu]);
  const browser = await chromium.launch({ executablePath: exe,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const statuses = [];
    page.on('response', (r) => statuses.push([r.status(), new URL(r.url()).pathname]));
    await page.goto(`${v.base}?token=browser-test-token`);
    await page.waitForFunction(() => document.documentElement.dataset.rendered === 'dashboard', null,
      { timeout: 60000 });
    const unauthorized = statuses.filter(([s]) => s === 401);
    assert.deepEqual(unauthorized, [], 'requests the cookie did not let in');
    assert.ok(statuses.some(([s, p]) => s === 200 && p.startsWith('/api/v1/')), 'no API call was made');
    const cookies = await ctx.cookies();
    const c = cookies.find((x) => x.name === `dlprofviewer_token_${v.port}`);
    assert.ok(c, 'no token cookie');
    assert.equal(c.httpOnly, true);
    assert.equal(c.sameSite, 'Strict');
    // the script cannot read it
    assert.equal(await page.evaluate(() => document.cookie.includes('dlprofviewer_token')), false);
    // a fresh context without the token gets the 401 page
    const other = await (await browser.newContext()).newPage();
    const res = await other.goto(v.base);
    assert.equal(res.status(), 401);
  } finally {
    await browser.close();
    assert.equal((await v.stop()).code, 0);
  }
});
