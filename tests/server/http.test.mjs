// http.test.mjs - dlprofviewer over real HTTP, on NVIDIA DLProf databases
// from ../shared and on the mini fixture: every endpoint of docs/api.md,
// values checked against the sqlite3 CLI, errors, CSV, reports, headers,
// gzip and path traversal. Run: node tests/server/http.test.mjs (ctest sets
// DLPROFVIEWER and DL_SHARED_DIR); exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  noRelu, wRelu, requireFile, startViewer, sql, rawRequest, parseCsv, makeMini, work,
} from './viewer.mjs';

requireFile(noRelu);

// endpoint -> [shape, scope]: 'a' aggr_id selects rows, 'd' domain does.
const VIEWS = {
  db_version: ['object', ''], system_config: ['object', ''], gpu_names: ['list', ''],
  aggregations: ['list', ''], domains: ['list', ''], performance_summary: ['object', 'ad'],
  domain_model_gpu_utilization: ['object', 'ad'], tc_utilization: ['object', 'ad'],
  resource_usage_breakdown: ['object', 'ad'], kernel_summary: ['object', 'ad'],
  op_summary: ['object', 'ad'], key_op_name: ['object', 'a'], gpu_devices: ['list', 'ad'],
  expert_systems: ['list', 'a'], iterations_all: ['list', 'a'], iterations_profiled: ['list', 'ad'],
  op_nodes: ['list', 'ad'], kernel_summaries: ['list', 'ad'], op_type_summary: ['list', 'ad'],
  iteration_ops: ['list', 'ad'], iteration_kernels: ['list', 'ad'],
  iteration_op_kernels: ['list', 'ad'], group_ops: ['list', 'ad'],
};
const SECURITY = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
};

let v; // the viewer on no_relu
let mini; // the viewer on the mini fixture
let miniDb;

before(async () => {
  v = await startViewer(noRelu);
  miniDb = makeMini('http-mini.sqlite');
  mini = await startViewer(miniDb);
});

after(async () => {
  // A clean exit also means no leak report from ASan's LeakSanitizer.
  for (const s of [v, mini]) {
    if (!s) continue;
    const e = await s.stop();
    assert.equal(e.code, 0, `dlprofviewer exit: ${e.code} ${e.signal}\n${e.stderr}`);
  }
});

