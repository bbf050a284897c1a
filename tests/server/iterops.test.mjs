// iterops.test.mjs - iteration_ops paged, sorted and filtered by
// dlprofviewer equals the same list computed here from the view's rows
// (every row of the aggregation read once with the sqlite3 CLI, then
// filtered, ordered and cut in JavaScript). Over a whole aggregation the
// viewer reads it through view_dl_iteration_op_calls (counts; pages sorted
// by a column of the op, value by value), view_dl_iteration_op_keys (pages
// sorted by a column of the row, value by value, and the place of their
// offset) and the indexes aggr_iter_ops_by_* (db/schema.sql);
// for one iteration, and on NVIDIA's no_relu (none of them), the plain way.
// The dldb is made by dlprof from HTA's control trace (../shared: 6
// iterations, 72 ops, 432 rows, many equal kernel counts). Also group_ops,
// flat and as a tree (top=1, parent=NAME), on a dldb with groups (w_Relu's
// Nsight Systems export), which the viewer reads through
// view_dl_group_op_orders (each order's rows, stored) and
// view_dl_group_op_tree (each row's parent), against the rows and parents
// computed here, and without them.
// Run: node tests/server/iterops.test.mjs (DLPROF, DLPROFVIEWER,
// DL_SHARED_DIR, DL_TEST_WORK); exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, noRelu, onChangedCopy, shared, sql, sqliteCmp, startViewer, viewersOnTrace, work } from './viewer.mjs';

const trace = join(shared, 'traces/kineto/hta/trace_diff_control_control.json.gz');
// t.v: the viewer on t.dldb; t.nv: the viewer on NVIDIA's no_relu
const t = viewersOnTrace('iterops', trace, { before, after });
const { dldb } = t;
const out = join(work, 'iterops');
const dlprof = process.env.DLPROF;

const cmp = sqliteCmp;
const filterCols = ['op_node_name', 'op_node_type', 'op_node_id'];

/** The page the viewer must answer, from rows (every row of the aggregation). */
function expected(rows, { eq = {}, filter = '', sort, desc, offset, limit }) {
  const f = filter.toLowerCase();
  const scoped = rows.filter((r) => Object.entries(eq).every(([c, x]) => String(r[c]) === String(x)));
  const sel = scoped.filter((r) => !f || filterCols.some((c) => String(r[c]).toLowerCase().includes(f)));
  sel.sort((a, b) => (desc ? -1 : 1) * cmp(a[sort], b[sort]) || cmp(a.iter_value, b.iter_value) || cmp(a.op_node_id, b.op_node_id));
  return { total: scoped.length, filtered: sel.length, rows: sel.slice(offset, offset + limit) };
}

/** Checks every order, filter and depth of iteration_ops in each scope; the pages checked. */
async function checkAll(server, db, scopes, limits) {
  const rows = sql(db, 'SELECT * FROM view_iteration_ops WHERE aggr_id = 1');
  assert.ok(rows.length > 0);
  const sorts = Object.keys(rows[0]).filter((c) => c !== 'aggr_id' && c !== 'domain_name');
  let pages = 0;
  for (const eq of scopes) {
    for (const sort of sorts) {
      for (const desc of [true, false]) {
        for (const filter of ['', 'relu', 'xyzzy']) {
          const n = expected(rows, { eq, filter, sort, desc, offset: 0, limit: 0 }).filtered;
          for (const offset of new Set([0, 5, 299, 300, Math.max(0, n - 7), n + 5])) {
            for (const limit of limits) {
              const want = expected(rows, { eq, filter, sort, desc, offset, limit });
              const q = new URLSearchParams({ ...eq, sort, order: desc ? 'desc' : 'asc', offset, limit, ...(filter ? { filter } : {}) });
              const got = await getJson(server, `api/v1/iteration_ops?${q}`);
              const what = `iteration_ops?${q}`;
              assert.equal(got.total, want.total, `total of ${what}`);
              assert.equal(got.filtered, want.filtered, `filtered of ${what}`);
              // (iteration, op) is unique: the order is total
              assert.deepEqual(got.rows, want.rows, what);
              pages++;
            }
          }
        }
      }
    }
  }
  return pages;
}

