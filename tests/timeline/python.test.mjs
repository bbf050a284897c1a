// python.test.mjs - the Python frames on the timeline, over real HTTP. On
// the PyTorch traces recorded with with_stack=True (TraceLens's H100
// traces: python_function events with "Python id" and "Python parent id")
// the frames are read here from the JSON itself and compared with what
// dlprof stored and dlprofviewer answers: one python_thread track per
// thread with the trace's frame count, busy time (their union) and span;
// narrow windows return exactly the overlapping frames; a frame's details
// are its name and duration, its links its parent frames by the trace's
// parent ids, outermost first; dlprof --export=chrome_trace writes each
// frame as an "X" event of cat python_function; per-rank dldbs merged keep
// every rank's frames; a thread of 6,336 frames (one trace 3 times over,
// bench/kineto_gen.py) has stored bins that add up to its busy time and
// count at any width. A trace without frames
// gets no Python track and no row in dl_python_frames.
// Run: node tests/timeline/python.test.mjs; exits 77 without ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { requireFile, shared, sql, startViewer, work } from '../server/viewer.mjs';
import { busy, getOk, overlaps, stopOk, windowUrl } from './reference.mjs';

const dlprof = process.env.DLPROF;
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const traces = join(shared, 'traces');
const withFrames = [
  'kineto/tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz',
  'kineto/tracelens_h100/Falconsai_nsfw_image_detection__1016002.json.gz',
];
const withoutFrames = 'kineto/hta/trace_diff_control_control.json.gz';
for (const f of [...withFrames, withoutFrames]) requireFile(join(traces, f));

/** The trace's python_function events by thread "pid/tid": [{start, dur, name, id, parent}],
 * ns relative to the first frame. */
