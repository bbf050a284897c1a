// Times the Ranks page in headless Chromium: from navigation start until
// its table holds every rank's row and the collectives are drawn, in a
// fresh browser context each run (cold cache).
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
try {
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${url}/#/ranks`);
    await page.waitForFunction(
      (n) => document.querySelectorAll('#ranks-table tbody tr').length === n &&
             document.querySelector('#ranks-colls') !== null,
      ranks, { timeout: 60000 });
    const ms = await page.evaluate(() => performance.now());
    if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
    times.push(ms);
    await ctx.close();
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
const fmt = (x) => `${(x / 1000).toFixed(3)} s`;
console.log(`Ranks page with ${ranks} ranks (${runs} cold loads): median ${fmt(times[Math.floor(runs / 2)])}, ` +
            `worst ${fmt(times[runs - 1])}, best ${fmt(times[0])}`);