async function get(server, path, init) {
  const res = await fetch(server.url + path.replace(/^\//, ''), init);
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { res, text, json };
}

function columns(db, view) {
  return sql(db, `SELECT name FROM pragma_table_info('${view}')`).map((r) => r.name);
}

function where(db, view) {
  const cols = columns(db, view);
  const [, scope] = VIEWS[view.replace(/^view_/, '')];
  const conds = [];
  if (scope.includes('a') && cols.includes('aggr_id')) conds.push('aggr_id = 1');
  if (scope.includes('d') && cols.includes('domain_name')) conds.push("domain_name = 'default-domain'");
  return conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
}

const canon = (rows) => rows.map((r) => JSON.stringify(r)).sort();

function assertError(r, status, code, words) {
  assert.equal(r.res.status, status, r.text);
  assert.match(r.res.headers.get('content-type'), /^application\/json/);
  assert.deepEqual(Object.keys(r.json), ['error']);
  assert.equal(r.json.error.status, status);
  assert.equal(r.json.error.code, code);
  assert.equal(typeof r.json.error.message, 'string');
  if (words) assert.ok(r.json.error.message.includes(words), r.json.error.message);
}

test('acceptance values of no_relu', async () => {
  const ps = (await get(v, '/api/v1/performance_summary')).json;
  assert.equal(ps.wall_clock_time, 2864091540);
  const ks = (await get(v, '/api/v1/kernel_summary')).json;
  assert.equal(ks.total_gpu_time, 352000);
  assert.equal(ks.total_count, 28);
  assert.equal(ks.memory_gpu_time, 43040);
  assert.equal(ks.memory_count, 3);
  const ops = (await get(v, '/api/v1/op_nodes')).json;
  assert.equal(ops.total, 32);
  assert.equal(ops.filtered, 32);
});

test('every view answers 200 with its columns and the values in the database', async () => {
  for (const [name, [shape]] of Object.entries(VIEWS)) {
    const view = `view_${name}`;
    const cols = columns(noRelu, view);
    const expected = sql(noRelu, `SELECT * FROM ${view}${where(noRelu, view)}`);
    const r = await get(v, `/api/v1/${name}`);
    assert.equal(r.res.status, 200, `${name}: ${r.text}`);
    assert.match(r.res.headers.get('content-type'), /^application\/json/);
    assert.equal(r.res.headers.get('cache-control'), 'no-store');
    if (shape === 'object') {
      assert.deepEqual(Object.keys(r.json), cols, name);
      assert.deepEqual(r.json, expected[0], name);
    } else {
      assert.deepEqual(Object.keys(r.json), ['total', 'filtered', 'offset', 'limit', 'sort', 'order', 'rows']);
      assert.equal(r.json.total, expected.length, name);
      assert.equal(r.json.filtered, expected.length, name);
      assert.equal(r.json.offset, 0);
      assert.equal(r.json.limit, 100);
      for (const row of r.json.rows) assert.deepEqual(Object.keys(row), cols, name);
      if (expected.length <= 100) assert.deepEqual(canon(r.json.rows), canon(expected), name);
      else assert.equal(r.json.rows.length, 100);
    }
  }
});

test('default orders, paging and sorting match SQL', async () => {
  let r = await get(v, '/api/v1/op_nodes?limit=5&offset=3');
  assert.equal(r.json.sort, 'gpu_time');
  assert.equal(r.json.order, 'desc');
  let want = sql(noRelu, 'SELECT op_node_id FROM view_op_nodes ORDER BY gpu_time DESC, op_node_id LIMIT 5 OFFSET 3');
  assert.deepEqual(r.json.rows.map((x) => x.op_node_id), want.map((x) => x.op_node_id));
  r = await get(v, '/api/v1/op_nodes?sort=cpu_time&order=asc&limit=7&offset=30');
  want = sql(noRelu, 'SELECT op_node_id FROM view_op_nodes ORDER BY cpu_time, op_node_id LIMIT 7 OFFSET 30');
  assert.equal(r.json.rows.length, 2);
  assert.deepEqual(r.json.rows.map((x) => x.op_node_id), want.map((x) => x.op_node_id));
  r = await get(v, '/api/v1/op_nodes?offset=1000');
  assert.equal(r.json.total, 32);
  assert.deepEqual(r.json.rows, []);
  r = await get(v, '/api/v1/iteration_kernels?limit=1000');
  want = sql(noRelu, 'SELECT kernel_timestamp FROM view_iteration_kernels ORDER BY kernel_timestamp');
  assert.deepEqual(r.json.rows.map((x) => x.kernel_timestamp), want.map((x) => x.kernel_timestamp));
  // text sorts ascending unless told; grid sorts as numbers
  r = await get(v, '/api/v1/iteration_kernels?sort=grid&limit=1000');
  assert.equal(r.json.order, 'asc');
  const dims = r.json.rows.map((x) => x.grid.split(', ').map(Number));
  for (let i = 1; i < dims.length; i++) {
    const [a, b] = [dims[i - 1], dims[i]];
    assert.ok(a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2]))), `${a} before ${b}`);
  }
  r = await get(v, '/api/v1/kernel_summaries?op_node_id=CONV2D_1&sort=kernel_name');
  want = sql(noRelu, "SELECT kernel_name FROM view_kernel_summaries WHERE op_node_id = 'CONV2D_1' ORDER BY kernel_name");
  assert.equal(r.json.total, want.length);
  assert.deepEqual(r.json.rows.map((x) => x.kernel_name), want.map((x) => x.kernel_name));
  r = await get(v, '/api/v1/iteration_ops?iter_value=0&aggr_id=1&domain=default-domain');
  assert.equal(r.json.total, sql(noRelu, 'SELECT count(*) AS n FROM view_iteration_ops WHERE iter_value = 0')[0].n);
});

