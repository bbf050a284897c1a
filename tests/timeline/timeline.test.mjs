// timeline.test.mjs - the timeline's endpoints on real traces, over real
// HTTP. dlprof makes dldbs from two Nsight Systems exports and two PyTorch
// traces; NVIDIA's no_relu and w_Relu dldbs are served as they are. For
// every GPU stream the events are read here from the trace itself (the
// export's CUPTI tables with the sqlite3 CLI, the JSON's kernel, memcpy and
// memset events, NVIDIA's read_only_* tables) and compared with
// /api/v1/dl_timeline_tracks (event count, busy time = the union) and
// /api/v1/dl_timeline: bins at several widths add up to the busy time and
// the count, and narrow windows return exactly the overlapping events.
// Windows are kept in the answer cache: equal to a viewer without it, each
// window its own answer, and none served from a file replaced since.
// Run: node tests/timeline/timeline.test.mjs; exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { requireFile, shared, startViewer, work } from '../server/viewer.mjs';
import { busy, getOk, overlaps, stopOk, windowUrl } from './reference.mjs';

const dlprof = process.env.DLPROF;
const traces = join(shared, 'traces');
const nsysInputs = ['nsys/nsys2024.5_a100x4_cloverleaf.sqlite', 'nsys/nsys2023.2_cutlass_sgemm.sqlite'];
const kinetoInputs = [
  'kineto/hta/trace_diff_control_control.json.gz',
  'kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz',
];
const nvidiaInputs = ['dlprof/no_relu/dlprof_dldb.sqlite', 'dlprof/w_Relu/dlprof_dldb_1.sqlite'];
for (const f of [...nsysInputs, ...kinetoInputs, ...nvidiaInputs]) requireFile(join(traces, f));

/** sql() of viewer.mjs, with room for the rows of a generated export. */
function sql(db, query) {
  const out = execFileSync('sqlite3', ['-readonly', '-json', db, query], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return out.trim() ? JSON.parse(out) : [];
}

/** Per GPU stream key "device/stream": its events [{start, dur}] on the trace's clock. */
function nsysStreams(path) {
  const q = (t) =>
    `SELECT deviceId AS d, streamId AS s, start, end FROM ${t}`;
  const tables = sql(path, "SELECT name FROM sqlite_master WHERE type='table'").map((r) => r.name);
  const rows = ['CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET']
    .filter((t) => tables.includes(t))
    .flatMap((t) => sql(path, q(t)));
  return group(rows.map((r) => ({ key: `${r.d}/${r.s}`, start: r.start, dur: r.end - r.start })));
}

const kinetoCats = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset']);
function kinetoStreams(path) {
  const trace = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8'));
  const gpu = trace.traceEvents.filter(
    (e) => e.ph === 'X' && kinetoCats.has(String(e.cat).toLowerCase()) && e.args);
  // µs to ns relative to the first event: absolute ns pass 2^53
  const base = Math.min(...gpu.map((e) => e.ts));
  const ns = (us) => Math.round(us * 1000);
  const rows = gpu.map((e) => ({
    key: `${e.args.device}/${e.args.stream}`,
    start: ns(e.ts - base),
    dur: ns(e.ts - base + e.dur) - ns(e.ts - base),
  }));
  return group(rows);
}

/** NVIDIA's files record no stream: one track per device, stream 0. */
function nvidiaStreams(path) {
  const rows = ['read_only_kernels', 'read_only_memcpys', 'read_only_memsets'].flatMap((t) =>
    sql(path, `SELECT device_id AS d, gpu_start AS start, gpu_stop - gpu_start AS dur FROM ${t}`));
  return group(rows.map((r) => ({ key: `${r.d}/0`, start: r.start, dur: r.dur })));
}

function group(rows) {
  const m = new Map();
  for (const r of rows) {
    if (!m.has(r.key)) m.set(r.key, []);
    m.get(r.key).push({ start: r.start, dur: r.dur });
  }
  for (const l of m.values()) l.sort((a, b) => a.start - b.start || a.dur - b.dur);
  return m;
}


// A generated export (bench/nsys_gen.c) with tracks long enough to have
// stored bins: its wide windows are read from them (server/api_timeline.c).
const nsysGen = process.env.NSYS_GEN;
const genKernels = 150000; // the whole track reads level 2: finer cells and raw events at its ends

const runs = []; // { name, run, streams, generated }
let v;

before(async () => {
  const dir = join(work, 'timeline');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = [];
  const inputs = [
    ...nsysInputs.map((f) => [f, nsysStreams]),
    ...kinetoInputs.map((f) => [f, kinetoStreams]),
  ];
  for (const [i, [f, read]] of inputs.entries()) {
    const out = join(dir, `in${i}`);
    execFileSync(dlprof, [`--database=${join(traces, f)}`, `--output_path=${out}`, '--force=true'], {
      stdio: 'ignore',
    });
    files.push({ name: f, path: join(out, 'dlprof_dldb.sqlite'), streams: read(join(traces, f)) });
  }
  if (nsysGen) {
    const exp = join(dir, 'gen.sqlite');
    execFileSync(nsysGen, ['--kernels', String(genKernels), exp], { stdio: 'ignore' });
    const out = join(dir, 'gen');
    execFileSync(dlprof, [`--database=${exp}`, `--output_path=${out}`, '--force=true'], { stdio: 'ignore' });
    files.push({ name: 'nsys_gen', path: join(out, 'dlprof_dldb.sqlite'), streams: nsysStreams(exp), generated: true });
  }
  for (const f of nvidiaInputs)
    files.push({ name: f, path: join(traces, f), streams: nvidiaStreams(join(traces, f)) });
  v = await startViewer(files[0].path, files.slice(1).map((f) => f.path));
  const list = (await get('/api/v1/runs')).rows;
  for (const f of files) runs.push({ ...f, run: list.find((r) => r.path === f.path).run });
});

after(() => stopOk(v));

const get = (path) => getOk(v, path);

async function tracks(r) {
  const all = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await get(`/api/v1/dl_timeline_tracks?run=${r.run}&limit=1000&offset=${offset}`);
    all.push(...page.rows);
    if (all.length >= page.total) return all;
  }
}


