// Times the dashboard in headless Chromium: from navigation start until the
// page marks itself fully rendered (every panel drawn: html[data-rendered]
// becomes "dashboard"), in a fresh browser context each run (cold cache).
// Usage: node bench/dashboard_render.mjs URL [RUNS]
import { launch, spread } from './browser.mjs';

const url = process.argv[2];
const runs = Number(process.argv[3] || 5);
const browser = await launch();
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
  await browser.closeAll();
}
console.log(`dashboard fully rendered (${runs} cold loads): ${spread(times)}`);
