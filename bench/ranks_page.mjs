// Times the Ranks page in headless Chromium, in a fresh browser context
// each run (cold cache), from navigation start: "shown", until the spread,
// the first rows of the ranks table (the outliers: 128, or every rank when
// fewer), the heatmap and the collectives are drawn; "complete", until the
// table holds every rank's row (the page adds the others in later tasks).
// Usage: node bench/ranks_page.mjs URL RANKS [RUNS]
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'package.json'));
const { chromium } = require('playwright-core');

const url = process.argv[2];
const ranks = Number(process.argv[3]);
const runs = Number(process.argv[4] || 5);
const profile = mkdtempSync(join(tmpdir(), 'dl-bench-'));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  env: { ...process.env, HOME: profile, XDG_CONFIG_HOME: profile, XDG_CACHE_HOME: profile },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const times = [];
const firsts = [];
try {
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${url}/#/ranks`);
    await page.waitForFunction(
      (n) => document.querySelectorAll('#ranks-table tbody tr').length >= Math.min(n, 128) &&
             document.querySelector('#ranks-colls') !== null &&
             (document.querySelector('#ranks-heat') || {}).width > 0,
      ranks, { timeout: 60000, polling: 'raf' });
    const shown = await page.evaluate(() => performance.now());
    await page.waitForFunction(
      (n) => document.querySelectorAll('#ranks-table tbody tr').length === n,
      ranks, { timeout: 60000, polling: 'raf' });
    const ms = await page.evaluate(() => performance.now());
    if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
    times.push(ms);
    firsts.push(shown);
    await ctx.close();
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
firsts.sort((a, b) => a - b);
const fmt = (x) => `${(x / 1000).toFixed(3)} s`;
const line = (v) => `median ${fmt(v[Math.floor(runs / 2)])}, worst ${fmt(v[runs - 1])}, best ${fmt(v[0])}`;
console.log(`Ranks page with ${ranks} ranks (${runs} cold loads): shown ${line(firsts)}; ` +
            `every row ${line(times)}`);