test('the dldb has the ops\' row counts, the keys view and the order indexes', () => {
  const names = sql(
    dldb,
    "SELECT name FROM sqlite_master WHERE name IN ('view_dl_iteration_op_calls', 'view_dl_iteration_op_keys', 'aggr_dl_op_iters') OR name LIKE 'aggr_iter_ops_by_%' ORDER BY name",
  ).map((r) => r.name);
  assert.deepEqual(names, [
    'aggr_dl_op_iters',
    'aggr_iter_ops_by_count', 'aggr_iter_ops_by_tc_count', 'aggr_iter_ops_by_tc_time', 'aggr_iter_ops_by_time',
    'view_dl_iteration_op_calls', 'view_dl_iteration_op_keys',
  ]);
  // each op's count is its rows of view_iteration_ops, and every op with rows has one
  const wrong = sql(
    dldb,
    'SELECT (SELECT count(*) FROM (SELECT op_node_id, count(*) AS n FROM view_iteration_ops GROUP BY 1) r ' +
      'LEFT JOIN view_dl_iteration_op_calls c ON c.aggr_id = 1 AND c.op_node_id = r.op_node_id WHERE c.calls IS NOT r.n) AS w, ' +
      '(SELECT count(*) FROM view_dl_iteration_op_calls) AS ops, (SELECT count(DISTINCT op_node_id) FROM view_iteration_ops) AS want',
  )[0];
  assert.equal(wrong.w, 0);
  assert.equal(wrong.ops, wrong.want);
});

test('iteration_ops: every order, filter and depth as computed from the view', async () => {
  const it = sql(dldb, 'SELECT iter_value FROM view_iteration_ops GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET 2')[0];
  const pages = await checkAll(t.v, dldb, [{}, { iter_value: it.iter_value }], [100, 7]);
  assert.ok(pages > 500, `${pages} pages`);
});

test("NVIDIA's dldb (without those views): the same list, read the plain way", async () => {
  const pages = await checkAll(t.nv, noRelu, [{}], [100]);
  assert.ok(pages > 50, `${pages} pages`);
});

test('an aggregation without rows in the ops\' counts (an older writer\'s): read the plain way', async () => {
  await onChangedCopy(dldb, join(out, 'no_counts.sqlite'), 'DELETE FROM aggr_dl_op_iters', async (s, copy) => {
    const pages = await checkAll(s, copy, [{}], [100]);
    assert.ok(pages > 100, `${pages} pages`);
  });
});

test("the marks of each row column's order: the value and iteration at every 64th place, and the rows before it with both", () => {
  const cols = ['iter_value', 'total_count', 'tc_count', 'total_gpu_time', 'tc_gpu_time'];
  const rows = sql(dldb, 'SELECT * FROM aggr_iter_ops WHERE aggr_id = 1');
  const marks = sql(dldb, 'SELECT sort_column, place, value, iter_value, dup FROM view_dl_iteration_op_marks WHERE aggr_id = 1 ORDER BY sort_column, place');
  const want = [];
  for (const c of [...cols].sort()) {
    const order = [...rows].sort((a, b) => cmp(a[c], b[c]) || cmp(a.iter_value, b.iter_value) || cmp(a.op_idx, b.op_idx));
    for (let p = 0; p < order.length; p += 64) {
      const r = order[p];
      const dup = order.slice(0, p).filter((x) => x[c] === r[c] && x.iter_value === r.iter_value).length;
      want.push({ sort_column: c, place: p, value: r[c], iter_value: r.iter_value, dup });
    }
  }
  assert.ok(want.some((m) => m.dup > 0), 'a mark inside a run of equal values');
  assert.deepEqual(marks, want);
});

test('without the marks (an older writer\'s aggregation): the same pages, by walks from the first row', async () => {
  await onChangedCopy(dldb, join(out, 'no_marks.sqlite'), 'DELETE FROM aggr_dl_iter_op_marks', async (s, copy) => {
    const pages = await checkAll(s, copy, [{}], [100, 7]);
    assert.ok(pages > 500, `${pages} pages`);
  });
});

