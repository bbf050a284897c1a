// dlprof --database on PyTorch profiler (Kineto) traces from ../shared/traces:
// the expert findings of CPU-only traces, the system config a trace does and
// does not carry, and an iteration range cut to the profile's last iteration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DLPROF = process.env.DLPROF;
const SHARED = process.env.DL_SHARED_DIR || '';
const KINETO = join(SHARED, 'traces', 'kineto');
if (!existsSync(KINETO)) {
  console.log(`SKIP: ${KINETO} not found (the shared traces)`);
  process.exit(77);
}

function sql(db, query) {
  const out = execFileSync('sqlite3', ['-json', `file:${db}?mode=ro`, query], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : [];
}
function dlprof(args, cwd) {
  return spawnSync(DLPROF, args, { cwd, encoding: 'utf8' });
}
function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'dlprof-kineto-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const newest = '(select max(aggr_id) from view_aggregations)';
const findings = (db) =>
  sql(db, `select rule_id from aggr_findings where aggr_id=${newest} order by seq`).map((x) => x.rule_id);
const meta = (db, key) => sql(db, `select value v from dl_meta where key='${key}'`)[0]?.v;
const summaryLine = (dir, key) =>
  readFileSync(join(dir, 'dlprof_summary.csv'), 'utf8').split('\n').find((l) => l.startsWith(key + ','));

test('CPU-only traces: "No GPU activity", without 0.0 % utilization or unused devices', () => {
  // The two HTA traces hold the same 2,467 CPU ranges; only the first has a
  // deviceProperties list (8 A100s), which become the dldb's GPUs.
  const hta = join(KINETO, 'hta');
  const gpus = {};
  for (const name of ['distributed_info_unavailable_distributed_info_not_found.json.gz',
                      'rank_non_gpu_rank_non_gpu.json.gz']) {
    withDir((dir) => {
      const r = dlprof(['--database=' + join(hta, name), '-v', 'quiet'], dir);
      assert.equal(r.status, 0, r.stderr);
      const db = join(dir, 'dlprof_dldb.sqlite');
      gpus[name] = sql(db, 'select count(*) n from gpus')[0].n;
      assert.deepEqual(findings(db), ['dataloader_detector', 'no_gpu_activity_detector'], name);
      const problems = sql(db, `select problem from view_expert_systems where aggr_id=${newest}`).map((x) => x.problem);
      assert.ok(!problems.some((p) => /underutilized|not being used/.test(p)), problems.join('\n'));
    });
  }
  assert.deepEqual(Object.values(gpus), [8, 0], 'deviceProperties is the difference');
});

test('GPU Driver Version: the driver\'s, never Kineto\'s cuda_driver_version (the CUDA driver API)', () => {
  // TraceLens's trace: cuda_driver_version 12090 (CUDA 12.9's driver API) and, in
  // its metadata (torch.utils.collect_env), nvidia_driver_version 575.51.03.
  withDir((dir) => {
    const src = join(KINETO, 'tracelens_h100', 'Falconsai_nsfw_image_detection__1016002.json.gz');
    const r = dlprof(['--database=' + src, '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'dlprof_dldb.sqlite');
    assert.equal(summaryLine(dir, 'GPU Driver Version'), 'GPU Driver Version,575.51.03');
    assert.equal(sql(db, 'select driver_version v from view_system_config')[0].v, '575.51.03');
    assert.equal(meta(db, 'kineto_cuda_driver_version'), '12.9');
  });
  // HTA's Triton trace: cuda_driver_version 12000 and nothing else: unknown.
  withDir((dir) => {
    const r = dlprof(['--database=' + join(KINETO, 'hta', 'triton_example_triton_example.json.gz'), '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'dlprof_dldb.sqlite');
    assert.equal(summaryLine(dir, 'GPU Driver Version'), 'GPU Driver Version,');
    assert.equal(meta(db, 'kineto_cuda_driver_version'), '12.0');
  });
  // A metadata object nested deeper, with a value that is not a version first:
  // the driver is found, and every event after it is still read.
  withDir((dir) => {
    const trace = join(dir, 'nested.json');
    writeFileSync(trace, JSON.stringify({
      schemaVersion: 1,
      metadata: { runs: [{ nvidia_driver_version: 'N/A' }, [1, [2]]],
                  system: { torch_env_info: { nvidia_driver_version: '535.104.05' } } },
      cuda_driver_version: 12020,
      deviceProperties: [{ id: 0, name: 'NVIDIA H100' }],
      traceEvents: [
        { ph: 'X', cat: 'cpu_op', name: 'aten::add', pid: 1, tid: 1, ts: 10, dur: 5, args: { 'External id': 1 } },
        { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: 11, dur: 2,
          args: { correlation: 7, 'External id': 1 } },
        { ph: 'X', cat: 'kernel', name: 'add_kernel', pid: 0, tid: 7, ts: 14, dur: 3,
          args: { device: 0, stream: 7, correlation: 7, 'External id': 1 } },
      ],
    }));
    const r = dlprof(['--database=' + trace, '-v', 'quiet'], dir);
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'dlprof_dldb.sqlite');
    assert.equal(sql(db, 'select count(*) n from kernels')[0].n, 1);
    assert.equal(sql(db, 'select driver_version v from view_system_config')[0].v, '535.104.05');
    assert.equal(meta(db, 'kineto_cuda_driver_version'), '12.2');
  });
});

test('--iter_stop past the last iteration: a note says the range was cut (normal verbosity only)', () => {
  const src = join(KINETO, 'resnet50_v100', 'worker0.1623143089861.pt.trace.json.gz'); // 6 steps
  const note = 'dlprof: --iter_stop=10 is past the last iteration: aggregated iterations 3 to 5 (the profile has 6, 0 to 5)';
  withDir((dir) => {
    const r = dlprof(['--database=' + src, '--iter_start=3', '--iter_stop=10'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.split('\n').filter((l) => l.includes('--iter_stop')).join('\n'), note);
    assert.doesNotMatch(r.stdout, /iter_stop=10/);
    const db = join(dir, 'dlprof_dldb.sqlite');
    assert.deepEqual(sql(db, `select iter_start, iter_stop from view_aggregations where aggr_id=${newest}`),
                     [{ iter_start: 3, iter_stop: 5 }]);
    // quieter levels: no note
    for (const v of ['quiet', 'minimal']) {
      const q = dlprof(['--database=' + src, '--iter_start=3', '--iter_stop=10', '--force=true', '-v', v], dir);
      assert.equal(q.status, 0, q.stderr);
      assert.doesNotMatch(q.stderr, /past the last iteration/, v);
    }
    // a range inside the profile: no note
    const ok = dlprof(['--database=' + src, '--iter_start=3', '--iter_stop=5', '--force=true'], dir);
    assert.equal(ok.status, 0, ok.stderr);
    assert.doesNotMatch(ok.stderr, /past the last iteration/);
    // a new aggregation of the dldb: the same note
    const again = dlprof(['--database=' + db, '--iter_start=1', '--iter_stop=7', '--force=true'], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /^dlprof: --iter_stop=7 is past the last iteration: aggregated iterations 1 to 5 \(the profile has 6, 0 to 5\)$/m);
  });
});