test('every GPU stream: its count and busy time are the trace\'s', async () => {
  for (const r of runs) {
    const gpu = (await tracks(r)).filter((t) => t.kind === 'gpu_stream');
    const got = new Map(gpu.map((t) => [`${t.device_id}/${t.stream_id}`, t]));
    assert.deepEqual([...got.keys()].sort(), [...r.streams.keys()].sort(), `${r.name}: streams`);
    for (const [key, events] of r.streams) {
      const t = got.get(key);
      assert.equal(t.event_count, events.length, `${r.name} ${key}: event_count`);
      assert.equal(t.busy_time, busy(events), `${r.name} ${key}: busy_time`);
      assert.equal(t.last_end - t.first_start,
        events.reduce((m, x) => Math.max(m, x.start + x.dur), -Infinity) - events[0].start, `${r.name} ${key}: span`);
    }
  }
});

test('bins add up to the busy time and the count at any width', async () => {
  for (const r of runs) {
    for (const t of (await tracks(r)).filter((x) => x.kind === 'gpu_stream')) {
      for (const w of [1, 3, 64, 1000]) {
        const a = await get(windowUrl(r, t, t.first_start, t.last_end + 1, w));
        if (t.event_count <= w) {
          assert.equal(a.events.length, t.event_count, `${r.name} ${t.name} w=${w}`);
          continue;
        }
        assert.ok(a.bins.length <= w, `${r.name} ${t.name} w=${w}: ${a.bins.length} bins`);
        const sum = (k) => a.bins.reduce((n, b) => n + b[k], 0);
        assert.equal(sum('busy'), t.busy_time, `${r.name} ${t.name} w=${w}: busy`);
        assert.equal(sum('count'), t.event_count, `${r.name} ${t.name} w=${w}: count`);
        for (const b of a.bins) assert.ok(b.busy <= b.end - b.start && b.start >= a.start && b.end <= a.end);
      }
    }
  }
});

test('a narrow window returns exactly the overlapping events; a wide one bins their busy time', async () => {
  for (const r of runs) {
    const gpu = (await tracks(r)).filter((x) => x.kind === 'gpu_stream');
    for (const t of gpu) {
      const raw = r.streams.get(`${t.device_id}/${t.stream_id}`);
      const shift = t.first_start - raw[0].start; // the dldb's clock: the trace's, moved
      const events = raw.map((x) => ({ start: x.start + shift, dur: x.dur }));
      // windows cut through events: from inside one event to inside another
      const picks = [0, Math.floor(events.length / 3), Math.floor(events.length / 2), events.length - 1];
      for (const i of picks) {
        const j = Math.min(events.length - 1, i + 5);
        const s = events[i].start + Math.floor(events[i].dur / 2);
        const e = events[j].start + Math.max(1, Math.floor(events[j].dur / 2));
        if (e <= s) continue;
        const want = events.filter((x) => overlaps(x, s, e));
        const a = await get(windowUrl(r, t, s, e, 10000));
        assert.deepEqual(a.events.map((x) => ({ start: x.start, dur: x.dur })), want,
          `${r.name} ${t.name} [${s}, ${e})`);
        const b = await get(windowUrl(r, t, s, e, 1));
        if (b.bins) assert.equal(b.bins.reduce((n, x) => n + x.busy, 0), busy(want, s, e));
      }
    }
  }
});

