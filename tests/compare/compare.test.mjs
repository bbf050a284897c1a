// dlprof --compare_to on real traces from ../shared/traces: the kernels of a
// comparison against an independent count from the raw PyTorch profiler
// JSON (as HTA's TraceDiff.compare_traces counts them: per kernel name, the
// launches and the summed durations of every kernel event; every iteration
// of these traces is aggregated), NVIDIA's dldbs against their own views,
// what differs between runs, and the CI gate (exit 0, 3, 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const DLPROF = process.env.DLPROF;
const SHARED = process.env.DL_SHARED_DIR || '';
const TRACES = join(SHARED, 'traces');
if (!existsSync(TRACES)) {
  console.log(`SKIP: ${TRACES} not found (the shared traces)`);
  process.exit(77);
}
const KINETO = join(TRACES, 'kineto');
const R0_DIR = join(KINETO, 'resnet50_v100');
const R0 = join(R0_DIR, 'worker0.1623143089861.pt.trace.json.gz');
const R4 = join(KINETO, 'resnet50_num_workers_4', 'worker0.1623212756351.pt.trace.json.gz');
const HTA = join(KINETO, 'hta', 'trace_diff_control_control.json.gz');
const W_RELU = join(TRACES, 'dlprof', 'w_Relu', 'dlprof_dldb_1.sqlite');
const NO_RELU = join(TRACES, 'dlprof', 'no_relu', 'dlprof_dldb.sqlite');

