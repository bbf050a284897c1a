// Times the Ranks page in headless Chromium, from navigation start:
// "shown", until the spread, the first rows of the ranks table (the
// outliers: 40, or every rank when fewer), the heatmap and the collectives
// are drawn; "every row", until every rank's row is in the table or, in a
// job of more than 128 ranks, where the table draws the rows in view,
// reachable by scrolling it (data-complete). Cold: a fresh browser context each run
// (no HTTP cache); warm: the same context loads the page again (the page's
// files from its cache; the server has answered the same requests before).
// Usage: node bench/ranks_page.mjs URL RANKS [RUNS]
import { launch, spread } from './browser.mjs';

const url = process.argv[2];
const ranks = Number(process.argv[3]);
const runs = Number(process.argv[4] || 5);
const browser = await launch();

/** Loads the page in page; returns [shown, every row] in ms from navigation start. */
async function once(page) {
  const errors = [];
  const onConsole = (m) => { if (m.type() === 'error') errors.push(m.text()); };
  page.on('console', onConsole);
  await page.goto('about:blank');
  await page.goto(`${url}/#/ranks`);
  await page.waitForFunction(
    (n) => document.querySelectorAll('#ranks-table tbody tr[data-rank]').length >= Math.min(n, 40) &&
           document.querySelector('#ranks-colls') !== null &&
           (document.querySelector('#ranks-heat') || {}).width > 0,
    ranks, { timeout: 60000, polling: 'raf' });
  const shown = await page.evaluate(() => performance.now());
  await page.waitForFunction(
    (n) => document.querySelector('#ranks-table[data-complete]') !== null &&
           (n > 128 || document.querySelectorAll('#ranks-table tbody tr[data-rank]').length === n),
    ranks, { timeout: 60000, polling: 'raf' });
  const all = await page.evaluate(() => performance.now());
  page.off('console', onConsole);
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
  return [shown, all];
}

const t = { cold: [[], []], warm: [[], []] };
try {
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    for (const kind of ['cold', 'warm']) {
      const [shown, all] = await once(page);
      t[kind][0].push(shown);
      t[kind][1].push(all);
    }
    await ctx.close();
  }
} finally {
  await browser.closeAll();
}
for (const kind of ['cold', 'warm'])
  console.log(`Ranks page with ${ranks} ranks (${runs} ${kind} loads): shown ${spread(t[kind][0])}; ` +
              `every row ${spread(t[kind][1])} (in order: ` +
              `${t[kind][1].map((ms) => (ms / 1000).toFixed(3)).join(', ')} s)`);