test('filter matches name columns case-insensitively, with % _ quotes and HTML literal', async () => {
  let r = await get(v, '/api/v1/op_nodes?filter=CONV');
  const want = sql(noRelu, "SELECT count(*) AS n FROM view_op_nodes WHERE instr(lower(op_node_name), 'conv') > 0 OR instr(lower(op_node_type), 'conv') > 0 OR instr(lower(op_node_id), 'conv') > 0")[0].n;
  assert.equal(r.json.total, 32);
  assert.equal(r.json.filtered, want);
  assert.equal(r.json.rows.length, want);
  const cases = [
    ['%', ['LINEAR_1']],
    ['%_', ['LINEAR_1']],
    ['x_y', ['LINEAR_2']],
    ['100%_D', ['LINEAR_1']],
    ['"quoted", comma', ['RELU_1']],
    ["weird'type", ['WEIRD_1']],
    ['<img src=x onerror=alert(1)>', ['WEIRD_1']],
    ['no such op', []],
  ];
  for (const [f, ids] of cases) {
    r = await get(mini, `/api/v1/op_nodes?sort=op_node_id&filter=${encodeURIComponent(f)}`);
    assert.equal(r.res.status, 200, r.text);
    assert.equal(r.json.total, 5, f);
    assert.equal(r.json.filtered, ids.length, f);
    assert.deepEqual(r.json.rows.map((x) => x.op_node_id), ids, f);
  }
  r = await get(mini, '/api/v1/op_nodes?filter=%3Cimg');
  assert.equal(r.json.rows[0].op_node_name, '/net/<img src=x onerror=alert(1)>'); // JSON string, unescaped
});

/** Checks the group_ops tree of server (on db, aggregation 1) against the page's old tree logic. */
async function checkTree(server, db) {
  const all = sql(db, 'SELECT row_full_name AS n, row_full_id AS id, row_type AS t FROM view_group_ops WHERE aggr_id = 1');
  const groups = new Set(all.filter((x) => x.t === 1).map((x) => x.n));
  // the parent as the page built it from the whole list (web/js/views/group_ops.js before paging)
  const parentOf = (n) => {
    if (n === '/') return '';
    const s = n.endsWith('/') ? n.slice(0, -1) : n;
    const p = s.slice(0, s.lastIndexOf('/') + 1);
    return groups.has(p) ? p : '';
  };
  const key = (x) => `${x.row_full_name ?? x.n}\u0000${x.row_full_id ?? x.id}`;
  const ask = (p, more = '') => get(server, `/api/v1/group_ops?${p === '' ? 'top=1' : `parent=${encodeURIComponent(p)}`}&limit=1000${more}`);
  let seen = 0;
  for (const p of ['', ...groups]) {
    const r = await ask(p);
    assert.equal(r.res.status, 200, r.text);
    const want = all.filter((x) => parentOf(x.n) === p).map(key).sort();
    assert.deepEqual(r.json.rows.map(key).sort(), want, `children of '${p}'`);
    assert.equal(r.json.total, want.length);
    seen += r.json.rows.length;
  }
  assert.equal(seen, all.length, 'every row is under exactly one parent');
  assert.ok(groups.size > 10);
  // filter: the matches and the groups with a match below them
  const f = 'conv2d';
  const match = (x) => x.n.toLowerCase().includes(f) || String(x.id).toLowerCase().includes(f);
  const kept = (x) => match(x) || (x.t === 1 && all.some((y) => y.n.length > x.n.length && y.n.startsWith(x.n) && match(y)));
  let shown = 0;
  for (const p of ['', ...groups]) {
    const r = await ask(p, `&filter=${f.toUpperCase()}`);
    const want = all.filter((x) => parentOf(x.n) === p && kept(x)).map(key).sort();
    assert.deepEqual(r.json.rows.map(key).sort(), want, `children of '${p}' kept by the filter`);
    assert.equal(r.json.filtered, want.length);
    shown += want.length;
  }
  assert.ok(shown > 0 && shown < all.length);
  return { all, groups, parentOf, key, ask };
}