test('bad parameters are 400, an unknown track 404', async () => {
  const r = runs[0];
  const bad = ['start=0&end=10', 'track_id=1&end=10', 'track_id=1&start=5&end=5',
    'track_id=x&start=0&end=1', 'track_id=1&start=0&end=1&width=0', 'track_id=1&start=0&end=1&width=10001'];
  for (const q of bad) {
    const res = await fetch(new URL(`/api/v1/dl_timeline?run=${r.run}&${q}`, v.url));
    assert.equal(res.status, 400, q);
    await res.body?.cancel();
  }
  const res = await fetch(new URL(`/api/v1/dl_timeline?run=${r.run}&track_id=100000&start=0&end=1`, v.url));
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

test('windows read from stored bins: busy time and count exact, any place and width', async (t) => {
  const gen = runs.find((r) => r.generated);
  if (!gen) return t.skip('NSYS_GEN not set');
  const all = await tracks(gen);
  assert.ok(all.some((x) => x.levels > 0), 'the generated run has stored bins');
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const tr of all.filter((x) => x.kind === 'gpu_stream')) {
    const raw = gen.streams.get(`${tr.device_id}/${tr.stream_id}`);
    const shift = tr.first_start - raw[0].start;
    const events = raw.map((x) => ({ start: x.start + shift, dur: x.dur }));
    const span = tr.last_end - tr.first_start;
    const windows = [[tr.first_start, tr.last_end + 1], [tr.first_start - span, tr.last_end + span]];
    for (let i = 0; i < 12; i++) {
      const len = Math.max(2, Math.floor(span * (0.3 + 0.7 * rand())));
      const s = tr.first_start + Math.floor((span - len) * rand());
      windows.push([s, s + len]);
    }
    for (const [s, e] of windows) {
      const want = events.filter((x) => overlaps(x, s, e));
      for (const w of [1, 7, 500, 1500]) {
        const a = await get(windowUrl(gen, tr, s, e, w));
        const at = `${tr.name} [${s}, ${e}) w=${w}`;
        if (want.length <= w) {
          assert.equal(a.events.length, want.length, at);
          continue;
        }
        assert.ok(a.bins.length <= w, `${at}: ${a.bins.length} bins`);
        assert.equal(a.bins.reduce((n, b) => n + b.busy, 0), busy(want, s, e), `${at}: busy`);
        assert.equal(a.bins.reduce((n, b) => n + b.count, 0), want.length, `${at}: count`);
        for (const b of a.bins) {
          assert.ok(b.busy <= b.end - b.start && b.start >= s && b.end <= e && b.start < b.end, at);
          if (b.count) assert.equal(typeof b.name, 'string', at);
        }
      }
    }
  }
  // every track with bins: the whole track's bins add up to its own sums
  for (const tr of all.filter((x) => x.levels > 0)) {
    const a = await get(windowUrl(gen, tr, tr.first_start, tr.last_end + 1, 300));
    assert.equal(a.bins.reduce((n, b) => n + b.busy, 0), tr.busy_time, `${tr.name}: busy`);
    assert.equal(a.bins.reduce((n, b) => n + b.count, 0), tr.event_count, `${tr.name}: count`);
  }
});

test('an event\'s details and its call-to-kernel links', async () => {
  let checked = 0;
  for (const r of runs.filter((x) => !x.name.startsWith('dlprof/'))) {
    const gpu = (await tracks(r)).filter((x) => x.kind === 'gpu_stream');
    for (const t of gpu) {
      const mid = Math.floor((t.first_start + t.last_end) / 2);
      const a = await get(windowUrl(r, t, mid, t.last_end + 1, 10000));
      for (const e of (a.events || []).filter((x) => x.category === 'kernel').slice(0, 5)) {
        const d = await get(`/api/v1/dl_timeline_event?run=${r.run}&category=kernel&event_id=${e.event_id}`);
        const k = d.details;
        assert.deepEqual([k.start, k.dur, k.name, k.device_id, k.stream_id],
          [e.start, e.dur, e.name, t.device_id, t.stream_id], `${r.name} kernel ${e.event_id}`);
        for (const f of ['grid_x', 'grid_y', 'grid_z', 'block_x', 'block_y', 'block_z'])
          assert.ok(Number.isInteger(k[f]) && k[f] >= 0, `${r.name}: ${f}`);
        const call = d.links.find((l) => l.role === 'call' && l.event_id !== null);
        if (!call) continue;
        const c = await get(`/api/v1/dl_timeline_event?run=${r.run}&category=cuda_api&event_id=${call.event_id}`);
        assert.equal(c.details.correlation_id, k.correlation_id, `${r.name}: the call's correlation`);
        assert.equal(c.details.pid, k.pid);
        assert.ok(c.details.start <= k.start, `${r.name}: the call starts before its kernel`);
        assert.ok(c.links.some((l) => l.role === 'kernel' && l.event_id === e.event_id && l.track_id === t.track_id),
          `${r.name}: the call links back to kernel ${e.event_id}`);
        const w = await get(windowUrl(r, { track_id: call.track_id }, call.start, call.start + 1, 100));
        assert.ok(w.events.some((x) => x.event_id === call.event_id), `${r.name}: the call is on its track`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 10, `${checked} kernels with their call`);
  const r = runs[0];
  for (const q of ['category=kernel', 'category=x&event_id=1', 'event_id=1', 'category=kernel&event_id=-1']) {
    const res = await fetch(new URL(`/api/v1/dl_timeline_event?run=${r.run}&${q}`, v.url));
    assert.equal(res.status, 400, q);
    await res.body?.cancel();
  }
  const res = await fetch(new URL(`/api/v1/dl_timeline_event?run=${r.run}&category=kernel&event_id=999999999`, v.url));
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

/** A window's answer as bytes, from the viewer at base. */
async function body(base, path) {
  const res = await fetch(new URL(path, base));
  assert.equal(res.status, 200, path);
  return Buffer.from(await res.arrayBuffer());
}

test('windows come from the answer cache: the same bytes as without it, each window its own', async () => {
  const dir = join(work, 'timeline');
  const live = join(dir, 'cache-live.sqlite');
  copyFileSync(runs[0].path, live);
  const c = await startViewer(live);
  const plain = await startViewer(live, ['--cache-mb', '0']);
  try {
    const all = (await (await fetch(new URL('/api/v1/dl_timeline_tracks?limit=1000', c.url))).json()).rows;
    const t = all.find((x) => x.kind === 'gpu_stream' && x.event_count > 1000);
    const u = all.find((x) => x.kind !== 'gpu_stream' && x.event_count > 0);
    assert.ok(t && u, 'a GPU stream of over 1000 events and another track');
    const mid = Math.floor((t.first_start + t.last_end) / 2);
    const q = (tr, s, e, w) => `/api/v1/dl_timeline?track_id=${tr.track_id}&start=${s}&end=${e}&width=${w}`;
    // a window, then each of its parameters changed alone; the default width spelled out
    const windows = [q(t, t.first_start, t.last_end + 1, 64), q(t, t.first_start, t.last_end + 1, 65),
      q(t, mid, t.last_end + 1, 64), q(t, t.first_start, mid, 64), q(u, t.first_start, t.last_end + 1, 64),
      `/api/v1/dl_timeline?track_id=${t.track_id}&start=${mid}&end=${t.last_end + 1}`,
      q(t, mid, t.last_end + 1, 1000)];
    const first = [];
    for (const w of windows) {
      const a = await body(c.url, w);
      assert.deepEqual(await body(c.url, w), a, `${w}: asked again`);
      assert.deepEqual(await body(plain.url, w), a, `${w}: --cache-mb 0`);
      first.push(a);
    }
    // the windows that differ differ in their events or bins, not only in what they echo
    const content = (b) => JSON.stringify({ ...JSON.parse(b), track_id: 0, start: 0, end: 0, width: 0 });
    for (let i = 1; i < 5; i++) assert.notEqual(content(first[i]), content(first[0]), windows[i]);
    // the server does not watch the file for writes in place (it is served
    // read-only and replaced by a rename): the windows asked before come from
    // the cache, a viewer without it reads the change
    execFileSync('sqlite3', [live, `DELETE FROM dl_timeline_blocks WHERE track_id = ${t.track_id}`]);
    assert.deepEqual(await body(c.url, windows[0]), first[0], 'cached');
    assert.notDeepEqual(await body(plain.url, windows[0]), first[0], 'read anew');
    // a file renamed over it: the cached windows are gone
    const tmp = join(dir, 'cache-live.tmp');
    copyFileSync(runs[0].path, tmp);
    execFileSync('sqlite3', [tmp, `DELETE FROM dl_timeline_blocks WHERE track_id = ${t.track_id}`]);
    renameSync(tmp, live);
    const after = await body(c.url, windows[2]);
    assert.notDeepEqual(after, first[2], 'served from the replaced file');
    assert.deepEqual(after, await body(plain.url, windows[2]));
  } finally {
    assert.equal((await c.stop()).code, 0);
    assert.equal((await plain.stop()).code, 0);
  }
});
