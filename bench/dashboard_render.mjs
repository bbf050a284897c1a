// Times the dashboard in headless Chromium: from navigation start until the
// page marks itself fully rendered (every panel drawn: html[data-rendered]
// becomes "dashboard"), in a fresh browser context each run (cold cache).
// Usage: node bench/dashboard_render.mjs URL [RUNS]
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'package.json'));
const { chromium } = require('playwright-core');

const url = process.argv[2];
const runs = Number(process.argv[3] || 5);
// Each run's browser context is fresh (no cache, no cookies); playwright
// manages the profile folder itself (it refuses --user-data-dir in launch()).
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
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.rendered === 'dashboard',
                               null, { timeout: 30000 });
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
console.log(`dashboard fully rendered (${runs} cold loads): median ${fmt(times[Math.floor(runs / 2)])}, ` +
            `worst ${fmt(times[runs - 1])}, best ${fmt(times[0])}`);