test('group_ops as a tree: top=1 and parent=NAME page each group\'s children; the filter keeps the way down', async () => {
  const { all, groups, parentOf, key, ask } = await checkTree(v, noRelu);
  // pages of one group's children, in the list's order
  const big = [...groups].map((g) => [g, all.filter((x) => parentOf(x.n) === g).length]).sort((a, b) => b[1] - a[1])[0];
  assert.ok(big[1] >= 4, `${big[0]} has ${big[1]} children`);
  const whole = (await ask(big[0])).json.rows.map(key);
  const p1 = (await get(v, `/api/v1/group_ops?parent=${encodeURIComponent(big[0])}&limit=3`)).json;
  const p2 = (await get(v, `/api/v1/group_ops?parent=${encodeURIComponent(big[0])}&limit=3&offset=3`)).json;
  assert.deepEqual([...p1.rows, ...p2.rows].map(key), whole.slice(0, 6));
  for (const [q, msg] of [
    ['parent=', /parent must name a group/],
    ['top=2', /top must be 1/],
    ['top=1&parent=%2F', /exclude each other/],
  ]) {
    const r = await get(v, `/api/v1/group_ops?${q}`);
    assert.equal(r.res.status, 400, q);
    assert.match(r.json.error.message, msg);
  }
  assert.equal((await get(v, '/api/v1/op_nodes?top=1')).res.status, 400, 'no tree: an unknown parameter');
});

test('group_ops as a tree: rows whose parent group is missing are top rows', async () => {
  const db = join(work, 'http-orphans.sqlite');
  copyFileSync(noRelu, db);
  chmodSync(db, 0o644);
  // NVIDIA's table behind the view: drop the groups "/" and one below it
  execFileSync('sqlite3', [db], {
    input: "DELETE FROM group_ops WHERE row_type = 1 AND group_op_full_name_id IN (SELECT id FROM dictionary WHERE string IN ('/', '/module/dummy_network::_call_impl/'));",
  });
  const s = await startViewer(db);
  try {
    const { all } = await checkTree(s, db);
    const top = (await get(s, '/api/v1/group_ops?top=1&limit=1000')).json.rows.map((x) => x.row_full_name);
    assert.ok(top.includes('/module/') && !top.includes('/'), top.join(' '));
    assert.ok(all.length > top.length);
  } finally {
    const e = await s.stop();
    assert.equal(e.code, 0, e.stderr);
  }
});

test('int64 and non-finite values survive', async () => {
  let r = await get(mini, '/api/v1/performance_summary');
  assert.match(r.text, /"wall_clock_time":9223372036854775807[,}]/);
  r = await get(mini, '/api/v1/performance_summary?aggr_id=1');
  assert.match(r.text, /"wall_clock_time":-9223372036854775808[,}]/);
  assert.equal(r.json.gpu_utilization, null); // 9e999 = infinity
  assert.equal(r.json.key_node, null);
});

test('errors: one envelope, 400 before the database, 404, 405', async () => {
  assertError(await get(v, '/api/v1/nope'), 404, 'not_found');
  assertError(await get(v, '/api/v2/op_nodes'), 404, 'not_found');
  assertError(await get(v, '/api/v1/op_nodes/'), 404, 'not_found');
  assertError(await get(v, '/api/v1/op_nodes?offset=x'), 400, 'bad_param', 'offset');
  assertError(await get(v, '/api/v1/op_nodes?sort=nope'), 400, 'bad_param', "no column 'nope'");
  assertError(await get(v, '/api/v1/op_nodes?limit=1001'), 400, 'bad_param', 'limit must be an integer from 1 to 1000');
  assertError(await get(v, '/api/v1/op_nodes?limit=0'), 400, 'bad_param', 'limit');
  assertError(await get(v, '/api/v1/op_nodes?aggr_id=2'), 400, 'bad_param', 'unknown aggr_id 2');
  assertError(await get(v, '/api/v1/op_nodes?domain=nope'), 400, 'bad_param', "unknown domain 'nope'");
  assertError(await get(v, '/api/v1/op_nodes?colour=red'), 400, 'bad_param', "unknown parameter 'colour'");
  assertError(await get(v, '/api/v1/op_nodes?order=sideways'), 400, 'bad_param', 'order');
  assertError(await get(v, '/api/v1/iteration_ops?iter_value=zero'), 400, 'bad_param', 'iter_value must be an integer');
  assertError(await get(v, '/api/v1/performance_summary?limit=5'), 400, 'bad_param', "unknown parameter 'limit'");
  assertError(await get(v, '/api/v1/health?x=1'), 400, 'bad_param');
  const nine = ['iter_value=0', 'op_node_id=A', 'kernel_name=k', 'device_id=0', 'kernel_timestamp=1',
    'kernel_duration=1', 'uses_tc=0', 'grid=1', 'block=1'].join('&');
  assertError(await get(v, `/api/v1/iteration_op_kernels?${nine}`), 400, 'bad_param', 'at most 8');
  assertError(await get(mini, '/api/v1/group_ops'), 404, 'view_missing', 'Group Ops');
  assertError(await get(mini, '/api/v1/kernel_summary'), 404, 'view_missing');
  assertError(await get(v, '/api/v1/performance_summary', { method: 'POST', body: '{}' }), 405, 'method_not_allowed');
  const del = await get(v, '/index.html', { method: 'DELETE' });
  assertError(del, 405, 'method_not_allowed');
  assert.equal(del.res.headers.get('allow'), 'GET, HEAD');
  // a row that is not there
  const r = await get(mini, '/api/v1/performance_summary?domain=other%20domain');
  assertError(r, 404, 'not_found');
});