test('deep pages read the marks: with every mark after the first one row off, some pages differ', async () => {
  let differ = 0;
  const off = 'UPDATE aggr_dl_iter_op_marks SET dup = dup + 1 WHERE place > 0';
  await onChangedCopy(dldb, join(out, 'marks_off.sqlite'), off, async (s, copy) => {
    const rows = sql(copy, 'SELECT * FROM view_iteration_ops WHERE aggr_id = 1');
    for (const sort of ['total_gpu_time', 'tc_count', 'iter_value']) {
      for (const offset of [70, 200, 300]) {
        const want = expected(rows, { sort, desc: true, offset, limit: 7 });
        const got = await getJson(s, `api/v1/iteration_ops?sort=${sort}&order=desc&offset=${offset}&limit=7`);
        if (JSON.stringify(got.rows) !== JSON.stringify(want.rows)) differ++;
      }
    }
  });
  assert.ok(differ > 0, 'every page as computed: the marks were not read');
});

/** Pages of group_ops: the flat list and every parent's (top=1, parent=NAME), sorted by each column both ways, deep and past the end, and filtered, against the rows of db. */
async function checkTree(server, db, minGroups = 11) {
  const all = sql(db, 'SELECT * FROM view_group_ops WHERE aggr_id = 1');
  const groups = new Set(all.filter((x) => x.row_type === 1).map((x) => x.row_full_name));
  const parentOf = (n) => {
    if (n === '/') return '';
    const t = n.endsWith('/') ? n.slice(0, -1) : n;
    const p = t.slice(0, t.lastIndexOf('/') + 1);
    return groups.has(p) ? p : '';
  };
  const f = 'relu';
  const match = (x) => [x.row_full_name, x.row_full_id].some((c) => String(c).toLowerCase().includes(f));
  const below = (x) => x.row_type === 1 && all.some((y) => y.row_full_name.length > x.row_full_name.length && y.row_full_name.startsWith(x.row_full_name) && match(y));
  const sorts = Object.keys(all[0]).filter((c) => c !== 'aggr_id' && c !== 'domain_name');
  let pages = 0;
  for (const p of [null, '', ...groups]) {
    const scope = p === null ? {} : p === '' ? { top: 1 } : { parent: p };
    const rows = all.filter((x) => p === null || parentOf(x.row_full_name) === p);
    const deep = p === null || p === '';
    for (const sort of sorts) {
      for (const desc of [false, true]) {
        const filters = sort === 'row_full_name' || sort === 'gpu_time_sum' ? ['', f] : [''];
        for (const filter of filters) {
          const sel = rows.filter((x) => !filter || match(x) || (p !== null && below(x)));
          sel.sort((a, b) => (desc ? -1 : 1) * cmp(a[sort], b[sort]) || cmp(a.row_full_id, b.row_full_id));
          const n = sel.length;
          // [125, 7] spans the first boundary of the stored orders' chunks (128 places a row)
          const cuts = deep ? [[0, 1000], [3, 5], [125, 7], [Math.max(0, n - 2), 5], [n + 1, 5]] : [[0, 1000], [1, 2]];
          for (const [offset, limit] of cuts) {
            const q = new URLSearchParams({ ...scope, sort, order: desc ? 'desc' : 'asc', offset, limit, ...(filter ? { filter } : {}) });
            const got = await getJson(server, `api/v1/group_ops?${q}`);
            assert.equal(got.total, rows.length, `total of ${q}`);
            assert.equal(got.filtered, n, `filtered of ${q}`);
            assert.deepEqual(got.rows, sel.slice(offset, offset + limit), `group_ops?${q}`);
            pages++;
          }
        }
      }
    }
  }
  assert.ok(groups.size >= minGroups, `${groups.size} groups`);
  return pages;
}

