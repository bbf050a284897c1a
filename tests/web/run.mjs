// run.mjs - runs the browser tests under ctest.
//
// Usage: node tests/web/run.mjs [test files...]
// Needs DLPROFVIEWER (the built server), DL_SHARED_DIR (../shared with the
// real DLProf databases), Debian's /usr/bin/chromium and the tests' npm
// packages (npm ci --prefix tests). Exits 77 (ctest: skipped), naming what
// is missing, when the shared traces or Chromium are absent.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const SKIP = 77;

function skip(why) {
  console.log(`SKIP: ${why}`);
  process.exit(SKIP);
}

const shared = process.env.DL_SHARED_DIR || '';
const db = path.join(shared, 'traces/dlprof/no_relu/dlprof_dldb.sqlite');
if (!shared || !fs.existsSync(db)) skip(`the shared DLProf database is missing: ${db} (set DL_SHARED_DIR to the shared/ folder)`);
const chromium = process.env.DL_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromium)) skip(`Chromium is not installed at ${chromium} (apt-get install chromium)`);
const bin = process.env.DLPROFVIEWER || '';
if (!bin || !fs.existsSync(bin)) {
  console.error(`FAIL: DLPROFVIEWER must name the built dlprofviewer binary (got '${bin}')`);
  process.exit(1);
}
try {
  createRequire(path.join(here, 'x.js')).resolve('playwright-core');
} catch {
  console.error(`FAIL: playwright-core is not installed: run 'npm ci --prefix ${path.dirname(here)}'`);
  process.exit(1);
}
if (spawnSync('sqlite3', ['-version']).status !== 0) {
  console.error('FAIL: the sqlite3 command-line tool is needed (apt-get install sqlite3)');
  process.exit(1);
}

const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : fs
      .readdirSync(here)
      .filter((f) => f.endsWith('.test.mjs'))
      .sort()
      .map((f) => path.join(here, f));

const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit', env: process.env });
process.exit(r.status === null ? 1 : r.status);
