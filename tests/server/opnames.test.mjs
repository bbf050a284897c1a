// opnames.test.mjs - op_nodes filtered by name through the ops' name index
// (db/schema.sql aggr_dl_op_names, view_dl_op_names: a trigram index of
// op_node_name, op_node_type and op_node_id) equals the same list computed
// here from the view's rows (read once with the sqlite3 CLI, then filtered
// on each filter column as the viewer's plain match does: ASCII case
// folded, then a substring; ordered and cut in JavaScript). The viewer reads
// the index for a filter of three ASCII characters or more, the plain way
// otherwise: on a copy whose index lacks an op a long filter misses it and a
// short one finds it; on a copy where an op's name has the Kelvin sign
// (which the index folds to "k", the plain match does not) the index's
// extra find is matched away. Without the index view (an older dldb) and on
// NVIDIA's no_relu the lists are the plain ones. The dldb is made by dlprof
// from HTA's control trace (../shared: 458 ops).
// Run: node tests/server/opnames.test.mjs (DLPROF, DLPROFVIEWER,
// DL_SHARED_DIR, DL_TEST_WORK); exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, noRelu, onChangedCopy, shared, sql, sqliteCmp as cmp, viewersOnTrace, work } from './viewer.mjs';

const trace = join(shared, 'traces/kineto/hta/trace_diff_control_control.json.gz');
const t = viewersOnTrace('opnames', trace, { before, after });
const out = join(work, 'opnames');
const filterCols = ['op_node_name', 'op_node_type', 'op_node_id'];
// long and short, upper case, none, punctuation and FTS5's syntax, digits,
// a quote, non-ASCII (the plain way)
const filters = ['relu', 'RELU', 'ReLu_', 'xyzzy', 're', 'u', 'aten::', '_1', 'linear_2', 'a"b', 'nccl*', 'to OR x', 'é', 'elvin'];

/** SQLite's lower() of ASCII letters only, as the viewer matches. */
const lowerAscii = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function expected(rows, { filter, sort, desc, offset, limit }) {
  const f = lowerAscii(filter);
  const sel = rows.filter((r) => !f || filterCols.some((c) => r[c] !== null && lowerAscii(String(r[c])).includes(f)));
  sel.sort((a, b) => (desc ? -1 : 1) * cmp(a[sort], b[sort]) || cmp(a.op_node_id, b.op_node_id));
  return { total: rows.length, filtered: sel.length, rows: sel.slice(offset, offset + limit) };
}

/** Every filter of `filters` (and more), sorted by a few columns, at a few depths; the pages checked. */
async function checkAll(server, db, more = []) {
  const rows = sql(db, 'SELECT * FROM view_op_nodes WHERE aggr_id = 1');
  assert.ok(rows.length > 0);
  let pages = 0;
  for (const filter of [...filters, ...more]) {
    for (const sort of ['gpu_time', 'op_node_name', 'num_calls']) {
      for (const desc of [true, false]) {
        const n = expected(rows, { filter, sort, desc, offset: 0, limit: 0 }).filtered;
        for (const [offset, limit] of [[0, 100], [0, 3], [Math.max(0, n - 2), 5], [n + 1, 5]]) {
          const q = new URLSearchParams({ aggr_id: 1, sort, order: desc ? 'desc' : 'asc', offset, limit, filter });
          const want = expected(rows, { filter, sort, desc, offset, limit });
          const got = await getJson(server, `api/v1/op_nodes?${q}`);
          assert.equal(got.total, want.total, `total of op_nodes?${q}`);
          assert.equal(got.filtered, want.filtered, `filtered of op_nodes?${q}`);
          assert.deepEqual(got.rows, want.rows, `op_nodes?${q}`);
          pages++;
        }
      }
    }
  }
  return pages;
}

/** A copy of the dldb, changed by statements, served while fn runs. */
async function onCopy(name, statements, fn) {
  mkdirSync(out, { recursive: true });
  await onChangedCopy(t.dldb, join(out, name), statements, fn);
}

