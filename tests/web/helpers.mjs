// helpers.mjs - shared set-up of the browser tests: a real dlprofviewer on
// a real dldb, Debian's Chromium driven by playwright-core, sqlite3 CLI
// look-ups of expected values, and a watch on console errors and failed
// requests.

import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const SHARED = process.env.DL_SHARED_DIR || '';
export const NO_RELU = path.join(SHARED, 'traces/dlprof/no_relu/dlprof_dldb.sqlite');
/** Real Nsight Systems exports that our dlprof (DLPROF) turns into dldbs. */
export const RELU_EXPORT = path.join(SHARED, 'traces/dlprof/w_Relu/nsys_profile.sqlite');
export const CLOVER_EXPORT = path.join(SHARED, 'traces/nsys/nsys2024.5_a100x4_cloverleaf.sqlite');
/** Real PyTorch Kineto traces, which our dlprof (DLPROF) reads with --database too. */
export const H100_KINETO = path.join(SHARED, 'traces/kineto/tracelens_h100/Falconsai_nsfw_image_detection__1016002.json.gz');
export const DDP_KINETO = path.join(SHARED, 'traces/kineto/hta/trace_diff_control_control.json.gz');
export const CHROMIUM = process.env.DL_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = process.env.DL_WEB_ARTIFACTS || path.join(process.cwd(), 'artifacts');

/** Rows of a read-only query on a database, via the sqlite3 CLI. */
export function sql(db, query) {
  const out = execFileSync('sqlite3', ['-readonly', '-json', db, query], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : [];
}

/** The one value of a one-row, one-column query. */
export function sql1(db, query) {
  const rows = sql(db, query);
  if (!rows.length) throw new Error(`no row for: ${query}`);
  return Object.values(rows[0])[0];
}

/** Runs SQL that changes a (temporary copy of a) database. */
export function sqlWrite(db, script) {
  execFileSync('sqlite3', [db], { input: script, encoding: 'utf8' });
}

/**
 * Starts `dlprofviewer --port 0 DB` and resolves {url, proc, stop()} once it
 * prints "dlprofviewer running at http://HOST:PORT/".
 */
export function startServer(db, extraArgs = []) {
  const bin = process.env.DLPROFVIEWER;
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ['--port', '0', ...extraArgs, db], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errOut = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`dlprofviewer did not start in 15 s; stdout: ${out} stderr: ${errOut}`));
    }, 15000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /dlprofviewer running at (http:\/\/[^\s/]+:\d+)\/?/.exec(out);
      if (m) {
        clearTimeout(timer);
        let url = m[1];
        // A server bound to all interfaces prints its host name: use loopback.
        url = url.replace(/^http:\/\/[^:]+:/, 'http://127.0.0.1:');
        resolve({
          url,
          proc,
          stop: () =>
            new Promise((r) => {
              if (proc.exitCode !== null) return r();
              proc.once('exit', () => r());
              proc.kill('SIGTERM');
              setTimeout(() => proc.kill('SIGKILL'), 3000).unref();
            }),
        });
      }
    });
    proc.stderr.on('data', (d) => {
      errOut += d;
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dlprofviewer exited with ${code}; stdout: ${out} stderr: ${errOut}`));
    });
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Launches headless Chromium with a fresh profile. Returns {browser, close()}. */
export async function launchBrowser() {
  const { chromium } = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    acceptDownloads: false,
  });
  // DL_WEB_API_DELAY_MS: every API answer held back that long, so that a test
  // that reads a page before it has drawn fails here rather than now and then
  const delay = Number(process.env.DL_WEB_API_DELAY_MS || 0);
  if (delay > 0)
    await context.route('**/api/v1/**', async (r) => {
      await new Promise((f) => setTimeout(f, delay));
      await r.continue();
    });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A new page that records console errors, page errors, failed requests and
 * HTTP errors into page.problems (an array of strings).
 */
export async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure() && r.failure().errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  page.problems = problems;
  return page;
}

/** Waits until no table card, panel or view shows a loading state. */
export async function settled(page) {
  await page.waitForFunction(
    () => !document.querySelector('.loading, .is-loading, [aria-busy="true"], tr.placeholder .spinner') && document.querySelector('.view'),
    null,
    { timeout: 15000 },
  );
  // let Chart.js finish its short animations
  await page.waitForTimeout(350);
}

/** Runs our dlprof (env DLPROF) on an Nsight Systems export or a Kineto trace in dir; returns the dldb's path. */
export function dlprofDldb(exportPath, dir, name) {
  if (!fs.existsSync(exportPath)) throw new Error(`missing trace ${exportPath}`);
  const r = spawnSync(process.env.DLPROF, ['--database=' + exportPath, '--profile_name=' + name, '-v', 'quiet'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dlprof ${exportPath} failed (${r.status}): ${r.stderr}`);
  return path.join(dir, `${name}_dldb.sqlite`);
}

/** Copies a database to a fresh temp dir; returns the copy's path. */
export function tempCopy(db, name = 'copy.sqlite') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpv-db-'));
  const dst = path.join(dir, name);
  fs.copyFileSync(db, dst);
  fs.chmodSync(dst, 0o644);
  return dst;
}

/**
 * The set-up of the tests on dldbs dlprof writes: a temporary folder, the
 * dldbs make(dir) returns ({name: path}), a viewer on each and a browser.
 * Returns { dir, dbs, servers (by the same names), browser, stop }; stop()
 * ends the browser and the viewers and removes the folder.
 */
export async function viewersOn(prefix, make) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dlpv-${prefix}-`));
  const v = { dir, dbs: {}, servers: {}, browser: null };
  v.stop = async () => {
    if (v.browser) await v.browser.close();
    for (const s of Object.values(v.servers)) await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  v.dbs = await make(dir);
  for (const [k, db] of Object.entries(v.dbs)) v.servers[k] = await startServer(db);
  v.browser = await launchBrowser();
  return v;
}

/** "1,234" -> 1234 */
export function num(s) {
  return Number(String(s).replace(/[^\d.-]/g, ''));
}

/** Clicks the timeline's Export window button on page and returns the text
 * of the file it hands to the browser (the Blob behind its object URL). */
export async function exportedWindow(page) {
  await page.evaluate(() => {
    window.__blobs = [];
    const orig = URL.createObjectURL;
    URL.createObjectURL = (b) => {
      window.__blobs.push(b);
      return orig(b);
    };
  });
  await page.click('#timeline-export');
  await page.waitForFunction(() => document.querySelector('#timeline-export').dataset.exported !== undefined, null, { timeout: 60000 });
  return page.evaluate(() => window.__blobs[0].text());
}
