// runs.test.mjs - dlprofviewer serving several dldbs over real HTTP: a
// folder (every dldb under it, a file added while it serves), several files
// on the command line, /api/v1/runs against the sqlite3 CLI, run= on the
// existing endpoints, a bad run id, and the comparison endpoints
// dl_compare_* (paging, sorting, filtering) against sums computed here from
// the two databases' views. NVIDIA's no_relu and w_Relu dldbs from
// ../shared, copied into the test's work folder (a folder it may write).
// Run: node tests/server/runs.test.mjs; exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { noRelu, wRelu, requireFile, startViewer, sql, work } from './viewer.mjs';

requireFile(noRelu);
requireFile(wRelu);

const dir = join(work, 'runs-folder');
let v; // the viewer on dir
let base; // the run id of no_relu (the base of comparisons)
let run; // the run id of w_Relu

before(async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'a'), { recursive: true });
  mkdirSync(join(dir, 'b', 'deep'), { recursive: true });
  copyFileSync(noRelu, join(dir, 'a', 'no_relu.sqlite'));
  copyFileSync(wRelu, join(dir, 'b', 'deep', 'w_relu.sqlite'));
  writeFileSync(join(dir, 'notes.txt'), 'not a database\n');
  writeFileSync(join(dir, 'b', 'not_a_dldb.sqlite'), ''); // no SQLite header: not a candidate
  v = await startViewer(dir);
  const r = await get(v, '/api/v1/runs');
  base = r.json.rows.find((x) => x.path === 'a/no_relu.sqlite').run;
  run = r.json.rows.find((x) => x.path === 'b/deep/w_relu.sqlite').run;
});

after(async () => {
  if (v) {
    const e = await v.stop();
    assert.equal(e.code, 0, `dlprofviewer exit: ${e.code} ${e.signal}\n${e.stderr}`);
  }
});

