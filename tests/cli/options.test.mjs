// dlprof's command line against DLProf 1.8's options: each is accepted (none
// gives "unknown option"), --output_path is created with its parents,
// --dump_model_data writes JSON whose counts are the views', --domains
// aggregates each NVTX domain listed, and the Nsight Systems and TensorBoard
// options say in one line what they do here. Real Nsight Systems export from
// ../shared/traces (skipped, exit 77, when absent); the dlprof APP cases run
// tests/collector's nvtx_test_app when NVTX_TEST_APP names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DLPROF = process.env.DLPROF;
const APP = process.env.NVTX_TEST_APP || '';
const TRACES = join(process.env.DL_SHARED_DIR || '', 'traces');
if (!existsSync(TRACES)) {
  console.log(`SKIP: ${TRACES} not found (the shared traces)`);
  process.exit(77);
}
const EXPORT = join(TRACES, 'dlprof/w_Relu/nsys_profile.sqlite');

function dlprof(args, cwd) {
  return spawnSync(DLPROF, args, { cwd, encoding: 'utf8' });
}
function sql(db, query) {
  const out = execFileSync('sqlite3', ['-json', `file:${db}?mode=ro`, query], { encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : [];
}
function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'dlprof-opts-'));
  try { fn(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}
const lines = (s) => s.split('\n').filter((l) => l);

// DLProf 1.8's options (docs/compat.md "Command-line options"), with a value
// each; the earlier names DLProf still took are listed too.
const DLPROF_OPTIONS = [
  ['--mode', 'pytorch'], ['--reports', 'summary'], ['--formats', 'csv'],
  ['--file_formats', 'csv'], ['--output_path', 'out/sub'], ['--profile_name', 'p'],
  ['--base_name', 'p'], ['--dump_model_data', 'false'], ['--domains', 'default-domain'],
  ['--iter_start', '0'], ['--iter_stop', '3'], ['--key_op', 'conv2d'], ['--key_node', 'conv2d'],
  ['--delay', '0'], ['--duration', '0'], ['--force', 'true'],
  ['--nsys_options', '-t cuda,nvtx -s none'], ['--nsys_opts', '-t cuda,nvtx -s none'],
  ['--nsys_base_name', 'nsys_profile'], ['--nsys_profile_range', 'false'],
  ['--detailed_mode', 'false'], ['--tb_dir', 'tb'], ['--verbosity', 'normal'],
  ['--nsys_database', 'MISSING'], ['--database', 'MISSING'],
];

test('every DLProf 1.8 option is accepted, as --name=value and --name value', () => {
  withDir((dir) => {
    const missing = join(dir, 'no-such-trace.sqlite');
    for (const [name, v] of DLPROF_OPTIONS) {
      const value = v === 'MISSING' ? missing : v;
      for (const args of [[`${name}=${value}`], [name, value]]) {
        const r = dlprof([...args, `--database=${missing}`], dir);
        assert.doesNotMatch(r.stderr, /unknown option/, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /no-such-trace\.sqlite/, `${args.join(' ')}: ${r.stderr}`);
      }
    }
    for (const flag of ['--help', '-h', '--version', '-V']) {
      const r = dlprof([flag], dir);
      assert.equal(r.status, 0, flag);
      assert.doesNotMatch(r.stderr, /unknown option/, flag);
    }
    // the test itself tells an unknown option from a known one
    const r = dlprof(['--no_such_option=1', `--database=${missing}`], dir);
    assert.match(r.stderr, /unknown option '--no_such_option=1'/);
  });
});

test('--output_path is created with its parents for --database', () => {
  withDir((dir) => {
    const r = dlprof(['-v', 'quiet', '--output_path=a/b/c', `--database=${EXPORT}`], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(statSync(join(dir, 'a/b/c')).isDirectory());
    assert.ok(existsSync(join(dir, 'a/b/c/dlprof_dldb.sqlite')));
    assert.ok(existsSync(join(dir, 'a/b/c/dlprof_summary.csv')));
    const mode = statSync(join(dir, 'a/b')).mode & 0o777;
    assert.equal(mode, 0o777 & ~process.umask(), `mode ${mode.toString(8)}`);
  });
});

test('an --output_path that cannot be created: one line naming it, exit 1', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'file'), 'x');
    const r = dlprof(['--output_path=file/sub/out', `--database=${EXPORT}`], dir);
    assert.equal(r.status, 1);
    assert.equal(lines(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /^dlprof: --output_path: cannot create file: .*file\/sub\/out/);
  });
});

test('--dump_model_data=true: JSON beside the reports, counts equal to the views', () => {
  withDir((dir) => {
    const r = dlprof(['-v', 'quiet', '--dump_model_data=true', '--output_path=o',
                      `--database=${EXPORT}`], dir);
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'o/dlprof_dldb.sqlite');
    const m = JSON.parse(readFileSync(join(dir, 'o/dlprof_model_data.json'), 'utf8'));
    const aggr = m.aggr_id;
    const ops = sql(db, `select op_node_id, num_calls from view_op_nodes where aggr_id=${aggr}`);
    const kernels = sql(db, `select count(*) n, sum(calls) calls from view_kernel_summaries where aggr_id=${aggr}`)[0];
    const iters = sql(db, `select count(*) n from view_iterations_profiled where aggr_id=${aggr}`)[0];
    assert.ok(ops.length > 0 && kernels.n > 0);
    assert.equal(m.ops.length, ops.length);
    assert.equal(m.ops.reduce((s, o) => s + o.kernels.length, 0), kernels.n);
    assert.equal(m.ops.reduce((s, o) => s + o.kernels.reduce((t, k) => t + k.calls, 0), 0), kernels.calls);
    assert.equal(m.iterations.length, iters.n);
    const calls = Object.fromEntries(ops.map((o) => [o.op_node_id, o.num_calls]));
    for (const o of m.ops) assert.equal(o.calls, calls[o.op_id], o.op_id);
    // without the option, no such file
    const r2 = dlprof(['-v', 'quiet', '--output_path=p', `--database=${EXPORT}`], dir);
    assert.equal(r2.status, 0, r2.stderr);
    assert.ok(!existsSync(join(dir, 'p/dlprof_model_data.json')));
  });
});

