// Times the Ranks page in headless Chromium, in a fresh browser context
// each run (cold cache), from navigation start: "shown", until the spread,
// the first rows of the ranks table (the outliers: 128, or every rank when
// fewer), the heatmap and the collectives are drawn; "complete", until the
// table holds every rank's row (the page adds the others in later tasks).
// Usage: node bench/ranks_page.mjs URL RANKS [RUNS]
import { launch, spread } from './browser.mjs';

const url = process.argv[2];
const ranks = Number(process.argv[3]);
const runs = Number(process.argv[4] || 5);
const browser = await launch();
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
  await browser.closeAll();
}
console.log(`Ranks page with ${ranks} ranks (${runs} cold loads): shown ${spread(firsts)}; ` +
            `every row ${spread(times)}`);