/** SQL that takes op `id` (of aggregation 1) out of the index: FTS5's delete of a contentless row. */
const unindex = (id) =>
  "INSERT INTO aggr_dl_op_names(aggr_dl_op_names, rowid, op_node_name, op_node_type, op_node_id) " +
  `SELECT 'delete', (aggr_id << 32) + op_idx, op_node_name, op_node_type, op_node_id FROM aggr_ops WHERE aggr_id = 1 AND op_node_id = '${id}';`;

test("the dldb has the index: view_op_nodes' rows and columns with names, each op found by its texts", () => {
  const order = 'ORDER BY aggr_id, op_node_id';
  const ops = sql(t.dldb, `SELECT * FROM view_op_nodes ${order}`);
  const idx = sql(t.dldb, `SELECT * FROM view_dl_op_names ${order}`);
  assert.ok(ops.length > 400, `${ops.length} ops`);
  assert.deepEqual(Object.keys(idx[0]), [...Object.keys(ops[0]), 'names']);
  assert.deepEqual(idx.map(({ names, ...r }) => r), ops);
  const found = sql(t.dldb, `SELECT op_node_id FROM view_dl_op_names WHERE names MATCH '"relu_2"' AND aggr_id = 1`);
  assert.deepEqual(found, [{ op_node_id: 'RELU_2' }]);
});

test('op_nodes on our dldb: every filter as computed from the view', async () => {
  const pages = await checkAll(t.v, t.dldb);
  assert.ok(pages >= filters.length * 24, `${pages} pages`);
});

test('a filter of three ASCII characters or more reads the index; a shorter one does not', async () => {
  await onCopy('unindexed.sqlite', unindex('RELU_2'), async (s) => {
    const ids = async (filter) => (await getJson(s, `api/v1/op_nodes?aggr_id=1&limit=1000&filter=${encodeURIComponent(filter)}`)).rows.map((r) => r.op_node_id).sort();
    assert.deepEqual(await ids('relu'), ['RELU_1']);
    assert.deepEqual(await ids('LU_2'), []);
    assert.ok((await ids('lu')).includes('RELU_2'));
    assert.deepEqual(await ids('relu_é'), []);
  });
});

test("an op the index finds but the viewer's match does not (the Kelvin sign) is not listed", async () => {
  const kelvin = 'aten::\u212Aelvin';
  const stmts =
    unindex('RELU_1') +
    `UPDATE aggr_ops SET op_node_name = '${kelvin}' WHERE aggr_id = 1 AND op_node_id = 'RELU_1';` +
    "INSERT INTO aggr_dl_op_names(rowid, op_node_name, op_node_type, op_node_id) " +
    "SELECT (aggr_id << 32) + op_idx, op_node_name, op_node_type, op_node_id FROM aggr_ops WHERE aggr_id = 1 AND op_node_id = 'RELU_1';";
  await onCopy('kelvin.sqlite', stmts, async (s, copy) => {
    assert.deepEqual(sql(copy, `SELECT op_node_id FROM view_dl_op_names WHERE names MATCH '"kelvin"'`), [{ op_node_id: 'RELU_1' }]);
    const pages = await checkAll(s, copy, ['kelvin', '\u212Aelvin']);
    assert.ok(pages > 0);
    assert.equal((await getJson(s, 'api/v1/op_nodes?aggr_id=1&filter=kelvin')).filtered, 0);
    assert.equal((await getJson(s, 'api/v1/op_nodes?aggr_id=1&filter=elvin')).filtered, 1);
  });
});

test('without the index view (an older dldb): the same lists, read the plain way', async () => {
  await onCopy('no_index.sqlite', 'DROP VIEW view_dl_op_names', async (s, copy) => {
    const pages = await checkAll(s, copy);
    assert.ok(pages >= filters.length * 24, `${pages} pages`);
  });
});

test("NVIDIA's dldb: the same lists, read the plain way", async () => {
  const pages = await checkAll(t.nv, noRelu);
  assert.ok(pages >= filters.length * 24, `${pages} pages`);
});