test('health, version and info', async () => {
  assert.deepEqual((await get(v, '/api/v1/health')).json, { status: 'ok' });
  assert.deepEqual((await get(v, '/api/v1/health?token=abc')).json, { status: 'ok' });
  const ver = (await get(v, '/api/v1/version')).json;
  const dbv = sql(noRelu, 'SELECT * FROM view_db_version')[0];
  assert.deepEqual(ver, { dlprofviewer: '0.1.0', db_version: dbv, producer: 'nvidia-dlprof', schema_version: 0 });
  const info = (await get(v, '/api/v1/info')).json;
  assert.equal(info.database, 'dlprof_dldb.sqlite');
  assert.equal(info.producer, 'nvidia-dlprof');
  assert.equal(info.views.length, 24); // DLProf's 23 and the timeline's tracks (TEMP views)
  assert.deepEqual(info.missing, []);
  assert.equal(info.default_aggr_id, 1);
  assert.equal(info.default_domain, 'default-domain');
  assert.deepEqual(info.aggregations, sql(noRelu, 'SELECT * FROM view_aggregations'));
  assert.deepEqual(info.domains, ['default-domain']);
  assert.equal(info.mode, 'pytorch');
  assert.equal(info.num_gpus, 1);
  const mi = (await get(mini, '/api/v1/info')).json;
  assert.equal(mi.default_aggr_id, 2);
  assert.ok(mi.missing.some((m) => m.view === 'view_group_ops' && m.feature.includes('Group Ops')));
  assert.deepEqual(mi.domains, ['default-domain', 'other domain']);
});

