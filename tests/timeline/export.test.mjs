// export.test.mjs - dlprof --export=chrome_trace: the timeline as Chrome
// trace JSON. On an Nsight Systems export and a PyTorch trace, the file
// loads with Python's json as the Trace Event Format (check_chrome.py) with
// as many kernels as the dldb's kernels table; with --iter_start and
// --iter_stop, as many as the kernels that overlap those iterations; a file
// already there is refused without --force, and a bad value is an error.
// Run: node tests/timeline/export.test.mjs; exits 77 without ../shared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireFile, shared, sql, work } from '../server/viewer.mjs';

const dlprof = process.env.DLPROF;
const here = dirname(fileURLToPath(import.meta.url));
const traces = join(shared, 'traces');
const inputs = ['nsys/nsys2024.5_a100x4_cloverleaf.sqlite', 'kineto/hta/trace_diff_control_control.json.gz'];
for (const f of inputs) requireFile(join(traces, f));

const check = (path) =>
  JSON.parse(execFileSync('python3', [join(here, 'check_chrome.py'), path], { encoding: 'utf8' }));

function run(out, input, extra = []) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  execFileSync(dlprof, [`--database=${input}`, `--output_path=${out}`, '--export=chrome_trace',
    '--force=true', ...extra], { stdio: 'ignore' });
  return { trace: join(out, 'dlprof_trace.json'), db: join(out, 'dlprof_dldb.sqlite') };
}

test('the whole profile: valid Chrome trace JSON, every kernel of the dldb', () => {
  for (const [i, f] of inputs.entries()) {
    const { trace, db } = run(join(work, 'export', `whole${i}`), join(traces, f));
    const got = check(trace);
    const want = sql(db, 'SELECT COUNT(*) AS n FROM kernels')[0].n;
    assert.ok(want > 0, f);
    assert.equal(got.kernels, want, `${f}: kernels`);
  }
});

test('--iter_start/--iter_stop: the kernels that overlap those iterations', () => {
  const f = inputs[1];
  const { trace, db } = run(join(work, 'export', 'iters'), join(traces, f), ['--iter_start=1', '--iter_stop=2']);
  const got = check(trace);
  const [w] = sql(db, `SELECT MIN(start_time) AS s, MAX(stop_time) AS e FROM aggr_iterations
    WHERE aggr_id = (SELECT MAX(aggr_id) FROM aggregations) AND iter_value IN (1, 2)`);
  const want = sql(db, `SELECT COUNT(*) AS n FROM kernels WHERE gpu_start_ns < ${w.e}
    AND (gpu_end_ns > ${w.s} OR (gpu_end_ns = gpu_start_ns AND gpu_start_ns >= ${w.s}))`)[0].n;
  const all = sql(db, 'SELECT COUNT(*) AS n FROM kernels')[0].n;
  assert.ok(want > 0 && want < all, `${want} of ${all}`);
  assert.equal(got.kernels, want);
});

test('an existing trace is refused without --force; a bad value is an error', () => {
  const out = join(work, 'export', 'twice');
  run(out, join(traces, inputs[0]));
  for (const f of ['dlprof_dldb.sqlite', 'dlprof_summary.csv']) rmSync(join(out, f), { force: true });
  const again = spawnSync(dlprof, [`--database=${join(traces, inputs[0])}`, `--output_path=${out}`,
    '--export=chrome_trace', '--force=false'], { encoding: 'utf8' });
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /trace\.json: exists/);
  const bad = spawnSync(dlprof, [`--database=${join(traces, inputs[0])}`, `--output_path=${out}`,
    '--export=perfetto'], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--export: expected chrome_trace/);
  assert.ok(existsSync(join(out, 'dlprof_trace.json')));
});
