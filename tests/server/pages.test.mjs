// pages.test.mjs - the big kernel lists (iteration_kernels,
// iteration_op_kernels) paged, sorted and filtered by dlprofviewer equal the
// same list computed here from the view's rows: every row of the
// aggregation read once with the sqlite3 CLI (no ORDER BY, no LIMIT), then
// filtered, ordered and cut in JavaScript. The viewer reads these lists
// through view_dl_kernel_times (the seek of a deep page in launch order,
// from view_dl_kernel_marks), view_dl_kernel_calls (counts) and, sorted by
// a column the kernel groups share, view_dl_kernel_groups, the groups'
// stored orders (view_dl_kernel_seq_chunks, view_dl_kernel_dseq_chunks) and
// view_dl_kernel_launch_rows; NVIDIA's no_relu, which has none of them, is
// checked the same way. The dldb
// is made by dlprof from HTA's control trace (../shared, 8,568 kernels).
// Run: node tests/server/pages.test.mjs (DLPROF, DLPROFVIEWER, DL_SHARED_DIR,
// DL_TEST_WORK); exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, noRelu, shared, sql, sqliteCmp, startViewer, viewersOnTrace, work } from './viewer.mjs';

const trace = join(shared, 'traces/kineto/hta/trace_diff_control_control.json.gz');
// t.v: the viewer on t.dldb; t.nv: the viewer on NVIDIA's no_relu
const t = viewersOnTrace('pages', trace, { before, after });
const { dldb } = t;
const out = join(work, 'pages');

