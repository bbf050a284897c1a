// startup.test.mjs - how dlprofviewer starts and stops: exit 1 with one clear
// line for each database it cannot serve and for a port already taken,
// exit 2 with the usage for bad options, exit 0 on SIGINT/SIGTERM. Nothing
// on stdout unless it serves. Cases that need ../shared are skipped where
// it is absent. Run: node tests/server/startup.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { work, noRelu, nsysExport, runToExit, startViewer, makeMini } from './viewer.mjs';

/** Expects exit 1, no stdout, and one stderr line naming path with words. */
async function refuses(path, words) {
  const r = await runToExit(['--port', '0', path]);
  assert.equal(r.code, 1, `${path}: exit ${r.code} ${r.signal}\n${r.stderr}`);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0].startsWith('dlprofviewer: '), lines[0]);
  assert.ok(lines[0].includes(path), lines[0]);
  assert.ok(lines[0].includes(words), `"${lines[0]}" lacks "${words}"`);
}

test('a missing file is refused and not created', async () => {
  const p = join(work, 'startup-missing.sqlite');
  await refuses(p, 'no such file');
  assert.equal(existsSync(p), false);
});

test('a directory is served as a folder of runs, even without a dldb yet', async () => {
  const dir = join(work, 'startup-empty-folder');
  mkdirSync(dir, { recursive: true });
  const v = await startViewer(dir);
  const health = await fetch(`${v.url}api/v1/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok', runs: 0 });
  const info = await fetch(`${v.url}api/v1/info`);
  assert.equal(info.status, 404);
  assert.equal((await info.json()).error.code, 'run_not_found');
  // the page's start request answers, so a page opened on the folder sees no failed request
  const start = await fetch(`${v.url}api/v1/dl_start`);
  assert.equal(start.status, 200);
  assert.deepEqual(await start.json(), { run: null, info: null, version: null, reports: [], system_config: null, gpu_names: [] });
  const e = await v.stop();
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stderr, /serving the dldbs of 1 path/);
});

test('a file that is not SQLite is refused', async () => {
  const p = join(work, 'startup-text.sqlite');
  writeFileSync(p, 'gpu_time,op\n'.repeat(20));
  await refuses(p, 'file is not a database');
});

test('an empty file and an SQLite file without tables are refused', async () => {
  const zero = join(work, 'startup-zero.sqlite');
  writeFileSync(zero, '');
  await refuses(zero, 'empty file');
  const none = join(work, 'startup-notables.sqlite');
  writeFileSync(none, '');
  execFileSync('sqlite3', [none, 'CREATE TABLE t(x); DROP TABLE t;']);
  await refuses(none, 'no tables');
});

test('an Nsight Systems export is refused with the command that converts it', async (t) => {
  if (!existsSync(nsysExport)) return t.skip(`${nsysExport} is absent`);
  await refuses(nsysExport, `is an Nsight Systems export, not a dldb; convert it with dlprof --database=${nsysExport}`);
});

test('a truncated dldb is refused', async (t) => {
  if (!existsSync(noRelu)) return t.skip(`${noRelu} is absent`);
  const p = join(work, 'startup-truncated.sqlite');
  const bytes = readFileSync(noRelu);
  writeFileSync(p, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await refuses(p, 'damaged or truncated');
});

test('old, new and empty dldbs are refused with DLProf\'s advice', async () => {
  await refuses(makeMini('startup-old.sqlite', 'DROP VIEW view_db_version;'), 'older, unsupported version');
  await refuses(makeMini('startup-new.sqlite', "UPDATE db_version SET current_version = '2.0.0';"), "'2.0.0'");
  await refuses(makeMini('startup-noaggr.sqlite', 'DELETE FROM aggregations;'), 'nothing to show');
});

test('a port already taken is refused', async () => {
  const db = makeMini('startup-port.sqlite');
  const first = await startViewer(db);
  try {
    const r = await runToExit(['--port', String(first.port), db]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trimEnd(), `dlprofviewer: cannot listen on 127.0.0.1:${first.port}: address already in use`);
  } finally {
    const e = await first.stop();
    assert.equal(e.code, 0, e.stderr);
  }
});

test('the database file is left as it was', async (t) => {
  if (!existsSync(noRelu)) return t.skip(`${noRelu} is absent`);
  const before = statSync(noRelu);
  const bytes = readFileSync(noRelu);
  const v = await startViewer(noRelu);
  assert.equal((await (await fetch(`${v.url}api/v1/health`)).json()).status, 'ok');
  const e = await v.stop('SIGINT');
  assert.equal(e.code, 0, e.stderr);
  const now = statSync(noRelu);
  assert.equal(now.mtimeMs, before.mtimeMs);
  assert.deepEqual(readFileSync(noRelu), bytes);
  for (const ext of ['-journal', '-wal', '-shm']) assert.equal(existsSync(noRelu + ext), false);
});

test('a database removed while serving answers 500 db_error', async () => {
  const db = makeMini('startup-removed.sqlite');
  const v = await startViewer(db);
  try {
    execFileSync('rm', [db]);
    for (const path of ['api/v1/health', 'api/v1/op_nodes']) {
      const res = await fetch(v.url + path);
      assert.equal(res.status, 500);
      const body = await res.json();
      assert.equal(body.error.code, 'db_error');
      assert.match(body.error.message, /cannot be found/);
    }
  } finally {
    const e = await v.stop();
    assert.equal(e.code, 0, e.stderr);
  }
});

test('options: usage errors exit 2, --version and --help exit 0', async () => {
  const db = join(work, 'startup-any.sqlite');
  for (const args of [[], ['--port'], ['--port', 'x', db], ['--port', '70000', db], ['--bogus', db],
    ['--bind', '::1', db], ['--bind', 'not-an-address', db], [db, db]]) {
    const r = await runToExit(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^dlprofviewer: .*\nusage: dlprofviewer /);
  }
  const ver = await runToExit(['--version']);
  assert.equal(ver.code, 0);
  assert.equal(ver.stdout, 'dlprofviewer 0.1.0\n');
  const help = await runToExit(['-h']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: dlprofviewer \[-b\|--bind ADDR\] \[-p\|--port PORT\] \[--token T \| --no-token\]\n +\[--cache-mb MB\] \[--version\] \[-h\|--help\] DLDB\n/);
});

test('it prints exactly one line and stops cleanly on SIGTERM and SIGINT', async () => {
  const db = makeMini('startup-signals.sqlite');
  for (const sig of ['SIGTERM', 'SIGINT']) {
    const v = await startViewer(db, ['--bind', 'localhost']);
    const e = await v.stop(sig);
    assert.equal(e.code, 0, e.stderr);
    assert.match(v.stdout(), /^dlprofviewer running at http:\/\/127\.0\.0\.1:\d+\/\n$/);
  }
});