test('group_ops on our dldb: read through the stored places and parents, and without them', async () => {
  const nsys = join(shared, 'traces/dlprof/w_Relu/nsys_profile.sqlite');
  const dir = join(out, 'w_relu');
  mkdirSync(dir, { recursive: true });
  execFileSync(dlprof, [`--database=${nsys}`, `--output_path=${dir}`, '-v', 'quiet']);
  const db = join(dir, 'dlprof_dldb.sqlite');
  const n = sql(db, "SELECT (SELECT count(*) FROM view_dl_group_op_tree) AS t, (SELECT count(*) FROM view_group_ops) AS g, (SELECT count(*) FROM view_dl_group_op_places) AS p")[0];
  assert.ok(n.t > 0 && n.t === n.g, `${n.t} rows with their parent, ${n.g} rows`);
  assert.equal(n.p, n.g * 12 * 2 * 2, 'a place per row, column, direction and scope');
  // an older writer's aggregation: no places; no places and no parents
  const copies = [['no_places', 'DELETE FROM aggr_dl_group_orders'],
    ['no_parents', 'DELETE FROM aggr_dl_group_orders; DELETE FROM aggr_dl_group_parents']].map(([name, del]) => {
    const copy = join(dir, `${name}.sqlite`);
    copyFileSync(db, copy);
    execFileSync('sqlite3', [copy, del]);
    return copy;
  });
  for (const file of [db, ...copies]) {
    const s = await startViewer(file, ['--cache-mb', '0']);
    try {
      const pages = await checkTree(s, file);
      assert.ok(pages > 500, `${pages} pages`);
    } finally {
      assert.equal((await s.stop()).code, 0);
    }
  }
});

test('group_ops on a dldb whose rows are all top rows: every order of both scopes', async () => {
  const n = sql(dldb, "SELECT (SELECT count(*) FROM view_group_ops) AS g, (SELECT count(*) FROM view_dl_group_op_places WHERE tree = 0) AS flat, (SELECT count(*) FROM view_dl_group_op_places WHERE tree = 1 AND tree_parent = '') AS top, (SELECT count(*) FROM view_dl_group_op_tree WHERE tree_parent <> '') AS below")[0];
  assert.ok(n.g > 100 && n.below === 0, `${n.g} rows, ${n.below} below a group`);
  assert.equal(n.flat, n.g * 12 * 2, 'a place per row, column and direction');
  assert.equal(n.top, n.g * 12 * 2, 'and the same among the top rows');
  const dir = join(out, 'flat');
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, 'no_places.sqlite');
  copyFileSync(dldb, copy);
  execFileSync('sqlite3', [copy, 'DELETE FROM aggr_dl_group_orders']);
  for (const file of [dldb, copy]) {
    const s = await startViewer(file, ['--cache-mb', '0']);
    try {
      const pages = await checkTree(s, file, 0);
      assert.ok(pages > 200, `${pages} pages`);
    } finally {
      assert.equal((await s.stop()).code, 0);
    }
  }
});

test('group_ops with a stored order whose chunk is no list: that order answers an error, the rest as before', async () => {
  const dir = join(out, 'bad_order');
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, 'bad_order.sqlite');
  copyFileSync(dldb, copy);
  execFileSync('sqlite3', [copy, "UPDATE aggr_dl_group_orders SET row_idxs = '[1,x]' WHERE sort_column = 'level' AND sort_desc = 0 AND tree = 0 AND chunk = 1"]);
  const s = await startViewer(copy, ['--cache-mb', '0']);
  try {
    const res = await fetch(`${s.url}api/v1/group_ops?sort=level&order=asc&offset=130&limit=5`);
    const body = await res.json();
    assert.equal(res.status, 500);
    assert.equal(body.error.code, 'db_error');
    assert.match(body.error.message, /bad_order\.sqlite: bad row of view_dl_group_op_orders \(level, chunk 1\)/);
    // the chunk before it, and the other orders, read as before
    const want = sql(copy, 'SELECT * FROM view_group_ops WHERE aggr_id = 1');
    want.sort((a, b) => sqliteCmp(a.level, b.level) || sqliteCmp(a.row_full_id, b.row_full_id));
    const first = await getJson(s, 'api/v1/group_ops?sort=level&order=asc&offset=0&limit=5');
    assert.deepEqual(first.rows, want.slice(0, 5));
    const desc = await getJson(s, 'api/v1/group_ops?sort=level&order=desc&offset=130&limit=5');
    assert.equal(desc.rows.length, 5);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
});
