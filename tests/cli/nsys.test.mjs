// dlprof --database on real Nsight Systems exports: the dldb and the reports
// agree with NVIDIA DLProf 1.8's output for the same export (w_Relu), every
// other export imports all its kernels, and bad input gets a one-line error
// with no output left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const DLPROF = process.env.DLPROF;
const SHARED = process.env.DL_SHARED_DIR || '';
const TRACES = join(SHARED, 'traces');
if (!existsSync(TRACES)) {
  console.log(`SKIP: ${TRACES} not found (the shared traces)`);
  process.exit(77);
}
const W_RELU = join(TRACES, 'dlprof/w_Relu');
const EXPORT = join(W_RELU, 'nsys_profile.sqlite');
const NV_DLDB = join(W_RELU, 'dlprof_dldb_1.sqlite');

function sql(db, query) {
  const out = execFileSync('sqlite3', ['-json', `file:${db}?mode=ro`, query], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : [];
}
function one(db, query) {
  return sql(db, query)[0];
}
function dlprof(args, cwd) {
  return spawnSync(DLPROF, args, { cwd, encoding: 'utf8' });
}
function workdir() {
  return mkdtempSync(join(tmpdir(), 'dlprof-cli-'));
}
const newest = '(select max(aggr_id) from view_aggregations)';

// RFC 4180 rows (DLProf's quoting: "" inside quotes, line breaks only in quotes).
function parseCsv(text) {
  const rows = [];
  let row = [], cell = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (ch === '"') q = false;
      else cell += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else cell += ch;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

test('w_Relu: our dldb agrees with DLProf 1.8 on the same export', () => {
  const dir = workdir();
  try {
    const r = dlprof(['--database=' + EXPORT, '--reports=all', '--formats=csv,json', '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    const ours = join(dir, 'dlprof_dldb.sqlite');
    const ks = one(ours, `select * from view_kernel_summary where aggr_id=${newest}`);
    const nv = one(NV_DLDB, 'select * from view_kernel_summary');
    // The numbers, and DLProf's own row.
    assert.equal(ks.total_gpu_time, 655837);
    assert.equal(ks.total_count, 30);
    assert.equal(ks.memory_gpu_time, 66690);
    assert.equal(ks.memory_count, 3);
    for (const k of Object.keys(nv)) if (k !== 'aggr_id') assert.equal(ks[k], nv[k], `view_kernel_summary.${k}`);

    const ps = one(ours, `select * from view_performance_summary where aggr_id=${newest}`);
    const nps = one(NV_DLDB, 'select * from view_performance_summary');
    assert.equal(ps.wall_clock_time, nps.wall_clock_time);
    assert.ok(Math.abs(ps.gpu_utilization - nps.gpu_utilization) < 0.1, `gpu_utilization ${ps.gpu_utilization} vs ${nps.gpu_utilization}`);

    const rb = one(ours, `select * from view_resource_usage_breakdown where aggr_id=${newest}`);
    const nrb = one(NV_DLDB, 'select * from view_resource_usage_breakdown');
    let sum = 0;
    for (const k of Object.keys(nrb).filter((k) => k.endsWith('_pct'))) {
      assert.ok(Math.abs(rb[k] - nrb[k]) < 0.1, `${k}: ours ${rb[k]} vs DLProf ${nrb[k]} (tolerance 0.1 pp)`);
      sum += rb[k];
    }
    assert.ok(Math.abs(sum - 100) < 1e-6, `breakdown sums to ${sum}`);

    // Every kernel of the export is in the dldb, on its own launch.
    const exported = one(EXPORT, 'select count(*) n from CUPTI_ACTIVITY_KIND_KERNEL').n;
    assert.equal(one(ours, 'select count(*) n from kernels').n, exported);

    // DLProf's report files, complete, and nothing temporary left behind.
    const files = readdirSync(dir).sort();
    for (const f of ['dlprof_summary', 'dlprof_detailed', 'dlprof_iteration', 'dlprof_kernel', 'dlprof_tensor_core',
                     'dlprof_op_type', 'dlprof_group_op', 'dlprof_expert_systems'])
      for (const ext of ['csv', 'json']) {
        assert.ok(files.includes(`${f}.${ext}`), `${f}.${ext} written`);
        assert.ok(statSync(join(dir, `${f}.${ext}`)).size > 0);
      }
    assert.deepEqual(files.filter((f) => f.includes('.tmp')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('w_Relu: the same op nodes, kernels per op, findings and reports as DLProf 1.8', () => {
  const dir = workdir();
  try {
    const r = dlprof(['--database=' + EXPORT, '--reports=all', '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    const ours = join(dir, 'dlprof_dldb.sqlite');
    // Op nodes: every column of view_op_nodes but the aggregation and domain keys.
    const cols = 'op_node_id, op_node_name, direction, op_node_type, num_calls, tc_eligible, using_tc, ' +
      'kernel_calls, is_bad_data_type, data_type, stack_trace, cpu_time, gpu_time';
    const q = `select ${cols} from view_op_nodes order by op_node_id`;
    const nvOps = sql(NV_DLDB, q);
    assert.equal(nvOps.length, 36);
    assert.deepEqual(sql(ours, q.replace('from view_op_nodes', `from view_op_nodes where aggr_id=${newest}`)), nvOps);
    // Kernels per op: every (op, kernel name) row with its calls and times.
    const kq = 'select op_node_id, kernel_name, uses_tc, calls, gpu_time, min, max from view_kernel_summaries';
    assert.deepEqual(sql(ours, `${kq} where aggr_id=${newest} order by 1, 2`), sql(NV_DLDB, `${kq} order by 1, 2`));
    // Every kernel launch goes to the same op.
    const lq = 'select op_node_id, kernel_name, kernel_timestamp, kernel_duration from view_iteration_op_kernels';
    assert.deepEqual(sql(ours, `${lq} where aggr_id=${newest} order by 3, 2`), sql(NV_DLDB, `${lq} order by 3, 2`));
    // Op types, group tree and op summary.
    // (DLProf stores averages rounded to 6 decimals)
    const avg3 = (rows) => rows.map((row) => Object.fromEntries(Object.entries(row).map(
      ([k, v]) => [k, k.endsWith('_avg') ? Math.round(v * 1000) / 1000 : v])));
    assert.deepEqual(avg3(sql(ours, `select * from view_op_type_summary where aggr_id=${newest} order by op_node_type`)),
                     avg3(sql(NV_DLDB, 'select * from view_op_type_summary order by op_node_type')));
    const gq = 'select row_type, row_full_id, row_full_name, row_trimmed_name, level, num_op_instances, ' +
      'num_supported_leaf_ops, num_tc_leaf_ops, cpu_time_sum, gpu_time_sum, cpu_overhead_sum, gpu_idle_sum from view_group_ops';
    assert.deepEqual(sql(ours, `${gq} where aggr_id=${newest} order by 2, 3`), sql(NV_DLDB, `${gq} order by 2, 3`));
    const os = one(ours, `select * from view_op_summary where aggr_id=${newest}`);
    const nos = one(NV_DLDB, 'select * from view_op_summary');
    for (const k of Object.keys(nos)) if (k !== 'aggr_id') assert.equal(os[k], nos[k], `view_op_summary.${k}`);
    // The same expert findings, in the same order, from the same detectors.
    // One deliberate difference (docs/compat.md): without a key op, DLProf's
    // finding names an empty one ("key op  not found"); ours says none was set.
    const noKey = (t) => t
      .replace('Unable to split profile into training iterations: key op  not found',
               'Unable to split profile into training iterations: no key op was set, so the whole profile is one iteration')
      .replace(/Specify key op by setting the --key_op argument(?! to)/,
               'Specify key op by setting the --key_op argument to the op or NVTX range that marks each training step');
    const fq = 'select problem, recommendation, javascript_function, javascript_args from view_expert_systems';
    assert.deepEqual(sql(ours, `${fq} where aggr_id=${newest}`),
                     sql(NV_DLDB, fq).map((r) => ({ ...r, problem: noKey(r.problem), recommendation: noKey(r.recommendation) })));
    assert.deepEqual(sql(ours, `select rule_id from aggr_findings where aggr_id=${newest} order by seq`).map((x) => x.rule_id),
                     sql(NV_DLDB, 'select exp_sys_id from expert_systems_feedback order by id').map((x) => x.exp_sys_id));
    // DLProf's report files, byte for byte, where every value is derivable from the export.
    for (const f of ['dlprof_expert_systems', 'dlprof_op_type', 'dlprof_detailed', 'dlprof_tensor_core', 'dlprof_group_op',
                     'dlprof_kernel']) {
      const a = readFileSync(join(dir, `${f}.csv`), 'utf8');
      const b = noKey(readFileSync(join(W_RELU, `${f}.csv`), 'utf8'));
      assert.equal(a, b, `${f}.csv`);
    }
    // The summary: all but the producer's own version and build (docs/compat.md).
    const ourSum = readFileSync(join(dir, 'dlprof_summary.csv'), 'utf8').split('\n');
    const nvSum = readFileSync(join(W_RELU, 'dlprof_summary.csv'), 'utf8').split('\n');
    assert.equal(ourSum.length, nvSum.length, 'dlprof_summary.csv lines');
    for (let i = 0; i < nvSum.length; i++) {
      if (nvSum[i].startsWith('DLProf Version,')) assert.match(ourSum[i], /^DLProf Version,v\d+\.\d+\.\d+/);
      else if (nvSum[i].startsWith('DLProf Build,')) assert.match(ourSum[i], /^DLProf Build,/);
      else assert.equal(ourSum[i], nvSum[i], `dlprof_summary.csv line ${i + 1}`);
    }
    // The iteration report: every cell, but Long Kernel Name is each launch's own
    // demangled name, where DLProf repeats one name per op and kernel (docs/compat.md).
    const ourIt = parseCsv(readFileSync(join(dir, 'dlprof_iteration.csv'), 'utf8'));
    const nvIt = parseCsv(readFileSync(join(W_RELU, 'dlprof_iteration.csv'), 'utf8'));
    assert.equal(ourIt.length, nvIt.length, 'dlprof_iteration.csv rows');
    assert.equal(ourIt.length, 2 + 59, "a title, the header and the 59 kernel launches");
    const hdr = nvIt[1];
    const col = (name) => hdr.indexOf(name);
    const [cOp, cKernel, cStart, cLong] = ['Op ID', 'Kernel Name', 'GPU Start Time (ns)', 'Long Kernel Name'].map(col);
    const origin = one(ours, "select value v from dl_meta where key = 'time_origin_ns'").v;
    const demangled = new Map(sql(EXPORT, `select k.start - ${Number(origin)} s, d.value n ` +
      'from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds d on d.id = k.demangledName').map((x) => [String(x.s), x.n]));
    let longDiffs = 0;
    for (let i = 0; i < nvIt.length; i++) {
      for (let j = 0; j < hdr.length; j++) {
        if (i >= 2 && j === cLong) continue;
        assert.equal(ourIt[i][j], nvIt[i][j], `dlprof_iteration.csv row ${i + 1}, ${hdr[j]}`);
      }
      if (i < 2) continue;
      const row = ourIt[i];
      assert.ok(demangled.has(row[cStart]), `row ${i + 1}: a kernel of the export starts at ${row[cStart]}`);
      assert.equal(row[cLong], demangled.get(row[cStart]), `row ${i + 1}: the launch's own name`);
      if (row[cLong] === nvIt[i][cLong]) continue;
      longDiffs++;
      // DLProf's: the name of the op's last launch of that kernel.
      const last = ourIt.slice(2).filter((x) => x[cOp] === row[cOp] && x[cKernel] === row[cKernel])
        .sort((x, y) => Number(x[cStart]) - Number(y[cStart])).at(-1);
      assert.equal(nvIt[i][cLong], last[cLong], `row ${i + 1}: DLProf's long name`);
    }
    assert.equal(longDiffs, 3, 'the three fft2d_r2c_32x32 launches DLProf names after another template');
    // Nsight Systems' rules are ours, on request, after DLProf's findings.
    const r2 = dlprof(['--database=' + EXPORT, '--reports=expert_systems', '--nsys_rules=true', '--force=true', '-v', 'quiet'], dir);
    assert.equal(r2.status, 0, r2.stderr);
    const ids = sql(ours, `select rule_id from aggr_findings where aggr_id=${newest} order by seq`).map((x) => x.rule_id);
    assert.deepEqual(ids.slice(0, 4), ['amp_detector', 'underutilized_gpu_detector', 'dataloader_detector', 'no_iterations_detector']);
    assert.ok(ids.includes('nsys_cuda_memcpy_async'), ids.join());
    assert.ok(ids.includes('nsys_cuda_api_sync'), ids.join());
    assert.ok(!ids.includes('nsys_cuda_memcpy_sync'), 'the 112-byte host-to-device cudaMemcpy calls are exempt');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every other export imports all its kernels', () => {
  // NvDriverVersion is the version's digits without the dots (cloverleaf:
  // 52510517) or the dotted text itself (cutlass: 470.57.02).
  const driver = { 'nsys2024.5_a100x4_cloverleaf.sqlite': '525.105.17', 'nsys2023.2_cutlass_sgemm.sqlite': '470.57.02' };
  for (const name of ['nsys2024.5_a100x4_cloverleaf.sqlite', 'nsys2023.2_cutlass_sgemm.sqlite']) {
    const dir = workdir();
    try {
      const src = join(TRACES, 'nsys', name);
      const before = statSync(src).mtimeMs;
      const r = dlprof(['--database', src, '--verbosity=quiet'], dir);
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
      const ours = join(dir, 'dlprof_dldb.sqlite');
      const exported = one(src, 'select count(*) n from CUPTI_ACTIVITY_KIND_KERNEL').n;
      assert.ok(exported > 0);
      assert.equal(one(ours, 'select count(*) n from kernels').n, exported, name);
      const ks = one(ours, `select * from view_kernel_summary where aggr_id=${newest}`);
      const kt = one(src, 'select sum("end"-start) t from CUPTI_ACTIVITY_KIND_KERNEL').t;
      const mt = one(src, 'select sum("end"-start) t from CUPTI_ACTIVITY_KIND_MEMCPY').t || 0;
      assert.equal(ks.total_gpu_time - ks.memory_gpu_time, kt, `${name}: kernel time`);
      assert.ok(ks.memory_gpu_time >= mt, `${name}: memory time`);
      assert.equal(one(ours, 'select driver_version v from view_system_config').v, driver[name], `${name}: driver`);
      // 4 GPUs, 3 of them idle: the utilization finding says it is their mean
      // (the summary's Non-Tensor Core Kernel Duration is the busy GPU's share).
      if (name.includes('cloverleaf'))
        assert.equal(one(ours, `select problem p from view_expert_systems where aggr_id=${newest} and problem like '%underutilized%'`).p,
                     'The GPUs are underutilized: Only 8.3% of the profiled time, averaged over the 4 GPUs, is spent on GPU ' +
                     'kernel operations (the busiest, GPU 0: 33.4%)');
      assert.equal(statSync(src).mtimeMs, before, 'the export is not modified');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('bad input: one line naming the file, exit 1, no output', () => {
  const dir = workdir();
  try {
    const notsqlite = join(dir, 'notes.txt');
    writeFileSync(notsqlite, 'hello\n');
    const sub = join(dir, 'adir');
    mkdirSync(sub);
    const gzText = join(dir, 'notes.json.gz');
    writeFileSync(gzText, gzipSync('hello world\n'));
    const cases = [
      [join(TRACES, 'nsys/empty_export.sqlite'), /no CUDA or NVTX activity/],
      [join(dir, 'missing.sqlite'), /missing\.sqlite: No such file/],
      [sub, /adir: a directory without PyTorch profiler traces \(\*\.json, \*\.json\.gz\) in it$/],
      [notsqlite, /not a trace dlprof can read/],
      // gzip of something other than JSON is not called JSON
      [gzText, /notes\.json\.gz: gzip-compressed, but what it holds is not a JSON trace$/],
    ];
    for (const [path, re] of cases) {
      // Errors print at every verbosity; quiet leaves only them on stderr.
      const r = dlprof(['--database=' + path, '--verbosity=quiet'], dir);
      assert.equal(r.status, 1, path);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line: ${r.stderr}`);
      assert.match(lines[0], /^dlprof: /);
      assert.ok(lines[0].includes(path), `names the file: ${lines[0]}`);
      assert.match(lines[0], re);
      assert.ok(!existsSync(join(dir, 'dlprof_dldb.sqlite')), 'no dldb left behind');
      assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), []);
    }
    // an output directory that refuses new files with ENOENT (procfs): not "No such file"
    const proc = dlprof(['--database=' + EXPORT, '--output_path=/proc', '--verbosity=quiet'], dir);
    assert.equal(proc.status, 1);
    assert.match(proc.stderr.trim(), /^dlprof: cannot create a file next to \/proc\/dlprof_dldb\.sqlite: its directory does not take new files$/);
    // --output_path: one that cannot be created (under a file), or a file
    const uncreatable = join(notsqlite, 'such');
    const nodir = dlprof(['--database=' + EXPORT, '--output_path=' + uncreatable], dir);
    assert.equal(nodir.status, 1);
    assert.equal(nodir.stderr.trim(),
                 `dlprof: --output_path: cannot create ${notsqlite}: Not a directory (making ${uncreatable})`);
    const notdir = dlprof(['--database=' + EXPORT, '--output_path=' + notsqlite], dir);
    assert.equal(notdir.status, 1);
    assert.equal(notdir.stderr.trim(), `dlprof: --output_path: ${notsqlite} is not a directory`);
    for (const args of [['--reports=nope'], ['--force=maybe'], ['--iter_start=x'], ['--bogus'], ['--verbosity=loud']]) {
      const r = dlprof([...args, '--database=' + EXPORT], dir);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, /^dlprof: /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('outputs are kept unless --force=true, and re-aggregation appends', () => {
  const dir = workdir();
  try {
    assert.equal(dlprof(['--database=' + EXPORT, '-v', 'quiet'], dir).status, 0);
    const db = join(dir, 'dlprof_dldb.sqlite');
    const mtime = statSync(db).mtimeMs;
    const again = dlprof(['--database=' + EXPORT], dir);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists; use --force=true/);
    assert.equal(statSync(db).mtimeMs, mtime, 'the old output is untouched');
    assert.equal(dlprof(['--database=' + EXPORT, '--force=true', '-v', 'quiet'], dir).status, 0);

    // A new aggregation in the same file, without importing again.
    const out2 = join(dir, 'second');
    mkdirSync(out2);
    const r = dlprof(['--database=' + db, '--iter_start=0', '--iter_stop=0', '--output_path=' + out2, '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(sql(db, 'select aggr_id from view_aggregations order by aggr_id').map((x) => x.aggr_id), [1, 2]);
    assert.ok(existsSync(join(out2, 'dlprof_summary.csv')));
    // An iteration range past the last iteration is refused and adds nothing.
    const bad = dlprof(['--database=' + db, '--iter_start=5', '--iter_stop=9', '--force=true', '--output_path=' + out2], dir);
    assert.equal(bad.status, 1);
    assert.equal(bad.stderr.trim().split('\n').at(-1), `dlprof: ${db}: no iterations 5 to 9: the profile has 1 (0 to 0)`);
    assert.equal(sql(db, 'select count(*) n from view_aggregations')[0].n, 2);
    // No option that shapes an aggregation: the newest one's reports, and no copy of it.
    const out3 = join(dir, 'third');
    mkdirSync(out3);
    const plain = dlprof(['--database=' + db, '--output_path=' + out3, '-v', 'quiet'], dir);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(sql(db, 'select count(*) n from view_aggregations')[0].n, 2);
    assert.match(readFileSync(join(out3, 'dlprof_summary.csv'), 'utf8'), /^Start Iteration,0$/m);
    // A directory where a report goes cannot be replaced, --force or not: refused
    // before anything is written (it was found after the dldb was in place).
    const out4 = join(dir, 'fourth');
    mkdirSync(join(out4, 'dlprof_summary.csv'), { recursive: true });
    const clash = dlprof(['--database=' + EXPORT, '--output_path=' + out4, '--force=true'], dir);
    assert.equal(clash.status, 1);
    assert.match(clash.stderr.trim(), /^dlprof: .*dlprof_summary\.csv: is a directory, not an output file$/);
    assert.deepEqual(readdirSync(out4), ['dlprof_summary.csv']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('progress: every phase that starts also ends (plain lines when not on a terminal); findings on stdout', () => {
  for (const src of [EXPORT, join(TRACES, 'nsys', 'nsys2024.5_a100x4_cloverleaf.sqlite')]) {
    const dir = workdir();
    try {
      const r = dlprof(['--database=' + src], dir);
      assert.equal(r.status, 0, r.stderr);
      // the expert findings go to stdout, as DLProf wrote them; progress to stderr
      assert.match(r.stdout, /^Expert Systems Feedback/m);
      assert.doesNotMatch(r.stderr, /Expert Systems Feedback/);
      const lines = r.stderr.split('\n');
      const started = lines.map((l) => /^dlprof: (.+): 0% \(0 of \d+\)$/.exec(l)).filter(Boolean).map((m) => m[1]);
      assert.ok(started.includes('memory copies') && started.includes('synchronizations'), started.join());
      for (const phase of started) {
        assert.ok(lines.some((l) => l.startsWith(`dlprof: ${phase}: 100% (`)), `${src}: "${phase}" never ends`);
        // the analysis reads rows of our own tables, so the count a loading
        // phase starts with is the one it ends with (not "0 of 59", then "76 of 76");
        // an import's may end lower, by the rows it skips
        if (!phase.startsWith('loading ')) continue;
        const first = lines.find((l) => l.startsWith(`dlprof: ${phase}: 0% (0 of `));
        const last = lines.find((l) => l.startsWith(`dlprof: ${phase}: 100% (`));
        assert.equal(/ of (\d+)\)$/.exec(first)[1], / of (\d+)\)$/.exec(last)[1], `${src}: ${first} / ${last}`);
      }
      // one phase at a time: each ends before the next starts (none nests in another)
      let open = null;
      for (const l of lines) {
        const m = /^dlprof: (.+): (\d+)% \(/.exec(l);
        if (!m) continue;
        if (m[2] === '100') open = null;
        else if (open !== null && open !== m[1]) assert.fail(`${src}: "${m[1]}" starts inside "${open}"`);
        else open = m[1];
      }
      assert.doesNotMatch(r.stderr, /took [\d.]+ s/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('--verbosity=detailed: what each phase took (wall, CPU, peak RSS), and the whole run', () => {
  const dir = workdir();
  try {
    const r = dlprof(['--database=' + EXPORT, '-v', 'detailed'], dir);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n');
    const ended = lines.map((l) => /^dlprof: (.+): 100% \(/.exec(l)).filter(Boolean).map((m) => m[1]);
    // the analysis's work between loading phases is timed too
    for (const p of ['kernels', 'building op nodes', 'analysing the timeline', 'writing the aggregation'])
      assert.ok(ended.includes(p), ended.join());
    for (const phase of ended) {
      const at = lines.findIndex((l) => l.startsWith(`dlprof: ${phase}: 100% (`));
      assert.match(lines[at + 1], new RegExp(`^dlprof: ${phase}: took \\d+\\.\\d\\d s \\(\\d+\\.\\d\\d s CPU\\), peak RSS \\d+ MiB$`), lines[at + 1]);
    }
    const done = /^dlprof: done: took ([\d.]+) s \(([\d.]+) s CPU\), peak RSS (\d+) MiB$/m.exec(r.stderr);
    assert.ok(done, r.stderr);
    assert.ok(Number(done[3]) > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--profile_name and --output_path name the outputs', () => {
  const dir = workdir();
  try {
    const out = join(dir, 'out');
    mkdirSync(out);
    const r = dlprof(['--database=' + EXPORT, '--profile_name=run1', '--output_path=' + out, '--reports=kernel,tensor', '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['run1_dldb.sqlite', 'run1_kernel.csv', 'run1_tensor_core.csv']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a dldb written by NVIDIA DLProf gives its reports but no new aggregation', () => {
  const dir = workdir();
  try {
    const copy = join(dir, 'nv.sqlite');
    copyFileSync(NV_DLDB, copy);
    const r = dlprof(['--database=' + copy, '--reports=op_type', '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(dir, 'dlprof_op_type.csv')));
    const r2 = dlprof(['--database=' + copy, '--key_op=conv2d'], dir);
    assert.equal(r2.status, 1);
    assert.match(r2.stderr, /needs a dldb written by dlprof/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