/** Every row of a query (sqlite3 -json, read-only; more than sql()'s 1 MB). */
function sqlAll(db, query) {
  const text = execFileSync('sqlite3', ['-readonly', '-json', db, query], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return text.trim() ? JSON.parse(text) : [];
}

const cmp = sqliteCmp;
// The viewer's order of grid and block: "x, y, z" by x, then y, then z (dldb_dim3).
const dim3Keys = new Map();
const dim3Key = (t) => {
  if (!dim3Keys.has(t)) {
    dim3Keys.set(t, t.split(',').map((p) => p.trim().padStart(10, '0')).join(','));
  }
  return dim3Keys.get(t);
};
const sortValue = (r, c) => (c === 'grid' || c === 'block' ? dim3Key(r[c]) : r[c]);

/** The page the viewer must answer, from rows (every row of the aggregation). */
function expected(rows, { eq = {}, filter = '', filterCols, sort, desc, offset, limit }) {
  const f = filter.toLowerCase();
  const sel = rows.filter(
    (r) => Object.entries(eq).every(([c, x]) => String(r[c]) === String(x)) && (!f || filterCols.some((c) => c in r && String(r[c]).toLowerCase().includes(f))),
  );
  const total = rows.filter((r) => Object.entries(eq).every(([c, x]) => String(r[c]) === String(x))).length;
  sel.sort((a, b) => (desc ? -1 : 1) * cmp(sortValue(a, sort), sortValue(b, sort)) || cmp(a.device_id, b.device_id) || cmp(a.kernel_name, b.kernel_name));
  return { total, filtered: sel.length, rows: sel.slice(offset, offset + limit) };
}

const timeSorts = [['kernel_timestamp', false], ['kernel_timestamp', true], ['kernel_duration', true], ['kernel_duration', false]];
/** The columns the kernel groups share (view_dl_kernel_groups), both ways. */
const groupSorts = (opCol) => ['kernel_name', opCol, 'device_id', 'grid', 'block', 'uses_tc'].flatMap((c) => [[c, false], [c, true]]);

/** Checks every combination of scopes, sorts, filters and offsets on view. */
async function checkView(server, db, view, scopes, filterCols, sorts = timeSorts) {
  const rows = sqlAll(db, `SELECT * FROM view_${view} WHERE aggr_id = 1`);
  assert.ok(rows.length > 0);
  let pages = 0;
  for (const eq of scopes) {
    for (const [sort, desc] of sorts) {
      for (const filter of ['', 'GEMM', 'xyzzy']) {
        const n = expected(rows, { eq, filter, filterCols, sort, desc, offset: 0, limit: 0 }).filtered;
        for (const offset of new Set([0, 999, 1001, 2345, Math.max(0, n - 7), n + 5])) {
          const want = expected(rows, { eq, filter, filterCols, sort, desc, offset, limit: 50 });
          const q = new URLSearchParams({ ...eq, sort, order: desc ? 'desc' : 'asc', offset, limit: 50, ...(filter ? { filter } : {}) });
          const got = await getJson(server, `api/v1/${view}?${q}`);
          const what = `${view}?${q}`;
          assert.equal(got.total, want.total, `total of ${what}`);
          assert.equal(got.filtered, want.filtered, `filtered of ${what}`);
          if (sort === 'kernel_timestamp') {
            // launch times are unique in this trace: the order is total
            assert.deepEqual(got.rows, want.rows, what);
          } else {
            // equal sort keys come in either order: compare the keys, and the rows as a set
            const key = (r) => `${r[sort]}\u0001${r.device_id}\u0001${r.kernel_name}`;
            assert.deepEqual(got.rows.map(key), want.rows.map(key), what);
            assert.ok(got.rows.every((r) => Object.entries(eq).every(([c, x]) => String(r[c]) === String(x))), `scope of ${what}`);
          }
          pages++;
        }
      }
    }
  }
  return pages;
}

test('iteration_kernels: every scope, order, filter and depth as computed from the view', async () => {
  const k = sql(dldb, 'SELECT kernel_name, count(*) AS n FROM view_iteration_kernels GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1')[0];
  const it = sql(dldb, 'SELECT iter_value FROM view_iteration_kernels GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET 2')[0];
  const scopes = [{}, { kernel_name: k.kernel_name }, { iter_value: it.iter_value }];
  const pages = await checkView(t.v, dldb, 'iteration_kernels', scopes, ['op_node_name', 'kernel_name']);
  assert.ok(pages > 100, `${pages} pages`);
});

test('iteration_op_kernels: every scope, order, filter and depth as computed from the view', async () => {
  const op = sql(dldb, 'SELECT op_node_id, count(*) AS n FROM view_iteration_op_kernels GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1')[0];
  const it = sql(dldb, `SELECT iter_value FROM view_iteration_op_kernels WHERE op_node_id = '${op.op_node_id.replaceAll("'", "''")}' LIMIT 1`)[0];
  const scopes = [{}, { op_node_id: op.op_node_id }, { iter_value: it.iter_value, op_node_id: op.op_node_id }];
  const pages = await checkView(t.v, dldb, 'iteration_op_kernels', scopes, ['op_node_id', 'kernel_name']);
  assert.ok(pages > 100, `${pages} pages`);
});

test('sorted by a column of the kernel groups: every scope, filter and depth as computed from the view', async () => {
  const k = sql(dldb, 'SELECT kernel_name, count(*) AS n FROM view_iteration_kernels GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1')[0];
  const it = sql(dldb, 'SELECT iter_value FROM view_iteration_kernels GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET 2')[0];
  const op = sql(dldb, 'SELECT op_node_id, count(*) AS n FROM view_iteration_op_kernels GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1')[0];
  let pages = await checkView(t.v, dldb, 'iteration_kernels', [{}, { kernel_name: k.kernel_name }, { iter_value: it.iter_value }], ['op_node_name', 'kernel_name'], groupSorts('op_node_name'));
  pages += await checkView(t.v, dldb, 'iteration_op_kernels', [{}, { op_node_id: op.op_node_id }], ['op_node_id', 'kernel_name'], groupSorts('op_node_id'));
  assert.ok(pages > 500, `${pages} pages`);
});

test('a kernel or an op in a few groups, in launch order: every filter and depth as computed from the view', async () => {
  // launches in at most 64 groups are read by a search of the groups' places
  // (db/dldb_kpage.c) where a walk of all launches would read more than
  // 320 a group: the most launched kernel and op here, and a kernel in a
  // few groups (its deep pages)
  const few = (col, max = 64) =>
    sql(dldb, `SELECT ${col} AS x, count(*) AS g, sum(calls) AS n FROM view_dl_kernel_groups GROUP BY 1 HAVING g BETWEEN 2 AND ${max} ORDER BY 3 DESC, 1 LIMIT 1`)[0];
  const k7 = few('kernel_name', 8);
  const k = few('kernel_name');
  const op = few('op_node_id');
  assert.ok(k.n > 100 && op.n > 100 && k.g > 8 && k7.n > 100, JSON.stringify([k, op, k7]));
  let pages = await checkView(t.v, dldb, 'iteration_kernels', [{ kernel_name: k.x }, { kernel_name: k7.x }], ['op_node_name', 'kernel_name']);
  pages += await checkView(t.v, dldb, 'iteration_op_kernels', [{ op_node_id: op.x }], ['op_node_id', 'kernel_name']);
  // every place of the kernel's launches, page after page, both ways
  const rows = sqlAll(dldb, 'SELECT * FROM view_iteration_kernels WHERE aggr_id = 1');
  for (const desc of [false, true]) {
    const want = expected(rows, { eq: { kernel_name: k7.x }, filterCols: [], sort: 'kernel_timestamp', desc, offset: 0, limit: k7.n }).rows;
    const got = [];
    for (let offset = 0; offset < k7.n; offset += 37) {
      const q = new URLSearchParams({ kernel_name: k7.x, sort: 'kernel_timestamp', order: desc ? 'desc' : 'asc', offset, limit: 37 });
      got.push(...(await getJson(t.v, `api/v1/iteration_kernels?${q}`)).rows);
    }
    assert.deepEqual(got, want, `the launches of ${k7.x}${desc ? ' desc' : ''}`);
  }
  assert.ok(pages > 50, `${pages} pages`);
});

test('sorted by a column of the kernel groups, page after page: each row of the view once', async () => {
  // the keys alone would not see a row given twice and another never: the
  // pages together must be the view's rows, each once
  const canon = (r) => JSON.stringify(Object.keys(r).sort().map((c) => [c, r[c]]));
  for (const [view, opCol] of [['iteration_kernels', 'op_node_name'], ['iteration_op_kernels', 'op_node_id']]) {
    const want = sqlAll(dldb, `SELECT * FROM view_${view} WHERE aggr_id = 1`).map(canon).sort();
    for (const [sort, desc] of groupSorts(opCol)) {
      const got = [];
      for (let offset = 0; offset < want.length; offset += 700) {
        const q = new URLSearchParams({ sort, order: desc ? 'desc' : 'asc', offset, limit: 700 });
        got.push(...(await getJson(t.v, `api/v1/${view}?${q}`)).rows.map(canon));
      }
      assert.deepEqual(got.sort(), want, `${view} by ${sort}${desc ? ' desc' : ''}`);
    }
  }
});

test('the dldb has the views the viewer reads these lists through', () => {
  const views = sql(
    dldb,
    "SELECT name FROM sqlite_master WHERE type IN ('view', 'index', 'table') AND (name IN ('view_dl_kernel_times', 'view_dl_kernel_calls', 'aggr_kernels_by_time', 'view_dl_kernel_durations', 'aggr_dl_kernel_dur_chunks', 'view_dl_kernel_dur_chunks', 'view_dl_kernel_launch_rows', 'view_dl_kernel_launch_times') OR name LIKE '%kernel_group%' OR name LIKE '%kernel_%seq%' OR name LIKE '%kernel_marks') AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  assert.deepEqual(
    views.map((r) => r.name),
    [
      'aggr_dl_kernel_dseq_chunks', 'aggr_dl_kernel_dur_chunks', 'aggr_dl_kernel_groups', 'aggr_dl_kernel_marks', 'aggr_dl_kernel_seq_chunks', 'aggr_kernels_by_time',
      'view_dl_kernel_calls', 'view_dl_kernel_dseq_chunks', 'view_dl_kernel_dur_chunks', 'view_dl_kernel_durations', 'view_dl_kernel_group_drows', 'view_dl_kernel_group_durs',
      'view_dl_kernel_group_rows', 'view_dl_kernel_group_times', 'view_dl_kernel_groups', 'view_dl_kernel_launch_rows', 'view_dl_kernel_launch_times', 'view_dl_kernel_marks',
      'view_dl_kernel_seq_chunks', 'view_dl_kernel_times',
    ],
  );
  // every launch once in the groups, at places 0..calls-1 of its group, and a
  // mark at every 1024th launch time of the launch order
  const groups = sql(
    dldb,
    'SELECT (SELECT count(*) FROM view_dl_kernel_group_rows) AS n, (SELECT count(*) FROM view_iteration_kernels) AS launches, ' +
      '(SELECT sum(calls) FROM view_dl_kernel_groups) AS calls, ' +
      '(SELECT count(*) FROM view_dl_kernel_groups g LEFT JOIN (SELECT aggr_id, group_id, max(group_seq) + 1 AS m FROM view_dl_kernel_group_rows GROUP BY 1, 2) r ' +
      'USING (aggr_id, group_id) WHERE r.m IS NOT g.calls) AS bad, ' +
      '(SELECT count(*) FROM view_dl_kernel_marks) AS marks',
  )[0];
  assert.equal(groups.n, groups.launches);
  assert.equal(groups.calls, groups.launches);
  assert.equal(groups.bad, 0);
  assert.equal(groups.marks, Math.ceil(groups.launches / 1024));
  // each group's launches by duration: every launch once, at places
  // 0..calls-1 of its group, durations rising with the place, each the
  // launch's own (its row in launch order)
  const durs = sql(
    dldb,
    // (the views over the chunks have no index: each is read once into a table)
    'WITH d AS MATERIALIZED (SELECT aggr_id, group_id, group_dseq, kernel_duration FROM view_dl_kernel_group_durs), ' +
      'r AS MATERIALIZED (SELECT aggr_id, group_id, group_dseq, kernel_duration FROM view_dl_kernel_group_drows) ' +
      'SELECT (SELECT count(*) FROM r) AS n, ' +
      '(SELECT count(*) FROM view_dl_kernel_groups g LEFT JOIN (SELECT aggr_id, group_id, max(group_dseq) + 1 AS m FROM d GROUP BY 1, 2) x ' +
      'USING (aggr_id, group_id) WHERE x.m IS NOT g.calls) AS bad, ' +
      '(SELECT count(*) FROM d a JOIN d b ON b.aggr_id = a.aggr_id AND b.group_id = a.group_id ' +
      'AND b.group_dseq = a.group_dseq + 1 WHERE b.kernel_duration < a.kernel_duration) AS falls, ' +
      '(SELECT count(*) FROM r JOIN d USING (aggr_id, group_id, group_dseq) WHERE d.kernel_duration <> r.kernel_duration) AS wrong, ' +
      '(SELECT count(*) FROM (SELECT DISTINCT d.aggr_id, d.group_id, j.value ->> 1 FROM view_dl_kernel_dseq_chunks d, json_each(d.launches) j)) AS distinct_launches',
  )[0];
  assert.deepEqual(durs, { n: groups.launches, bad: 0, falls: 0, wrong: 0, distinct_launches: groups.launches });
  const times = sqlAll(dldb, 'SELECT kernel_timestamp FROM view_dl_kernel_times WHERE aggr_id = 1 ORDER BY kernel_timestamp').map((r) => r.kernel_timestamp);
  for (const m of sqlAll(dldb, 'SELECT place, kernel_timestamp FROM view_dl_kernel_marks WHERE aggr_id = 1')) assert.equal(m.kernel_timestamp, times[m.place], `mark ${m.place}`);
  // one key row per launch of the aggregation, with its duration and launch time
  const missing = sql(
    dldb,
    'SELECT (SELECT count(*) FROM view_iteration_kernels) - (SELECT count(*) FROM view_dl_kernel_durations) AS d, ' +
      '(SELECT count(*) FROM view_iteration_kernels v WHERE NOT EXISTS (SELECT 1 FROM view_dl_kernel_durations k WHERE k.aggr_id = v.aggr_id ' +
      'AND k.kernel_timestamp = v.kernel_timestamp AND k.kernel_duration = v.kernel_duration)) AS m',
  )[0];
  assert.deepEqual(missing, { d: 0, m: 0 });
});

test('an aggregation without rows in the duration table: read the plain way', async () => {
  // a dldb whose aggregation was written by a dlprof that does not fill the
  // table (a newer file aggregated again by an older one)
  const bare = join(out, 'no_durs.sqlite');
  copyFileSync(dldb, bare);
  execFileSync('sqlite3', [bare, 'DELETE FROM aggr_dl_kernel_dur_chunks']);
  const b = await startViewer(bare, ['--cache-mb', '0']);
  try {
    const rows = sqlAll(bare, 'SELECT * FROM view_iteration_kernels WHERE aggr_id = 1');
    for (const [desc, offset] of [[true, 0], [false, 1001], [true, rows.length - 7]]) {
      const want = expected(rows, { sort: 'kernel_duration', desc, offset, limit: 50, filterCols: [] });
      const q = new URLSearchParams({ sort: 'kernel_duration', order: desc ? 'desc' : 'asc', offset, limit: 50 });
      const got = await getJson(b, `api/v1/iteration_kernels?${q}`);
      const key = (r) => `${r.kernel_duration}\u0001${r.device_id}\u0001${r.kernel_name}`;
      assert.equal(got.rows.length, want.rows.length, q.toString());
      assert.deepEqual(got.rows.map(key), want.rows.map(key), q.toString());
    }
  } finally {
    assert.equal((await b.stop()).code, 0);
  }
});

test('a stored chunk of the launches by duration that is no list: its pages answer an error', async () => {
  const bad = join(out, 'bad_durs.sqlite');
  copyFileSync(dldb, bad);
  execFileSync('sqlite3', [bad, "UPDATE aggr_dl_kernel_dur_chunks SET launches = '[[1,2],[3]]' WHERE aggr_id = 1 AND chunk = 3"]);
  const b = await startViewer(bad, ['--cache-mb', '0']);
  try {
    // the search of the places reads chunk 3 for a page in it
    const res = await fetch(`${b.url}api/v1/iteration_kernels?sort=kernel_duration&order=asc&offset=400&limit=5`);
    const body = await res.json();
    assert.equal(res.status, 500);
    assert.equal(body.error.code, 'db_error');
    assert.match(body.error.message, /bad_durs\.sqlite: bad row of view_dl_kernel_dur_chunks \(chunk 3\)/);
    // launch order does not read the chunks
    assert.equal((await getJson(b, 'api/v1/iteration_kernels?limit=5')).rows.length, 5);
  } finally {
    assert.equal((await b.stop()).code, 0);
  }
});

test('a stored chunk of a group\'s launches that is no list: its pages answer an error', async () => {
  const bad = join(out, 'bad_seq.sqlite');
  copyFileSync(dldb, bad);
  // the largest group's chunk 1 (its places 128..255)
  const g = sql(dldb, 'SELECT group_id, calls FROM view_dl_kernel_groups WHERE aggr_id = 1 ORDER BY calls DESC, group_id LIMIT 1')[0];
  assert.ok(g.calls > 256, JSON.stringify(g));
  execFileSync('sqlite3', [bad, `UPDATE aggr_dl_kernel_seq_chunks SET launches = '[[1,2],[3]]' WHERE aggr_id = 1 AND group_id = ${g.group_id} AND chunk = 1`]);
  const b = await startViewer(bad, ['--cache-mb', '0']);
  try {
    // the page of the groups in kernel_name order that holds the group's place 130
    const groups = sqlAll(dldb, 'SELECT group_id, calls FROM view_dl_kernel_groups WHERE aggr_id = 1 ORDER BY kernel_name, device_id, group_id');
    let offset = 0;
    for (const r of groups) {
      if (r.group_id === g.group_id) break;
      offset += r.calls;
    }
    const q = new URLSearchParams({ sort: 'kernel_name', order: 'asc', offset: offset + 130, limit: 5 });
    const res = await fetch(`${b.url}api/v1/iteration_kernels?${q}`);
    const body = await res.json();
    assert.equal(res.status, 500, JSON.stringify(body));
    assert.equal(body.error.code, 'db_error');
    assert.match(body.error.message, new RegExp(`bad_seq\\.sqlite: view_dl_kernel_seq_chunks: group ${g.group_id} lacks chunk 1 or it is bad`));
    // the group's first chunk reads as before
    const first = new URLSearchParams({ sort: 'kernel_name', order: 'asc', offset: offset + 3, limit: 5 });
    assert.equal((await getJson(b, `api/v1/iteration_kernels?${first}`)).rows.length, 5);
  } finally {
    assert.equal((await b.stop()).code, 0);
  }
});

test('a kernel or an op in a few groups by duration, page after page: each row of the view once, in order', async () => {
  // the pages of a kernel's or an op's launches sorted by duration are
  // merged from its groups' duration orders (view_dl_kernel_dseq_chunks):
  // together they must be its rows, each once, their keys in the plain
  // query's order (a page off by one row gives a row twice and loses one)
  const canon = (r) => JSON.stringify(Object.keys(r).sort().map((c) => [c, r[c]]));
  const few = (col) =>
    sql(dldb, `SELECT ${col} AS x, count(*) AS g, sum(calls) AS n FROM view_dl_kernel_groups GROUP BY 1 HAVING g BETWEEN 2 AND 64 ORDER BY 3 DESC, 1 LIMIT 1`)[0];
  const k = few('kernel_name');
  const op = few('op_node_id');
  assert.ok(k.n > 100 && op.n > 100, JSON.stringify([k, op]));
  // (a whole aggregation filtered by name, read the same way, is checked
  // at a few depths by the first test)
  for (const [view, eq, filterCols, filters] of [
    ['iteration_kernels', { kernel_name: k.x }, ['op_node_name', 'kernel_name'], ['', 'GEMM']],
    ['iteration_op_kernels', { op_node_id: op.x }, ['op_node_id', 'kernel_name'], ['']],
  ]) {
    const rows = sqlAll(dldb, `SELECT * FROM view_${view} WHERE aggr_id = 1`);
    for (const filter of filters) {
      for (const desc of [false, true]) {
        const want = expected(rows, { eq, filter, filterCols, sort: 'kernel_duration', desc, offset: 0, limit: rows.length }).rows;
        const got = [];
        for (let offset = 0; offset < want.length; offset += 101) {
          const q = new URLSearchParams({ ...eq, sort: 'kernel_duration', order: desc ? 'desc' : 'asc', offset, limit: 101, ...(filter ? { filter } : {}) });
          got.push(...(await getJson(t.v, `api/v1/${view}?${q}`)).rows);
        }
        const what = `${view} ${JSON.stringify(eq)} ${filter} by duration${desc ? ' desc' : ''}`;
        const key = (r) => `${r.kernel_duration}\u0001${r.device_id}\u0001${r.kernel_name}`;
        assert.deepEqual(got.map(key), want.map(key), what);
        assert.deepEqual(got.map(canon).sort(), want.map(canon).sort(), what);
      }
    }
  }
});

test('an aggregation without rows in the groups\' duration table: read the plain way', async () => {
  const bare = join(out, 'no_dseq.sqlite');
  copyFileSync(dldb, bare);
  execFileSync('sqlite3', [bare, 'DELETE FROM aggr_dl_kernel_dseq_chunks']);
  const b = await startViewer(bare, ['--cache-mb', '0']);
  try {
    const k = sql(bare, 'SELECT kernel_name AS x FROM view_dl_kernel_groups GROUP BY 1 ORDER BY sum(calls) DESC, 1 LIMIT 1')[0];
    const rows = sqlAll(bare, 'SELECT * FROM view_iteration_kernels WHERE aggr_id = 1');
    for (const [desc, offset] of [[true, 0], [false, 101], [true, 1001]]) {
      const want = expected(rows, { eq: { kernel_name: k.x }, sort: 'kernel_duration', desc, offset, limit: 50, filterCols: [] });
      const q = new URLSearchParams({ kernel_name: k.x, sort: 'kernel_duration', order: desc ? 'desc' : 'asc', offset, limit: 50 });
      const got = await getJson(b, `api/v1/iteration_kernels?${q}`);
      const key = (r) => `${r.kernel_duration}\u0001${r.device_id}\u0001${r.kernel_name}`;
      assert.equal(got.filtered, want.filtered, q.toString());
      assert.deepEqual(got.rows.map(key), want.rows.map(key), q.toString());
    }
  } finally {
    assert.equal((await b.stop()).code, 0);
  }
});

test("NVIDIA's dldb (without those views): the same lists, read the plain way", async () => {
  const pages = await checkView(t.nv, noRelu, 'iteration_kernels', [{}], ['op_node_name', 'kernel_name']);
  assert.ok(pages > 20);
});