test('--nsys_options: one line naming what is ignored and why; bad values refused', () => {
  withDir((dir) => {
    const r = dlprof(['--nsys_options=-t cuda,nvtx,osrt -s none --show-output=true',
                      `--database=${join(dir, 'none.sqlite')}`], dir);
    const note = lines(r.stderr).filter((l) => l.includes('--nsys_options'));
    assert.equal(note.length, 1, r.stderr);
    assert.match(note[0], /ignored: -t osrt \(.*\); --show-output=true \(Nsight Systems is not run/);
    assert.doesNotMatch(note[0], /cuda|nvtx|-s none/);
    const bad = dlprof(['--nsys_opts=-y soon', '--database=x'], dir);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--nsys_options: -y: expected a number of seconds/);
  });
});

test('--tb_dir writes nothing and says why; --detailed_mode=true says shapes are not collected', () => {
  withDir((dir) => {
    const r = dlprof(['--tb_dir=tb', '--detailed_mode=true', '--nsys_base_name=n',
                      `--database=${join(dir, 'none.sqlite')}`], dir);
    assert.match(r.stderr, /^dlprof: --tb_dir: ignored: TensorBoard event files were replaced by dlprofviewer/m);
    assert.match(r.stderr, /^dlprof: --detailed_mode=true: op shapes and data types are not collected yet/m);
    assert.match(r.stderr, /^dlprof: --nsys_base_name: ignored/m);
    assert.ok(!existsSync(join(dir, 'tb')));
    const quiet = dlprof(['--detailed_mode=false', `--database=${join(dir, 'none.sqlite')}`], dir);
    assert.doesNotMatch(quiet.stderr, /detailed_mode/);
  });
});

test('dlprof APP: --output_path created; --domains aggregates each domain, reports per domain', { skip: !APP && 'NVTX_TEST_APP not set' }, () => {
  withDir((dir) => {
    const opsOf = (db) => sql(db, 'select domain_name d, op_node_name n, num_calls c from view_op_nodes order by aggr_id, n');
    const all = dlprof(['-v', 'quiet', '--output_path=x/y/z', '--reports=summary,detail',
                        '--domains=default-domain,dom-one,dom-two', APP, 'domains'], dir);
    assert.equal(all.status, 0, all.stderr);
    const db = join(dir, 'x/y/z/dlprof_dldb.sqlite');
    assert.deepEqual(opsOf(db), [
      { d: 'default-domain', n: 'default-in-between', c: 1 },
      { d: 'dom-one', n: 'registered-name', c: 1 },
      { d: 'dom-two', n: 'two-inner', c: 1 },
      { d: 'dom-two', n: 'two-outer', c: 1 },
    ]);
    for (const d of ['default-domain', 'dom-one', 'dom-two'])
      for (const f of ['summary.csv', 'detailed.csv'])
        assert.ok(existsSync(join(dir, `x/y/z/dlprof_${d}_${f}`)), `${d} ${f}`);
    assert.match(readFileSync(join(dir, 'x/y/z/dlprof_dom-one_detailed.csv'), 'utf8'), /registered-name/);
    assert.doesNotMatch(readFileSync(join(dir, 'x/y/z/dlprof_dom-one_detailed.csv'), 'utf8'), /two-outer/);

    const one = dlprof(['-v', 'quiet', '--output_path=one', '--domains=dom-two', APP, 'domains'], dir);
    assert.equal(one.status, 0, one.stderr);
    assert.deepEqual(opsOf(join(dir, 'one/dlprof_dldb.sqlite')).map((o) => o.d), ['dom-two', 'dom-two']);
    assert.ok(existsSync(join(dir, 'one/dlprof_dom-two_summary.csv')));

    // without --domains: the default domain only, reports named as before
    const def = dlprof(['-v', 'quiet', '--output_path=def', APP, 'domains'], dir);
    assert.equal(def.status, 0, def.stderr);
    assert.deepEqual(opsOf(join(dir, 'def/dlprof_dldb.sqlite')).map((o) => o.d), ['default-domain']);
    assert.ok(existsSync(join(dir, 'def/dlprof_summary.csv')));
  });
});

test('dlprof APP: --nsys_options -c cudaProfilerApi maps to --nsys_profile_range', { skip: !APP && 'NVTX_TEST_APP not set' }, () => {
  withDir((dir) => {
    const r = dlprof(['--output_path=r', '--nsys_options=-c cudaProfilerApi', APP, 'single'], dir);
    assert.equal(r.status, 0); // the application's
    assert.match(r.stderr, /with --nsys_profile_range=true only what happens between cudaProfilerStart/);
  });
});
