// browser.mjs - what the page benchmarks share: headless Chromium from
// tests/node_modules (playwright-core) with a throwaway profile folder, and
// the line that states a run's median, worst and best.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'package.json'));
const { chromium } = require('playwright-core');

/** Launches Chromium; close() shuts it and removes its profile folder.
 * Each newContext() is fresh (no cache, no cookies); playwright manages
 * the context's profile itself (it refuses --user-data-dir in launch()). */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'dl-bench-'));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    env: { ...process.env, HOME: profile, XDG_CONFIG_HOME: profile, XDG_CACHE_HOME: profile },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  browser.closeAll = async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return browser;
}

/** Milliseconds as seconds with three decimals. */
export const fmt = (ms) => `${(ms / 1000).toFixed(3)} s`;

/** "median M, worst W, best B" of the times (ms). */
export function spread(times) {
  const v = [...times].sort((a, b) => a - b);
  return `median ${fmt(v[Math.floor(v.length / 2)])}, worst ${fmt(v[v.length - 1])}, best ${fmt(v[0])}`;
}
