// Times the Timeline page's whole-profile view in headless Chromium: from
// navigation start until every visible track's window is drawn (the page's
// performance mark timeline:drawn, set with the canvas's data-loaded once
// all its track requests are answered and drawn).
// Cold: a fresh browser context each run (no HTTP cache). Warm: the same
// context loads the page again (assets cached; the server and the OS have
// read the file before). Prints, per kind, the median, worst and best of
// RUNS, the API requests of one load and the slowest of them.
// Usage: node bench/timeline_page.mjs URL [RUNS]   (URL: the viewer's root)
import { launch, spread } from './browser.mjs';

const root = process.argv[2].replace(/\/$/, '');
const runs = Number(process.argv[3] || 5);
const url = `${root}/#/timeline`;
const browser = await launch();

/** Loads the page in page; returns ms from navigation start to the drawn
 * canvas and the API requests' durations. */
async function once(page) {
  const errors = [];
  const onConsole = (m) => { if (m.type() === 'error') errors.push(m.text()); };
  page.on('console', onConsole);
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('canvas.timeline-canvas[data-loaded]', { timeout: 60000 });
  const r = await page.evaluate(() => ({
    // the page's own mark, set when the last track's window is drawn (the
    // time this evaluate runs adds the browser's and the driver's latency)
    ms: performance.getEntriesByName('timeline:drawn')[0].startTime,
    seen: performance.now(),
    tracks: Number(document.querySelector('canvas.timeline-canvas').dataset.tracks),
    drawMs: Number(document.querySelector('canvas.timeline-canvas').dataset.drawMs),
    draws: Number(document.querySelector('canvas.timeline-canvas').dataset.draws),
    api: performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/'))
      .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime, dur: e.duration })),
    marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith('timeline:')).map((m) => `${m.name} ${m.startTime.toFixed(0)}`),
    all: performance.getEntriesByType('resource').map((e) => `${new URL(e.name).pathname} ${e.startTime.toFixed(0)}+${e.duration.toFixed(0)}`),
    phases: (() => {
      // what a load waits for before the view's first request: the page's
      // files, then the app's start requests
      const res = performance.getEntriesByType('resource');
      const files = res.filter((e) => !e.name.includes('/api/v1/'));
      const api = res.filter((e) => e.name.includes('/api/v1/'));
      const tracks = api.find((e) => e.name.includes('/api/v1/dl_timeline_tracks'));
      return {
        files: Math.max(0, ...files.map((e) => e.responseEnd)),
        start: api.length ? Math.min(...api.map((e) => e.startTime)) : NaN,
        view: tracks ? tracks.startTime : NaN,
      };
    })(),
  }));
  page.off('console', onConsole);
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
  return r;
}

const cold = [];
const warm = [];
const coldPhases = [];
let sample = null;
try {
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const c = await once(page);
    cold.push(c.ms);
    coldPhases.push(c.phases);
    if (process.env.DL_BENCH_VERBOSE) console.log(`cold load ${i + 1}:\n${[...c.all, ...c.marks].join('\n')}`);
    const w = await once(page);
    warm.push(w.ms);
    sample = w;
    await ctx.close();
  }
} finally {
  await browser.closeAll();
}
for (const [name, t] of [['cold', cold], ['warm', warm]])
  console.log(`timeline whole profile drawn (${name}, ${runs} loads): ${spread(t)}`);
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(0);
console.log(`cold loads, medians: page files in by ${med(coldPhases.map((p) => p.files))} ms, first API request at ` +
            `${med(coldPhases.map((p) => p.start))} ms, the view's first request (dl_timeline_tracks) at ${med(coldPhases.map((p) => p.view))} ms, ` +
            `drawn at ${med(cold)} ms`);
const tl = sample.api.filter((a) => a.path === '/api/v1/dl_timeline');
const slow = [...sample.api].sort((a, b) => b.dur - a.dur).slice(0, 3);
if (process.env.DL_BENCH_VERBOSE) console.log([...sample.all, ...sample.marks].join('\n'));
console.log(`one warm load: drawn at ${sample.ms.toFixed(0)} ms, seen by the driver at ${sample.seen.toFixed(0)} ms; ${sample.tracks} tracks, ${sample.draws} draws in ${sample.drawMs} ms, ${sample.api.length} API requests (${tl.length} dl_timeline); ` +
            `slowest: ${slow.map((a) => `${a.path} ${a.dur.toFixed(0)} ms`).join(', ')}`);