async function get(server, path) {
  const res = await fetch(server.url + path.replace(/^\//, ''));
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { res, text, json };
}

function assertError(r, status, code, words) {
  assert.equal(r.res.status, status, r.text);
  assert.match(r.res.headers.get('content-type'), /^application\/json/);
  assert.equal(r.json.error.status, status);
  assert.equal(r.json.error.code, code);
  if (words) assert.ok(r.json.error.message.includes(words), r.json.error.message);
}

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

test('runs: one row per dldb under the folder, with the runs page columns', async () => {
  const r = await get(v, '/api/v1/runs');
  assert.equal(r.res.status, 200, r.text);
  assert.deepEqual(r.json.rows.map((x) => x.path), ['a/no_relu.sqlite', 'b/deep/w_relu.sqlite']);
  assert.equal(r.json.total, 2);
  assert.equal(r.json.default_run, base);
  for (const [row, file] of [[r.json.rows[0], noRelu], [r.json.rows[1], wRelu]]) {
    assert.match(row.run, /^[0-9a-f]{8}$/);
    assert.equal(row.ok, true);
    assert.equal(row.producer, 'nvidia-dlprof');
    const s = sql(file, 'SELECT profiled_iterations, iter_avg, gpu_utilization FROM view_performance_summary WHERE aggr_id = 1')[0];
    assert.equal(row.iterations, s.profiled_iterations);
    assert.ok(near(row.iter_avg, s.iter_avg), `${row.iter_avg} vs ${s.iter_avg}`);
    assert.ok(near(row.gpu_utilization, s.gpu_utilization));
    assert.equal(row.date, sql(file, 'SELECT aggr_start FROM view_aggregations WHERE aggr_id = 1')[0].aggr_start);
    assert.equal(row.num_gpus, Number(sql(file, 'SELECT num_gpus FROM view_system_config')[0].num_gpus));
  }
  assert.equal(r.json.rows[0].name, 'a/no_relu');
  assertError(await get(v, '/api/v1/runs?limit=0'), 400, 'bad_param', 'limit');
  assertError(await get(v, '/api/v1/runs?sort=nope'), 400, 'bad_param', 'sort');
  assertError(await get(v, '/api/v1/runs?format=csv'), 400, 'bad_param', 'format');
});

test('runs: paged, sorted and filtered on the server as the whole list says', async () => {
  const dirL = join(work, 'runs-list');
  rmSync(dirL, { recursive: true, force: true });
  mkdirSync(join(dirL, 'sub'), { recursive: true });
  const files = ['k1', 'b2', 'sub/z3', 'a4', 'sub/c5', 'm6', 'e7'];
  files.forEach((f, i) => copyFileSync(i % 3 ? noRelu : wRelu, join(dirL, `${f}.sqlite`)));
  const m = await startViewer(dirL);
  try {
    const all = (await get(m, '/api/v1/runs')).json;
    assert.equal(all.rows.length, files.length);
    assert.equal(all.limit, null);
    // the reference: the whole list, ordered here (numbers by value, text
    // bytewise, ties by name then id), filtered by a case-insensitive
    // substring of name, path, producer or key_op
    const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    const want = (sort, desc, filter) => {
      const f = filter.toLowerCase();
      const rows = all.rows.filter((r) => !f || ['name', 'path', 'producer', 'key_op'].some((c) => String(r[c] ?? '').toLowerCase().includes(f)));
      return rows
        .map((r, i) => ({ r, i }))
        .sort((x, y) => (desc ? -1 : 1) * cmp(x.r[sort], y.r[sort]) || cmp(x.r.name, y.r.name) || cmp(x.r.run, y.r.run) || x.i - y.i)
        .map((x) => x.r.run);
    };
    let pages = 0;
    for (const sort of ['name', 'path', 'iterations', 'iter_avg', 'gpu_utilization', 'file_bytes', 'date', 'producer']) {
      for (const order of ['asc', 'desc']) {
        for (const filter of ['', 'SUB/', 'a']) {
          const expect = want(sort, order === 'desc', filter);
          for (let offset = 0; offset <= expect.length; offset += 3) {
            const q = `sort=${sort}&order=${order}&offset=${offset}&limit=3${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`;
            const r = await get(m, `/api/v1/runs?${q}`);
            assert.equal(r.res.status, 200, r.text);
            assert.equal(r.json.total, files.length, q);
            assert.equal(r.json.filtered, expect.length, q);
            assert.deepEqual(r.json.rows.map((x) => x.run), expect.slice(offset, offset + 3), q);
            pages++;
          }
        }
      }
    }
    assert.ok(pages > 50);
    // a column filter, as on the views
    const r = await get(m, `/api/v1/runs?iterations=${all.rows[1].iterations}&sort=name&order=desc`);
    assert.deepEqual(r.json.rows.map((x) => x.run), want('name', true, '').filter((id) => all.rows.find((x) => x.run === id).iterations === all.rows[1].iterations));
  } finally {
    assert.equal((await m.stop()).code, 0);
  }
});

test('run= selects the database of every existing endpoint; the first by default', async () => {
  let r = await get(v, `/api/v1/info?run=${run}`);
  assert.equal(r.res.status, 200, r.text);
  assert.equal(r.json.database, 'w_relu.sqlite');
  r = await get(v, '/api/v1/info');
  assert.equal(r.json.database, 'no_relu.sqlite');
  for (const [id, file] of [[base, noRelu], [run, wRelu]]) {
    r = await get(v, `/api/v1/performance_summary?run=${id}`);
    assert.equal(r.json.wall_clock_time, sql(file, 'SELECT wall_clock_time FROM view_performance_summary')[0].wall_clock_time);
    r = await get(v, `/api/v1/op_nodes?run=${id}&limit=1000&sort=op_node_id`);
    const want = sql(file, 'SELECT op_node_id FROM view_op_nodes ORDER BY op_node_id');
    assert.equal(r.json.total, want.length);
    assert.deepEqual(r.json.rows.map((x) => x.op_node_id), want.map((x) => x.op_node_id));
    r = await get(v, `/api/v1/reports?run=${id}`);
    assert.equal(r.res.status, 200, r.text);
    r = await get(v, `/api/v1/health?run=${id}`);
    assert.equal(r.json.status, 'ok');
  }
  // the two files differ where the comparison says they do
  const a = await get(v, `/api/v1/kernel_summaries?run=${base}&limit=1`);
  const b = await get(v, `/api/v1/kernel_summaries?run=${run}&limit=1`);
  assert.notEqual(a.json.total, b.json.total);
});

test('a bad run id is a clear 404; a malformed one a 400', async () => {
  assertError(await get(v, '/api/v1/info?run=00000000'), 404, 'run_not_found', "no run '00000000'");
  assertError(await get(v, '/api/v1/op_nodes?run=nope&limit=5'), 404, 'run_not_found', 'nope');
  assertError(await get(v, '/api/v1/info?run=%zz'), 400, 'bad_param', 'run');
  assertError(await get(v, `/api/v1/dl_compare_kernels?base=nope&run=${run}`), 404, 'run_not_found', 'nope');
  assertError(await get(v, `/api/v1/dl_compare_kernels?base=${base}&run=gone`), 404, 'run_not_found', 'gone');
  assertError(await get(v, `/api/v1/dl_compare_kernels?run=${run}`), 400, 'bad_param', 'base is required');
});

/** Per kernel name: calls and GPU time summed over view_kernel_summaries. */
function kernels(file) {
  const m = new Map();
  for (const r of sql(file, 'SELECT kernel_name, sum(calls) AS calls, sum(gpu_time) AS t FROM view_kernel_summaries WHERE aggr_id = 1 GROUP BY kernel_name')) m.set(r.kernel_name, r);
  return m;
}

test('dl_compare_kernels: every kernel of both runs, its counts and times as in the views', async () => {
  const r = await get(v, `/api/v1/dl_compare_kernels?base=${base}&run=${run}&limit=1000`);
  assert.equal(r.res.status, 200, r.text);
  const kb = kernels(noRelu);
  const kr = kernels(wRelu);
  const names = new Set([...kb.keys(), ...kr.keys()]);
  assert.equal(r.json.total, names.size);
  assert.deepEqual(Object.keys(r.json.rows[0]), ['kernel_name', 'base_calls', 'calls', 'base_gpu_time', 'gpu_time', 'status']);
  for (const row of r.json.rows) {
    const b = kb.get(row.kernel_name);
    const x = kr.get(row.kernel_name);
    assert.equal(row.base_calls, b ? b.calls : 0, row.kernel_name);
    assert.equal(row.calls, x ? x.calls : 0, row.kernel_name);
    assert.equal(row.base_gpu_time, b ? b.t : 0, row.kernel_name);
    assert.equal(row.gpu_time, x ? x.t : 0, row.kernel_name);
    assert.equal(row.status, !b ? 'added' : !x ? 'removed' : row.status, row.kernel_name);
  }
  // the biggest change first by default
  const delta = r.json.rows.map((x) => Math.abs(x.gpu_time - x.base_gpu_time));
  for (let i = 1; i < delta.length; i++) assert.ok(delta[i - 1] >= delta[i], `${delta[i - 1]} before ${delta[i]}`);
  assert.ok(r.json.rows.some((x) => x.status === 'added') && r.json.rows.some((x) => x.status === 'removed'));
});

test('dl_compare_kernels and dl_compare_ops: paging, sorting and filtering on the server', async () => {
  const q = `base=${base}&run=${run}`;
  const all = (await get(v, `/api/v1/dl_compare_kernels?${q}&sort=gpu_time&order=desc&limit=1000`)).json;
  const t = all.rows.map((x) => x.gpu_time);
  for (let i = 1; i < t.length; i++) assert.ok(t[i - 1] >= t[i]);
  assert.equal(all.sort, 'gpu_time');
  assert.equal(all.order, 'desc');
  const page = (await get(v, `/api/v1/dl_compare_kernels?${q}&sort=gpu_time&order=desc&offset=3&limit=4`)).json;
  assert.equal(page.total, all.total);
  assert.equal(page.offset, 3);
  assert.deepEqual(page.rows, all.rows.slice(3, 7));
  const f = (await get(v, `/api/v1/dl_compare_kernels?${q}&filter=GEMM&limit=1000`)).json;
  const want = all.rows.filter((x) => x.kernel_name.toLowerCase().includes('gemm'));
  assert.ok(want.length > 0);
  assert.equal(f.filtered, want.length);
  assert.equal(f.total, all.total);
  const st = (await get(v, `/api/v1/dl_compare_kernels?${q}&status=added&limit=1000`)).json;
  assert.deepEqual(st.rows.map((x) => x.kernel_name).sort(), all.rows.filter((x) => x.status === 'added').map((x) => x.kernel_name).sort());
  const ops = (await get(v, `/api/v1/dl_compare_ops?${q}&filter=relu&sort=op_node_name&limit=1000`)).json;
  assert.ok(ops.filtered > 0);
  for (const row of ops.rows) {
    assert.deepEqual(Object.keys(row), ['op_node_name', 'op_node_type', 'direction', 'base_calls', 'calls', 'base_gpu_time', 'gpu_time', 'status']);
    assert.ok(`${row.op_node_name} ${row.op_node_type}`.toLowerCase().includes('relu'));
  }
  const relu = sql(wRelu, "SELECT count(*) AS n FROM view_op_nodes WHERE aggr_id = 1 AND op_node_type = 'relu'")[0].n;
  assert.equal(ops.rows.filter((x) => x.op_node_type === 'relu' && x.status === 'added').length, relu); // no_relu has none
  const csv = await fetch(`${v.url}api/v1/dl_compare_ops?${q}&format=csv`);
  assert.equal(csv.status, 200);
  assert.match(await csv.text(), /^op_node_name,op_node_type,direction,base_calls,calls,base_gpu_time,gpu_time,status\r?\n/);
  assertError(await get(v, `/api/v1/dl_compare_kernels?${q}&sort=nope`), 400, 'bad_param', "no column 'nope'");
  assertError(await get(v, `/api/v1/dl_compare_kernels?${q}&aggr_id=1`), 400, 'bad_param', 'aggr_id');
  assertError(await get(v, `/api/v1/dl_compare_summary?${q}&limit=5`), 400, 'bad_param', 'limit');
});

test('dl_compare_summary and dl_compare_iterations: both sides, what differs', async () => {
  const q = `base=${base}&run=${run}`;
  const s = (await get(v, `/api/v1/dl_compare_summary?${q}`)).json;
  assert.equal(s.base_path, 'a/no_relu.sqlite');
  assert.equal(s.path, 'b/deep/w_relu.sqlite');
  const ps = (f) => sql(f, 'SELECT iter_avg, gpu_utilization FROM view_performance_summary WHERE aggr_id = 1')[0];
  assert.ok(near(s.base_iter_mean_ns, ps(noRelu).iter_avg));
  assert.ok(near(s.iter_mean_ns, ps(wRelu).iter_avg));
  assert.ok(near(s.gpu_utilization, ps(wRelu).gpu_utilization));
  assert.match(s.notes, /1 aggregated iteration/);
  const it = (await get(v, `/api/v1/dl_compare_iterations?${q}`)).json;
  assert.deepEqual(it.rows.map((x) => x.side).sort(), ['base', 'run']);
  // the same run against itself: nothing changed
  const self = (await get(v, `/api/v1/dl_compare_kernels?base=${base}&run=${base}&limit=1000`)).json;
  assert.ok(self.rows.every((x) => x.status === 'same'));
});

test('a file copied into the served folder appears in the runs list without a restart', async () => {
  let r = await get(v, '/api/v1/runs');
  assert.equal(r.json.total, 2);
  copyFileSync(noRelu, join(dir, 'b', 'later.sqlite'));
  r = await get(v, '/api/v1/runs');
  assert.equal(r.json.total, 3);
  const later = r.json.rows.find((x) => x.path === 'b/later.sqlite');
  assert.ok(later, r.text);
  assert.notEqual(later.run, base);
  const info = await get(v, `/api/v1/info?run=${later.run}`);
  assert.equal(info.json.database, 'later.sqlite');
  rmSync(join(dir, 'b', 'later.sqlite'));
  r = await get(v, '/api/v1/runs');
  assert.equal(r.json.total, 2);
});

test('several files on the command line; one file alone is listed as given', async () => {
  const two = await startViewer(wRelu, [noRelu]);
  try {
    const r = await get(two, '/api/v1/runs');
    assert.deepEqual(r.json.rows.map((x) => x.path), [noRelu, wRelu]);
    assert.deepEqual(r.json.rows.map((x) => x.name), ['dlprof_dldb', 'dlprof_dldb_1']);
    const info = await get(two, `/api/v1/info?run=${r.json.rows[1].run}`);
    assert.equal(info.json.database, 'dlprof_dldb_1.sqlite');
  } finally {
    assert.equal((await two.stop()).code, 0);
  }
  const one = await startViewer(noRelu);
  try {
    const r = await get(one, '/api/v1/runs');
    assert.equal(r.json.total, 1);
    assert.equal(r.json.rows[0].path, noRelu);
    assert.equal((await get(one, `/api/v1/info?run=${r.json.rows[0].run}`)).json.database, 'dlprof_dldb.sqlite');
  } finally {
    assert.equal((await one.stop()).code, 0);
  }
});

test('more runs than stay open: each answers again, and one replaced while closed is read anew', async () => {
  const many = join(work, 'runs-many');
  rmSync(many, { recursive: true, force: true });
  mkdirSync(many);
  for (let i = 0; i < 12; i++) copyFileSync(noRelu, join(many, `r${String(i).padStart(2, '0')}.sqlite`));
  const m = await startViewer(many);
  try {
    const rows = (await get(m, '/api/v1/runs')).json.rows;
    assert.equal(rows.length, 12);
    const wall = (f) => sql(f, 'SELECT wall_clock_time FROM view_performance_summary')[0].wall_clock_time;
    for (let pass = 0; pass < 2; pass++) {
      for (const r of rows) {
        const s = await get(m, `/api/v1/performance_summary?run=${r.run}`);
        assert.equal(s.res.status, 200, s.text);
        assert.equal(s.json.wall_clock_time, wall(noRelu));
        assert.equal((await get(m, `/api/v1/info?run=${r.run}`)).json.database, r.path);
      }
    }
    // r00 was closed (the least recently used of 12); its file is replaced by w_Relu's
    copyFileSync(wRelu, join(many, 'new.tmp'));
    renameSync(join(many, 'new.tmp'), join(many, 'r00.sqlite'));
    const s = await get(m, `/api/v1/performance_summary?run=${rows[0].run}`);
    assert.equal(s.res.status, 200, s.text);
    assert.equal(s.json.wall_clock_time, wall(wRelu));
    const k = await get(m, `/api/v1/kernel_summaries?run=${rows[0].run}&limit=1`);
    assert.equal(k.json.total, sql(wRelu, 'SELECT count(*) AS n FROM view_kernel_summaries')[0].n);
  } finally {
    assert.equal((await m.stop()).code, 0);
  }
});