function framesOf(path) {
  const bytes = readFileSync(path);
  const trace = JSON.parse((path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
  const py = trace.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'python_function');
  const base = Math.min(...py.map((e) => e.ts));
  const ns = (us) => Math.round(us * 1000);
  const m = new Map();
  for (const e of py) {
    const key = `${e.pid}/${e.tid}`;
    if (!m.has(key)) m.set(key, []);
    const a = e.args || {};
    m.get(key).push({
      start: ns(e.ts - base),
      dur: ns(e.ts - base + e.dur) - ns(e.ts - base),
      name: e.name,
      id: a['Python id'] ?? null,
      parent: a['Python parent id'] ?? null,
    });
  }
  for (const l of m.values()) l.sort((a, b) => a.start - b.start || a.dur - b.dur);
  return { frames: m, total: py.length };
}


const runs = []; // { name, path, run, frames, total, trace }
let v;

before(async () => {
  const dir = join(work, 'timeline_python');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (const [i, f] of [...withFrames, withoutFrames].entries()) {
    const out = join(dir, `in${i}`);
    execFileSync(dlprof, [`--database=${join(traces, f)}`, `--output_path=${out}`, '--export=chrome_trace',
      '--force=true'], { stdio: 'ignore' });
    files.push({ name: f, path: join(out, 'dlprof_dldb.sqlite'), trace: join(out, 'dlprof_trace.json'),
      ...framesOf(join(traces, f)) });
  }
  // the Falconsai trace 3 times over (bench/kineto_gen.py): a thread of 6,336
  // frames, enough for stored bins (db/dldb_tlpack.h DLDB_TL_MIN_EVENTS)
  const gen = join(dir, 'x3.json');
  execFileSync('python3', [join(repo, 'bench', 'kineto_gen.py'), join(traces, withFrames[1]), '3', gen], { stdio: 'ignore' });
  execFileSync(dlprof, [`--database=${gen}`, `--output_path=${join(dir, 'gen')}`, '--force=true'], { stdio: 'ignore' });
  files.push({ name: 'x3', path: join(dir, 'gen', 'dlprof_dldb.sqlite'), generated: true, ...framesOf(gen) });
  v = await startViewer(files[0].path, files.slice(1).map((f) => f.path));
  const list = (await get('/api/v1/runs')).rows;
  for (const f of files) runs.push({ ...f, run: list.find((r) => r.path === f.path).run });
});

after(() => stopOk(v));

const get = (path) => getOk(v, path);

const pyTracks = async (r) =>
  (await get(`/api/v1/dl_timeline_tracks?run=${r.run}&limit=1000`)).rows.filter((t) => t.kind === 'python_thread');

/** The trace's frames of track t, on the dldb's clock. */
function onClock(r, t) {
  const raw = r.frames.get(`${t.pid}/${t.tid}`);
  const shift = t.first_start - raw[0].start;
  return raw.map((x) => ({ ...x, start: x.start + shift }));
}

test('every thread with frames: one python_thread track, its count, busy time and span the trace\'s', async () => {
  for (const r of runs.filter((x) => x.total > 0)) {
    const py = await pyTracks(r);
    assert.deepEqual(py.map((t) => `${t.pid}/${t.tid}`).sort(), [...r.frames.keys()].sort(), `${r.name}: threads`);
    let n = 0;
    for (const t of py) {
      const raw = r.frames.get(`${t.pid}/${t.tid}`);
      assert.equal(t.event_count, raw.length, `${r.name} ${t.name}: event_count`);
      assert.equal(t.busy_time, busy(raw), `${r.name} ${t.name}: busy_time`);
      assert.equal(t.last_end - t.first_start,
        raw.reduce((m, x) => Math.max(m, x.start + x.dur), -Infinity) - raw[0].start, `${r.name} ${t.name}: span`);
      assert.equal(t.name, `Python, thread ${t.tid}`);
      assert.equal(t.device_id, null);
      n += t.event_count;
    }
    assert.equal(n, r.total, `${r.name}: every frame on a track`);
    assert.equal(sql(r.path, 'SELECT COUNT(*) AS n FROM dl_python_frames')[0].n, r.total);
  }
});

test('a trace without frames: no Python track, no frame rows', async () => {
  const r = runs.find((x) => x.name === withoutFrames);
  assert.equal(r.total, 0);
  assert.equal((await pyTracks(r)).length, 0);
  assert.equal(sql(r.path, 'SELECT COUNT(*) AS n FROM dl_python_frames')[0].n, 0);
});

test('the whole track and narrow windows return exactly the overlapping frames', async () => {
  for (const r of runs.filter((x) => x.total > 0)) {
    for (const t of await pyTracks(r)) {
      const frames = onClock(r, t);
      const whole = await get(windowUrl(r, t, t.first_start, t.last_end + 1, 10000));
      assert.deepEqual(whole.events.map((x) => [x.start, x.dur, x.name, x.category]),
        frames.map((x) => [x.start, x.dur, x.name, 'python_function']), `${r.name} ${t.name}: whole`);
      const picks = [0, Math.floor(frames.length / 3), Math.floor(frames.length / 2), frames.length - 1];
      for (const i of picks) {
        const j = Math.min(frames.length - 1, i + 7);
        const s = frames[i].start + Math.floor(frames[i].dur / 2);
        const e = frames[j].start + Math.max(1, Math.floor(frames[j].dur / 2));
        if (e <= s) continue;
        const want = frames.filter((x) => overlaps(x, s, e));
        const a = await get(windowUrl(r, t, s, e, 10000));
        assert.deepEqual(a.events.map((x) => ({ start: x.start, dur: x.dur, name: x.name })),
          want.map((x) => ({ start: x.start, dur: x.dur, name: x.name })), `${r.name} ${t.name} [${s}, ${e})`);
        const b = await get(windowUrl(r, t, s, e, 1));
        if (b.bins) assert.equal(b.bins.reduce((n, x) => n + x.busy, 0), busy(want, s, e));
      }
    }
  }
});

test('a Python track with stored bins: bins add up to its busy time and count at any width', async () => {
  const r = runs.find((x) => x.generated);
  const big = (await pyTracks(r)).filter((t) => t.levels > 0);
  assert.ok(big.length > 0, 'a Python track with stored bins');
  for (const t of big) {
    const frames = onClock(r, t);
    const span = t.last_end - t.first_start;
    const windows = [[t.first_start, t.last_end + 1], [t.first_start + Math.floor(span / 7), t.first_start + Math.floor((span * 5) / 7)]];
    for (const [s, e] of windows) {
      const want = frames.filter((x) => overlaps(x, s, e));
      for (const w of [1, 50, 1000]) {
        const a = await get(windowUrl(r, t, s, e, w));
        const at = `${t.name} [${s}, ${e}) w=${w}`;
        assert.ok(a.bins && a.bins.length <= w, `${at}: bins`);
        assert.equal(a.bins.reduce((n, b) => n + b.busy, 0), busy(want, s, e), `${at}: busy`);
        assert.equal(a.bins.reduce((n, b) => n + b.count, 0), want.length, `${at}: count`);
      }
    }
  }
});

test('a frame\'s details: its name, duration, ids, and its parent frames by the trace\'s parent ids', async () => {
  let checked = 0;
  for (const r of runs.filter((x) => x.total > 0 && !x.generated)) {
    for (const t of await pyTracks(r)) {
      const frames = onClock(r, t);
      const byId = new Map(frames.filter((x) => x.id !== null).map((x) => [x.id, x]));
      const a = await get(windowUrl(r, t, t.first_start, t.last_end + 1, 10000));
      // the deepest frames first: their chains are the longest
      const depth = (x) => (x.parent === null || !byId.has(x.parent) ? 0 : 1 + depth(byId.get(x.parent)));
      const pick = [...frames].sort((x, y) => depth(y) - depth(x) || x.start - y.start).slice(0, 6);
      for (const want of pick) {
        const e = a.events.find((x) => x.start === want.start && x.dur === want.dur && x.name === want.name);
        assert.ok(e, `${r.name}: frame ${want.name} at ${want.start} on its track`);
        const d = await get(`/api/v1/dl_timeline_event?run=${r.run}&category=python_function&event_id=${e.event_id}`);
        assert.deepEqual([d.details.name, d.details.start, d.details.dur, d.details.python_id, d.details.parent_python_id],
          [want.name, want.start, want.dur, want.id, want.parent], `${r.name}: details of ${want.name}`);
        const chain = [];
        for (let p = want.parent; p !== null && byId.has(p); p = byId.get(p).parent) chain.unshift(byId.get(p));
        assert.ok(chain.length >= (depth(want) > 0 ? 1 : 0));
        assert.deepEqual(d.links.map((l) => [l.role, l.category, l.name, l.start, l.dur, l.track_id]),
          chain.map((p) => ['parent', 'python_function', p.name, p.start, p.dur, t.track_id]),
          `${r.name}: parents of ${want.name}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 8, `${checked} frames checked`);
});

test('a folder of per-rank dldbs merged keeps each rank\'s frames and tracks', () => {
  const dir = join(work, 'timeline_python', 'ranks');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'dldbs'), { recursive: true });
  const ranks = runs.filter((x) => x.total > 0 && !x.generated);
  for (const [i, r] of ranks.entries()) copyFileSync(r.path, join(dir, 'dldbs', `rank-${i}.sqlite`));
  execFileSync(dlprof, [`--database=${join(dir, 'dldbs')}`, `--output_path=${join(dir, 'merged')}`, '--force=true'],
    { stdio: 'ignore' });
  const merged = join(dir, 'merged', 'dlprof_dldb.sqlite');
  const got = sql(merged, "SELECT event_count AS n, busy_time AS b FROM view_dl_timeline_tracks WHERE kind = 'python_thread'");
  const want = ranks.flatMap((r) => [...r.frames.values()].map((l) => ({ n: l.length, b: busy(l) })));
  const key = (x) => `${x.n}/${x.b}`;
  assert.deepEqual(got.map(key).sort(), want.map(key).sort());
  assert.equal(sql(merged, 'SELECT COUNT(*) AS n FROM dl_python_frames')[0].n, ranks.reduce((n, r) => n + r.total, 0));
});

test('--export=chrome_trace: every frame an "X" event of cat python_function', () => {
  for (const r of runs) {
    if (r.generated) continue;
    const doc = JSON.parse(readFileSync(r.trace, 'utf8'));
    const got = doc.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'python_function');
    assert.equal(got.length, r.total, `${r.name}: python_function events`);
    const names = new Map();
    for (const l of r.frames.values()) for (const x of l) names.set(x.name, (names.get(x.name) || 0) + 1);
    const gotNames = new Map();
    for (const e of got) gotNames.set(e.name, (gotNames.get(e.name) || 0) + 1);
    assert.deepEqual([...gotNames].sort(), [...names].sort(), `${r.name}: names`);
  }
});