test('dl_start: info, version, reports, system config and GPU names in one answer', async () => {
  for (const [server, db] of [[v, noRelu], [mini, miniDb]]) {
    const s = await get(server, '/api/v1/dl_start');
    assert.equal(s.res.status, 200, s.text);
    assert.equal(s.res.headers.get('cache-control'), 'no-store');
    // the keys are a contract (docs/api.md): other tools read them
    assert.deepEqual(Object.keys(s.json), ['run', 'info', 'version', 'reports', 'system_config', 'gpu_names']);
    const runs = (await get(server, '/api/v1/runs')).json;
    assert.equal(s.json.run, runs.default_run);
    assert.deepEqual(s.json.info, (await get(server, '/api/v1/info')).json);
    assert.deepEqual(s.json.version, (await get(server, '/api/v1/version')).json);
    const reports = await get(server, '/api/v1/reports');
    assert.deepEqual(s.json.reports, reports.res.status === 200 ? reports.json.reports : []);
    const sys = sql(db, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'view_system_config'")[0].n
      ? (await get(server, '/api/v1/system_config')).json : null;
    assert.deepEqual(s.json.system_config, sys);
    const names = sql(db, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'view_gpu_names'")[0].n
      ? sql(db, 'SELECT * FROM view_gpu_names') : [];
    assert.deepEqual(s.json.gpu_names, names);
    assert.equal(s.json.gpu_names.length > 0, server === v, 'no_relu has GPU names, the mini fixture none');
    assert.deepEqual(s.json, (await get(server, `/api/v1/dl_start?run=${s.json.run}`)).json);
  }
  assertError(await get(v, '/api/v1/dl_start?run=zz'), 404, 'run_not_found');
  assertError(await get(v, '/api/v1/dl_start?aggr_id=1'), 400, 'bad_param');
});

test('CSV export of a list: all rows, RFC 4180, as a download', async () => {
  const r = await get(v, '/api/v1/op_nodes?format=csv&limit=3');
  assert.equal(r.res.status, 200);
  assert.match(r.res.headers.get('content-type'), /^text\/csv/);
  assert.equal(r.res.headers.get('content-disposition'), 'attachment; filename="op_nodes.csv"');
  const recs = parseCsv(r.text);
  assert.deepEqual(recs[0], columns(noRelu, 'view_op_nodes'));
  assert.equal(recs.length, 1 + 32); // no paging
  const want = sql(noRelu, 'SELECT * FROM view_op_nodes ORDER BY gpu_time DESC, op_node_id');
  assert.deepEqual(recs.slice(1).map((x) => x[recs[0].indexOf('stack_trace')]), want.map((x) => x.stack_trace));
  assert.deepEqual(recs.slice(1).map((x) => Number(x[2])), want.map((x) => x.gpu_time));
  const m = await get(mini, '/api/v1/op_nodes?format=csv&filter=quoted');
  assert.deepEqual(parseCsv(m.text)[1].slice(4, 8), ['/net/"quoted", comma', 'relu', 'RELU_1', 'line1\nline2']);
  const empty = await get(mini, '/api/v1/op_nodes?format=csv&filter=zzz');
  assert.equal(empty.text, 'aggr_id,domain_name,gpu_time,cpu_time,op_node_name,op_node_type,op_node_id,stack_trace\r\n');
});

test('reports list and download with DLProf file names', async (t) => {
  const list = await get(v, '/api/v1/reports');
  if (list.res.status === 404) {
    t.skip('built without report/ (dlr)');
    return;
  }
  assert.equal(list.res.status, 200);
  const names = list.json.reports.map((x) => x.name);
  assert.ok(names.includes('summary') && names.includes('detail'), names.join());
  for (const rep of list.json.reports) {
    const r = await get(v, `/api/v1/reports/${rep.name}.csv`);
    assert.equal(r.res.status, 200, `${rep.name}: ${r.text}`);
    assert.equal(r.res.headers.get('content-disposition'), `attachment; filename="${rep.csv}"`);
    assert.ok(r.text.length > 0);
    for (const [k, want] of Object.entries(SECURITY)) assert.equal(r.res.headers.get(k), want);
  }
  assert.equal((await get(v, '/api/v1/reports/summary.csv')).res.headers.get('content-disposition'),
    'attachment; filename="dlprof_summary.csv"');
  assertError(await get(v, '/api/v1/reports/nope.csv'), 404, 'not_found');
  assertError(await get(v, '/api/v1/reports/summary.xml'), 404, 'not_found');
  assertError(await get(v, '/api/v1/reports/summary.csv?aggr_id=9'), 400, 'bad_param');
});

test('security headers on every kind of answer', async () => {
  for (const path of ['/api/v1/health', '/api/v1/nope', '/api/v1/op_nodes?limit=x', '/vendor/chart.umd.js', '/no-such-file', '/']) {
    const r = await rawRequest(v.port, path);
    for (const [k, want] of Object.entries(SECURITY)) assert.equal(r.headers[k], want, `${k} on ${path}`);
  }
});

// The server closes a connection idle for 3 s; a client that sends on it just
// then sees its request fail (Node's fetch keeps an idle socket 4 s unless
// told). Every answer says so: fetch then drops the socket after 2 s.
test('every answer names the idle timeout of its connection (Keep-Alive: timeout=3)', async () => {
  for (const path of ['/api/v1/health', '/api/v1/op_nodes', '/api/v1/nope', '/vendor/chart.umd.js', '/']) {
    const r = await rawRequest(v.port, path);
    assert.equal(r.headers['keep-alive'], 'timeout=3', path);
  }
});

test('assets: page aliases, types, gzip, ETag, HEAD, 404', async () => {
  const plain = await rawRequest(v.port, '/vendor/chart.umd.js');
  assert.equal(plain.status, 200);
  assert.match(plain.headers['content-type'], /^text\/javascript/);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.ok(plain.body.toString().includes('Chart'));
  const gz = await rawRequest(v.port, '/vendor/chart.umd.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gz.headers.vary, 'Accept-Encoding');
  assert.ok(gz.body.length < plain.body.length / 2);
  assert.deepEqual(gunzipSync(gz.body), plain.body);
  const again = await rawRequest(v.port, '/vendor/chart.umd.js', { headers: { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  const head = await rawRequest(v.port, '/vendor/chart.umd.js', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String(plain.body.length));
  const lic = await rawRequest(v.port, '/vendor/chart.js.LICENSE.md');
  assert.equal(lic.status, 200);
  assert.match(lic.body.toString(), /MIT|Permission is hereby granted/);
  const index = await rawRequest(v.port, '/index.html');
  if (index.status === 200) {
    assert.match(index.headers['content-type'], /^text\/html/);
    for (const alias of ['/', '/dashboard.html', '/dlprof.html']) {
      const a = await rawRequest(v.port, alias);
      assert.equal(a.status, 200, alias);
      assert.deepEqual(a.body, index.body, alias);
    }
  }
  const missing = await rawRequest(v.port, '/nope.html');
  assert.equal(missing.status, 404);
  const apiHead = await rawRequest(v.port, '/api/v1/op_nodes', { method: 'HEAD' });
  assert.equal(apiHead.status, 200);
  assert.equal(apiHead.body.length, 0);
});

test('page files under the build\'s tag are cached without revalidation', async () => {
  const index = await rawRequest(v.port, '/');
  assert.equal(index.status, 200);
  assert.equal(index.headers['cache-control'], 'no-cache');
  const html = index.body.toString();
  const m = html.match(/src="\/v\/([0-9a-f]{16})\/js\/app\.js"/);
  assert.ok(m, `index.html names app.js under /v/<tag>/:\n${html}`);
  const tag = m[1];
  assert.doesNotMatch(html, /="\/(js|css)\//, 'every script and style URL names the build');
  const again = await rawRequest(v.port, '/', { headers: { 'if-none-match': index.headers.etag } });
  assert.equal(again.status, 304);
  for (const path of ['/js/app.js', '/css/app.css', '/vendor/chart.umd.js']) {
    const tagged = await rawRequest(v.port, `/v/${tag}${path}`);
    assert.equal(tagged.status, 200, path);
    assert.equal(tagged.headers['cache-control'], 'public, max-age=31536000, immutable', path);
    const plain = await rawRequest(v.port, path);
    assert.equal(plain.headers['cache-control'], 'no-cache', path);
    assert.deepEqual(tagged.body, plain.body, path);
    assert.equal(tagged.headers['content-type'], plain.headers['content-type'], path);
    // a page of another build still gets the files, to be revalidated
    const other = await rawRequest(v.port, `/v/0123456789abcdef${path}`);
    assert.equal(other.status, 200, path);
    assert.equal(other.headers['cache-control'], 'no-cache', path);
  }
  for (const bad of [`/v/${tag}`, `/v/${tag}/`.slice(0, -1) + 'x/js/app.js', `/v/${tag}/../index.html`, `/v/${tag.slice(1)}/js/app.js`,
    `/v/${tag.toUpperCase().replace(/[0-9]/g, 'A')}/js/app.js`, `/v/${tag}/v/${tag}/js/app.js`]) {
    assert.equal((await rawRequest(v.port, bad)).status, 404, bad);
  }
});

test('no path reaches outside the embedded files', async () => {
  const paths = ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '//etc/passwd',
    '/..%5c..%5c..%5cetc%5cpasswd', '/vendor/..%2f..%2f..%2fetc/passwd', '/%2fetc%2fpasswd',
    '/vendor/../vendor/chart.umd.js', '/api/v1/../../etc/passwd', '/api/v1/%2e%2e/health'];
  for (const p of paths) {
    const r = await rawRequest(v.port, p);
    assert.ok(r.status === 404 || r.status === 400, `${p}: ${r.status}`);
    assert.ok(!r.body.toString().includes('root:'), p);
  }
  // civetweb decodes %00 into the end of the path: this can only name a file of the table.
  const nul = await rawRequest(v.port, '/index.html%00.js');
  const index = await rawRequest(v.port, '/index.html');
  assert.ok(nul.status === 404 || nul.status === 400 || nul.body.equals(index.body));
});

test('the other NVIDIA database (w_Relu) is served too', async (t) => {
  if (!(await import('node:fs')).existsSync(wRelu)) {
    t.skip(`${wRelu} is absent`);
    return;
  }
  const w = await startViewer(wRelu);
  try {
    const ik = (await get(w, '/api/v1/iteration_kernels?limit=1')).json;
    assert.equal(ik.total, 59);
    const ks = (await get(w, '/api/v1/kernel_summary')).json;
    assert.deepEqual(ks, sql(wRelu, 'SELECT * FROM view_kernel_summary')[0]);
    for (const name of Object.keys(VIEWS)) {
      const r = await get(w, `/api/v1/${name}`);
      assert.equal(r.res.status, 200, `${name}: ${r.text}`);
    }
  } finally {
    const e = await w.stop('SIGINT');
    assert.equal(e.code, 0, e.stderr);
  }
});

// view_op_cpu_times (dlprof's analysis writes it; NVIDIA's files and older
// dldbs lack it): served as op_cpu_times, aggr_id selecting the rows of its
// aggregation_id column, by self CPU time descending unless asked otherwise;
// an optional view, so its absence is no "missing" entry of /info.
test('op_cpu_times: per aggregation through aggregation_id, self CPU time first; optional', async () => {
  const db = makeMini(
    'http-cpu.sqlite',
    `CREATE TABLE cpu(aggregation_id INTEGER, op_id INTEGER, op_name TEXT, op_type TEXT, direction TEXT,
       calls INTEGER, total_cpu_time INTEGER, self_cpu_time INTEGER);
     INSERT INTO cpu VALUES (1, 0, 'a', 'A', 'fprop', 1, 900, 100), (1, 1, 'b', 'B', 'bprop', 2, 500, 400),
       (2, 0, 'c', 'C', 'fprop', 3, 70, 60), (2, 1, 'd', 'D', 'fprop', 4, 80, 80), (2, 2, 'e', 'E', '', 5, 50, 10);
     CREATE VIEW view_op_cpu_times AS SELECT * FROM cpu;`,
  );
  const s = await startViewer(db);
  try {
    const info = (await get(s, '/api/v1/info')).json;
    assert.ok(info.views.includes('view_op_cpu_times'));
    const def = (await get(s, '/api/v1/op_cpu_times')).json; // the newest aggregation: 2
    assert.equal(def.total, 3);
    assert.deepEqual(def.rows.map((r) => r.op_name), ['d', 'c', 'e']);
    assert.equal(def.sort, 'self_cpu_time');
    const one = (await get(s, '/api/v1/op_cpu_times?aggr_id=1&sort=total_cpu_time&order=asc')).json;
    assert.deepEqual(one.rows.map((r) => [r.aggregation_id, r.op_name, r.self_cpu_time]), [[1, 'b', 400], [1, 'a', 100]]);
    const top = (await get(s, '/api/v1/op_cpu_times?aggr_id=2&limit=1')).json;
    assert.deepEqual([top.total, top.rows.length, top.rows[0].op_name], [3, 1, 'd']);
    const filtered = (await get(s, '/api/v1/op_cpu_times?aggr_id=2&direction=fprop')).json;
    assert.deepEqual(filtered.rows.map((r) => r.op_name), ['d', 'c']);
    assert.equal((await get(s, '/api/v1/op_cpu_times?aggr_id=99')).res.status, 400);
  } finally {
    const e = await s.stop();
    assert.equal(e.code, 0, e.stderr);
  }
  // without the view: 404 view_missing naming it, and no "missing" entry in /info
  const r = await get(mini, '/api/v1/op_cpu_times');
  assert.equal(r.res.status, 404);
  assert.equal(r.json.error.code, 'view_missing');
  assert.match(r.json.error.message, /view_op_cpu_times, which the Top CPU Ops panel needs/);
  assert.ok(!(await get(mini, '/api/v1/info')).json.missing.some((m) => m.view === 'view_op_cpu_times'));
});