function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'dlprof-compare-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
function dlprof(args) {
  return spawnSync(DLPROF, args, { encoding: 'utf8' });
}
// dlprof --compare_to=base --database=run into dir: the exit status, stdout,
// stderr and the JSON written.
function compare(dir, base, run, extra = []) {
  const r = dlprof(['--compare_to=' + base, '--database=' + run, '--output_path=' + dir,
                    '--formats=csv,json', '-v', 'minimal', ...extra]);
  const file = join(dir, 'dlprof_compare.json');
  return { ...r, json: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null };
}
function readTrace(file) {
  const raw = readFileSync(file);
  return JSON.parse((file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'));
}
// The independent count: per kernel name, launches and GPU time (ns) of
// every kernel event of the trace file or of every trace of a folder.
function kernelCounts(path) {
  const files = path.endsWith('.gz') || path.endsWith('.json') ? [path]
    : readdirSync(path).filter((f) => /\.json(\.gz)?$/.test(f)).map((f) => join(path, f));
  const m = new Map();
  for (const f of files) {
    const t = readTrace(f);
    const events = Array.isArray(t) ? t : t.traceEvents || [];
    for (const e of events) {
      if (String(e.cat || '').toLowerCase() !== 'kernel') continue;
      const c = m.get(e.name) || { calls: 0, ns: 0 };
      c.calls += 1;
      c.ns += Math.round(e.dur * 1000);
      m.set(e.name, c);
    }
  }
  return m;
}
function profilerSteps(file) {
  const t = readTrace(file);
  return (t.traceEvents || []).filter((e) => /^ProfilerStep#/.test(e.name || '')).length;
}
// The expected rows: kernels matched by name, status as dldb_compare.h defines it.
function expectedKernels(base, run) {
  const rows = new Map();
  for (const name of new Set([...base.keys(), ...run.keys()])) {
    const b = base.get(name) || { calls: 0, ns: 0 };
    const r = run.get(name) || { calls: 0, ns: 0 };
    const status = !base.has(name) ? 'added' : !run.has(name) ? 'removed'
      : b.calls === r.calls && Math.abs(r.ns - b.ns) <= b.ns / 100 ? 'same' : 'changed';
    rows.set(name, { kernel_name: name, base_calls: b.calls, calls: r.calls, base_gpu_time: b.ns,
                     gpu_time: r.ns, status });
  }
  return rows;
}
function assertKernels(json, expected) {
  const got = new Map(json.kernels.map((k) => [k.kernel_name, k]));
  assert.equal(got.size, json.kernels.length, 'one row per kernel name');
  assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort());
  for (const [name, e] of expected) assert.deepEqual(got.get(name), e, name);
  // biggest change first
  const d = json.kernels.map((k) => Math.abs(k.gpu_time - k.base_gpu_time));
  for (let i = 1; i < d.length; i++) assert.ok(d[i - 1] >= d[i], `order at row ${i}`);
}

// RFC 4180 CSV lines of the section titled `title` of dlprof_compare.csv.
function csvSection(text, title) {
  const rows = [];
  let row = [], field = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (ch === '"') q = false;
      else field += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { row.push(field); field = ''; }
    else if (ch === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else field += ch;
  }
  const start = rows.findIndex((r) => r.length === 1 && r[0] === title);
  assert.ok(start >= 0, `section ${title}`);
  const out = [];
  for (let i = start + 1; i < rows.length && !(rows[i].length === 1 && rows[i][0] === ''); i++)
    out.push(rows[i]);
  return out;
}

test('ResNet-50 folder vs 4 data-loader workers: kernels equal the traces\' own counts', () => {
  withDir((dir) => {
    const r = compare(dir, R0_DIR, R4);
    assert.equal(r.status, 0, r.stderr);
    assertKernels(r.json, expectedKernels(kernelCounts(R0_DIR), kernelCounts(R4)));
    // the CSV holds the same rows as the JSON
    const csv = csvSection(readFileSync(join(dir, 'dlprof_compare.csv'), 'utf8'), 'Kernels');
    assert.deepEqual(csv[0], ['kernel_name', 'base_calls', 'calls', 'base_gpu_time', 'gpu_time', 'status']);
    assert.deepEqual(csv.slice(1), r.json.kernels.map((k) =>
      [k.kernel_name, String(k.base_calls), String(k.calls), String(k.base_gpu_time),
       String(k.gpu_time), k.status]));
    // Different GPUs and iteration counts: compared, and said.
    const s = r.json.summary;
    assert.equal(s.iterations, profilerSteps(R4));
    assert.ok(s.base_iterations > s.iterations, `${s.base_iterations} vs ${s.iterations}`);
    assert.ok(s.notes.some((n) => n.startsWith('GPUs differ: ')), s.notes.join('\n'));
    assert.ok(s.notes.some((n) => n.startsWith('Iteration counts differ: ')), s.notes.join('\n'));
    assert.match(r.stdout, /differs:\n\s+GPUs differ/);
    // the imports' temporary folder is gone: only the two outputs are left
    assert.deepEqual(readdirSync(dir).sort(), ['dlprof_compare.csv', 'dlprof_compare.json']);
  });
});

test('the data-loader fix: kernels match, the mean iteration time drops, a verdict', () => {
  withDir((dir) => {
    const r = compare(dir, R0, R4, ['--fail_threshold=0']);
    assert.equal(r.status, 0, r.stderr);
    assertKernels(r.json, expectedKernels(kernelCounts(R0), kernelCounts(R4)));
    const s = r.json.summary;
    assert.equal(s.base_iterations, profilerSteps(R0), 'every iteration aggregated');
    assert.equal(s.iterations, profilerSteps(R4));
    assert.equal(s.base_path, R0);
    assert.equal(s.path, R4);
    assert.ok(s.iter_mean_diff_ci_high_pct < 0, `faster with 95 % confidence: ${s.iter_mean_diff_ci_high_pct}`);
    assert.ok(s.iter_mean_diff_ci_low_pct < s.iter_mean_diff_pct && s.iter_mean_diff_pct < s.iter_mean_diff_ci_high_pct);
    assert.deepEqual(s.notes, [], 'same GPU, iteration count and key op');
    // the dataloader finding of the base went away
    assert.ok(s.findings_gone.some((f) => /dataloader/.test(f)), s.findings_gone.join('\n'));
    // the iterations of both sides
    assert.equal(r.json.iterations.filter((i) => i.side === 'base').length, s.base_iterations);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^dlprof: compare: mean iteration time [\d.]+ ms -> [\d.]+ ms \(6 -> 6 iterations\): -[\d.]+ %, 95% CI -[\d.]+ % to -[\d.]+ %$/);
    assert.match(r.stdout, /PASS/);
    // ops: one row per name, type and direction, each side summed
    const keys = r.json.ops.map((o) => `${o.op_node_name}|${o.op_node_type}|${o.direction}`);
    assert.equal(new Set(keys).size, keys.length);
  });
});

test('HTA\'s control trace against itself: every kernel the same, exit 0 with a gate', () => {
  withDir((dir) => {
    const r = compare(dir, HTA, HTA, ['--fail_threshold=5']);
    assert.equal(r.status, 0, r.stderr);
    const counts = kernelCounts(HTA);
    assertKernels(r.json, expectedKernels(counts, counts));
    assert.ok(r.json.kernels.every((k) => k.status === 'same'));
    assert.ok(r.json.ops.every((o) => o.status === 'same'));
    const s = r.json.summary;
    assert.equal(s.iter_mean_diff_ns, 0);
    assert.ok(s.iter_mean_diff_ci_low_pct < 0 && s.iter_mean_diff_ci_high_pct > 0);
    assert.deepEqual([s.findings_appeared, s.findings_gone, s.notes], [[], [], []]);
  });
});

test('the gate: every timestamp and duration 20 % longer exits 3 with --fail_threshold=5', () => {
  withDir((dir) => {
    const t = readTrace(HTA);
    for (const e of t.traceEvents) {
      if (typeof e.ts === 'number') e.ts *= 1.2;
      if (typeof e.dur === 'number') e.dur *= 1.2;
    }
    const slow = join(dir, 'slow.json.gz');
    writeFileSync(slow, gzipSync(JSON.stringify(t)));
    const out = join(dir, 'out');
    execFileSync('mkdir', [out]);
    const r = compare(out, HTA, slow, ['--fail_threshold=5']);
    assert.equal(r.status, 3, r.stdout + r.stderr);
    const s = r.json.summary;
    assert.ok(Math.abs(s.iter_mean_diff_pct - 20) < 0.01, String(s.iter_mean_diff_pct));
    assert.ok(s.iter_mean_diff_ci_low_pct > 5, String(s.iter_mean_diff_ci_low_pct));
    assert.match(r.stdout, /FAIL/);
    // the same comparison without a threshold, or with one above the interval, passes
    const again = (extra) => compare(out, HTA, slow, ['--force=true', ...extra]).status;
    assert.equal(again([]), 0);
    assert.equal(again(['--fail_threshold=30']), 0);
  });
});

test('errors: exit 1 with one line naming the file', () => {
  withDir((dir) => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"traceEvents": [ {"ph": "X", "name": ');
    for (const [base, run] of [[bad, HTA], [HTA, bad], [join(dir, 'missing.sqlite'), HTA],
                               ['/etc/hostname', W_RELU]]) {
      const r = compare(dir, base, run, ['--fail_threshold=5', '-v', 'quiet']);
      assert.equal(r.status, 1, `${base} ${run}: ${r.stdout}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      const named = base === HTA ? run : base;
      assert.ok(lines[0].startsWith('dlprof: ') && lines[0].includes(named), lines[0]);
      assert.equal(r.json, null, 'no output');
      assert.deepEqual(readdirSync(dir).filter((f) => f !== 'bad.json'), [], 'nothing left');
    }
    const r = dlprof(['--database=' + HTA, '--fail_threshold=5', '--output_path=' + dir]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--fail_threshold needs --compare_to/);
    const n = dlprof(['--compare_to=' + HTA, '--output_path=' + dir]);
    assert.equal(n.status, 1);
    assert.equal(n.stderr, 'dlprof: --compare_to needs --database (the new run)\n');
    assert.equal(dlprof(['--compare_to=' + HTA, '--database=' + HTA, '--fail_threshold=-1']).status, 1);
  });
});

test('NVIDIA\'s dldbs with and without ReLU, through the views', () => {
  const sql = (db, q) => JSON.parse(execFileSync('sqlite3', ['-json', `file:${db}?mode=ro`, q],
                                                 { encoding: 'utf8' }) || '[]');
  const viewKernels = (db) => new Map(sql(db, `select kernel_name k, sum(calls) c, sum(gpu_time) t
      from view_kernel_summaries where aggr_id = (select max(aggr_id) from view_aggregations)
      group by kernel_name`).map((x) => [x.k, { calls: x.c, ns: x.t }]));
  withDir((dir) => {
    const r = compare(dir, W_RELU, NO_RELU);
    assert.equal(r.status, 0, r.stderr);
    assertKernels(r.json, expectedKernels(viewKernels(W_RELU), viewKernels(NO_RELU)));
    const s = r.json.summary;
    assert.equal(s.base_producer, 'NVIDIA DLProf');
    assert.equal(s.base_iterations, 1);
    assert.equal(s.iter_mean_diff_ci_low_pct, null, 'no interval from one iteration');
    assert.ok(s.notes.some((n) => /1 aggregated iteration: no confidence interval/.test(n)));
    // ops: matched by name, type and direction, each side summed from view_op_nodes
    const viewOps = (db) => sql(db, `select op_node_name n, op_node_type t, direction d,
        sum(num_calls) c, sum(gpu_time) g from view_op_nodes
        where aggr_id = (select max(aggr_id) from view_aggregations) group by 1, 2, 3`);
    const key = (o) => `${o.n}|${o.t}|${o.d}`;
    const b = new Map(viewOps(W_RELU).map((o) => [key(o), o]));
    const n = new Map(viewOps(NO_RELU).map((o) => [key(o), o]));
    assert.equal(r.json.ops.length, new Set([...b.keys(), ...n.keys()]).size);
    for (const o of r.json.ops) {
      const k = `${o.op_node_name}|${o.op_node_type}|${o.direction}`;
      assert.deepEqual([o.base_calls, o.calls, o.base_gpu_time, o.gpu_time],
                       [b.get(k)?.c ?? 0, n.get(k)?.c ?? 0, b.get(k)?.g ?? 0, n.get(k)?.g ?? 0], k);
    }
    // the ReLU ops are only in the base
    const relu = r.json.ops.filter((o) => o.op_node_type === 'relu');
    assert.ok(relu.length > 0 && relu.every((o) => o.status === 'removed' && o.calls === 0));
  });
  // ours against NVIDIA's: producers and key ops differ, and it still compares
  withDir((dir) => {
    const r = compare(dir, NO_RELU, HTA);
    assert.equal(r.status, 0, r.stderr);
    const notes = r.json.summary.notes.join('\n');
    assert.match(notes, /Producers differ: base NVIDIA DLProf, run dlprof/);
    assert.match(notes, /Key ops differ: base '', run 'ProfilerStep#'/);
    assert.match(notes, /GPUs differ/);
  });
});
