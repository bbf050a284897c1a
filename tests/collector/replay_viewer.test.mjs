// replay_viewer.test.mjs - the collector's replay, end to end, through the real
// dlprofviewer HTTP API: dlsample replays a ResNet-50-like training loop as
// CUPTI activity buffers and NVTX records through the live collector
// (decode, writer, live store) and the analysis; dlprofviewer then shows
// iterations, tensor-core usage in mixed precision, none in FP32 with the
// AMP finding, and a dataloader finding in both.
// Run: DLSAMPLE=... DLPROFVIEWER=... DL_TEST_WORK=... node replay_viewer.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startViewer, sql, work } from '../server/viewer.mjs';

const dlsample = process.env.DLSAMPLE;
const ITERS = 20;
let amp, fp32, ampDb, fp32Db;

function replay(name, precision) {
  mkdirSync(work, { recursive: true });
  const db = join(work, name);
  const out = execFileSync(dlsample, ['--iterations', String(ITERS), '--kernels-per-iter', '120',
    '--precision', precision, '--seed', '7', '--force', db], { encoding: 'utf8' });
  assert.match(out, /records replayed through the collector/);
  return db;
}

before(async () => {
  assert.ok(dlsample, 'DLSAMPLE is not set');
  ampDb = replay('replay-amp.sqlite', 'amp');
  fp32Db = replay('replay-fp32.sqlite', 'fp32');
  amp = await startViewer(ampDb);
  fp32 = await startViewer(fp32Db);
});

after(async () => {
  for (const s of [amp, fp32]) {
    if (!s) continue;
    const e = await s.stop();
    assert.equal(e.code, 0, `dlprofviewer exit: ${e.code} ${e.signal}\n${e.stderr}`);
  }
});

async function get(server, path) {
  const res = await fetch(server.url + path.replace(/^\//, ''));
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res.json();
}

test('the profiles were recorded by the collector, not written directly', () => {
  for (const db of [ampDb, fp32Db]) {
    const [m] = sql(db, "SELECT value FROM dl_meta WHERE key = 'producer'");
    assert.match(m.value, /collector replay/);
    const [c] = sql(db, 'SELECT (SELECT count(*) FROM cupti_external_correlations) AS ext, ' +
      '(SELECT count(*) FROM kernels) AS k, (SELECT count(*) FROM memcpys) AS m, ' +
      '(SELECT count(*) FROM memsets) AS s, (SELECT count(*) FROM cuda_contexts) AS ctx');
    assert.ok(c.ext > c.k, JSON.stringify(c)); // one link per API call made in a range
    assert.equal(c.m, ITERS); // the input copy of each iteration
    assert.equal(c.s, ITERS); // zero_grad
    assert.equal(c.ctx, 1);
  }
});

test('iterations are shown', async () => {
  for (const v of [amp, fp32]) {
    const ps = await get(v, '/api/v1/performance_summary');
    assert.equal(ps.key_node, '/module/SGD::step/step');
    assert.equal(ps.total_iterations, ITERS + 1); // N key-op stops: N + 1 iterations
    const its = await get(v, '/api/v1/iterations_all?limit=1000');
    assert.equal(its.total, ITERS + 1);
    for (const r of its.rows) assert.ok(r.duration > 0, JSON.stringify(r));
    const prof = await get(v, '/api/v1/iterations_profiled?limit=1000');
    assert.equal(prof.total, ITERS + 1);
  }
});

test('mixed precision uses tensor cores', async () => {
  const ks = await get(amp, '/api/v1/kernel_summary');
  assert.ok(ks.using_tc_count > 0, JSON.stringify(ks));
  assert.ok(ks.using_tc_gpu_time > 0, JSON.stringify(ks));
  const ps = await get(amp, '/api/v1/performance_summary');
  assert.ok(ps.tc_utilization > 50, JSON.stringify(ps));
  const ik = await get(amp, '/api/v1/iteration_kernels?limit=1000');
  assert.ok(ik.rows.some((r) => r.uses_tc === 1 && /xmma|s16816gemm/.test(r.kernel_name)));
  const es = await get(amp, '/api/v1/expert_systems');
  assert.ok(!es.rows.some((r) => r.javascript_function === 'ShowBadDataTypeOps'),
    JSON.stringify(es.rows));
});

test('FP32 uses no tensor cores and gets the AMP finding', async () => {
  const ks = await get(fp32, '/api/v1/kernel_summary');
  assert.equal(ks.using_tc_count, 0, JSON.stringify(ks));
  assert.equal(ks.using_tc_gpu_time, 0);
  const ps = await get(fp32, '/api/v1/performance_summary');
  assert.equal(ps.tc_utilization, 0);
  const ik = await get(fp32, '/api/v1/iteration_kernels?limit=1000');
  assert.ok(ik.rows.length > 0);
  assert.ok(ik.rows.every((r) => r.uses_tc === 0));
  const es = await get(fp32, '/api/v1/expert_systems');
  const amp = es.rows.find((r) => r.javascript_function === 'ShowBadDataTypeOps');
  assert.ok(amp, JSON.stringify(es.rows));
  assert.match(amp.problem, /eligible to use tensor cores/);
});

test('both show a dataloader finding', async () => {
  for (const v of [amp, fp32]) {
    const es = await get(v, '/api/v1/expert_systems');
    const dl = es.rows.find((r) => /dataloader/.test(r.problem));
    assert.ok(dl, JSON.stringify(es.rows));
    assert.match(dl.recommendation, /DALI/);
  }
});
