// reference.mjs - what the timeline tests compute from a trace's own
// events to compare with the server's answers: the busy time (the union's
// length), which events overlap a window and a window's URL; and the
// viewer's checked GET and stop.
import assert from 'node:assert/strict';

/** The union's length of events [{start, dur}] sorted by start, clipped to [s, e). */
export function busy(events, s = -Infinity, e = Infinity) {
  let total = 0;
  let cs = 0;
  let ce = -Infinity;
  for (const x of events) {
    const a = Math.max(x.start, s);
    const b = Math.min(x.start + x.dur, e);
    if (a >= b) continue;
    if (a > ce) {
      if (ce > cs) total += ce - cs;
      cs = a;
      ce = b;
    } else if (b > ce) ce = b;
  }
  if (ce > cs) total += ce - cs;
  return total;
}

/** Whether event x overlaps [s, e); an instant at s counts. */
export const overlaps = (x, s, e) => x.start < e && (x.start + x.dur > s || (x.dur === 0 && x.start >= s));

/** The dl_timeline request of track t of run r for [s, e) at width w. */
export const windowUrl = (r, t, s, e, w) =>
  `/api/v1/dl_timeline?run=${r.run}&track_id=${t.track_id}&start=${s}&end=${e}&width=${w}`;

/** GET path from the viewer v (startViewer): its JSON, asserting a 200. */
export async function getOk(v, path) {
  const res = await fetch(new URL(path, v.url));
  const json = await res.json();
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(json)}`);
  return json;
}

/** Stops the viewer v if it started, asserting it exited 0. */
export async function stopOk(v) {
  if (!v) return;
  const e = await v.stop();
  assert.equal(e.code, 0, `dlprofviewer exit: ${e.code} ${e.signal}\n${e.stderr}`);
}
