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
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
const sorted = (rows) => rows.map((r) => JSON.stringify(r)).sort();

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

test('--tb_dir writes nothing and says why; --nsys_base_name is ignored, saying so', () => {
  withDir((dir) => {
    const r = dlprof(['--tb_dir=tb', '--nsys_base_name=n', `--database=${join(dir, 'none.sqlite')}`], dir);
    assert.match(r.stderr, /^dlprof: --tb_dir: ignored: TensorBoard event files were replaced by dlprofviewer/m);
    assert.match(r.stderr, /^dlprof: --nsys_base_name: ignored/m);
    assert.ok(!existsSync(join(dir, 'tb')));
  });
});

test('--detailed_mode: op shapes and perf models by default and with true; false leaves them out', () => {
  withDir((dir) => {
    const shapes = (name, args) => {
      const r = dlprof(['-v', 'quiet', `--database=${EXPORT}`, `--output_path=${name}`, ...args], dir);
      assert.equal(r.status, 0, r.stderr);
      const db = join(dir, name, 'dlprof_dldb.sqlite');
      return sql(db, "select count(*) n, count(flops) f from view_dl_op_shapes")[0];
    };
    const dflt = shapes('default', []);
    assert.ok(dflt.n > 0 && dflt.f > 0, JSON.stringify(dflt)); // w_Relu's DLProf markers have shapes
    assert.deepEqual(shapes('on', ['--detailed_mode=true']), dflt);
    assert.deepEqual(shapes('off', ['--detailed_mode=false']), { n: 0, f: 0 });
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

  });
});

test('dlprof APP without --domains: every domain with ranges, the default one first', { skip: !APP && 'NVTX_TEST_APP not set' }, () => {
  withDir((dir) => {
    const r = dlprof(['--output_path=def', '--reports=summary,detail', APP, 'domains'], dir);
    assert.equal(r.status, 0, r.stderr);
    const db = join(dir, 'def/dlprof_dldb.sqlite');
    // aggregation 1 is the default domain's, as in a run of one domain; the
    // others follow in the order of their ids in the dldb
    const aggrs = sql(db, 'select aggr_id a, domain_name d from view_performance_summary order by a');
    assert.deepEqual(aggrs[0], { a: 1, d: 'default-domain' });
    assert.deepEqual(aggrs.map((x) => x.d).sort(), ['default-domain', 'dom-one', 'dom-two']);
    assert.deepEqual(sql(db, 'select domain_name d, op_node_name n, num_calls c from view_op_nodes order by d, n'), [
      { d: 'default-domain', n: 'default-in-between', c: 1 },
      { d: 'dom-one', n: 'registered-name', c: 1 },
      { d: 'dom-two', n: 'two-inner', c: 1 },
      { d: 'dom-two', n: 'two-outer', c: 1 },
    ]);
    // each with its own iterations (no key op here: one) and summaries
    for (const { a } of aggrs) {
      assert.equal(sql(db, `select count(*) n from view_iterations_profiled where aggr_id=${a}`)[0].n, 1, `aggr ${a}`);
      assert.equal(sql(db, `select count(*) n from view_op_type_summary where aggr_id=${a}`)[0].n > 0, true, `aggr ${a}`);
    }
    for (const o of ['dom-one', 'dom-two']) assert.match(r.stderr, new RegExp(`^dlprof: aggregating NVTX domain ${o}$`, 'm'));
    // the default domain's reports named as before, the others' as --domains names them
    const detail = (infix) => readFileSync(join(dir, `def/dlprof${infix}_detailed.csv`), 'utf8');
    assert.match(detail(''), /default-in-between/);
    assert.doesNotMatch(detail(''), /registered-name|two-outer/);
    assert.match(detail('_dom-one'), /registered-name/);
    assert.doesNotMatch(detail('_dom-one'), /two-outer|default-in-between/);
    assert.match(detail('_dom-two'), /two-outer/);
    for (const f of ['summary.csv', 'detailed.csv'])
      for (const infix of ['', '_dom-one', '_dom-two']) assert.ok(existsSync(join(dir, `def/dlprof${infix}_${f}`)), infix + f);
    assert.ok(!existsSync(join(dir, 'def/dlprof_default-domain_summary.csv')));

    // the dldb again, for its reports only: each domain's newest aggregation
    const again = dlprof(['-v', 'quiet', '--output_path=rep', `--database=${db}`], dir);
    assert.equal(again.status, 0, again.stderr);
    for (const infix of ['', '_dom-one', '_dom-two']) assert.ok(existsSync(join(dir, `rep/dlprof${infix}_summary.csv`)), infix);
    // an existing report of another domain is refused without --force, like the default one's
    const refused = dlprof(['-v', 'quiet', '--output_path=rep', `--database=${db}`], dir);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /dlprof_summary\.csv: exists; use --force=true/);
    rmSync(join(dir, 'rep/dlprof_summary.csv'));
    const other = dlprof(['-v', 'quiet', '--output_path=rep', `--database=${db}`], dir);
    assert.equal(other.status, 1);
    assert.match(other.stderr, /dlprof_dom-(one|two)_summary\.csv: exists; use --force=true/);

    // aggregated again (a new iteration range): every domain again, the default one first
    const re = dlprof(['-v', 'quiet', '--force=true', '--output_path=re', '--iter_start=0', `--database=${db}`], dir);
    assert.equal(re.status, 0, re.stderr);
    const reaggr = sql(db, 'select aggr_id a, domain_name d from view_performance_summary where aggr_id > 3 order by a');
    assert.deepEqual(reaggr.map((x) => x.d), aggrs.map((x) => x.d));
    assert.deepEqual(sql(db, 'select domain_name d, op_node_name n, num_calls c from view_op_nodes where aggr_id > 3 order by d, n'),
      sql(db, 'select domain_name d, op_node_name n, num_calls c from view_op_nodes where aggr_id <= 3 order by d, n'));
    for (const infix of ['', '_dom-one', '_dom-two']) assert.ok(existsSync(join(dir, `re/dlprof${infix}_summary.csv`)), infix);
  });
});

// A copy of the real export with a second NVTX domain: its creation row
// (eventType 75) and push/pop ranges on the main thread, over the forward
// pass's first ranges (Nsight Systems writes a custom domain's ranges so).
function twoDomainExport(dir) {
  const copy = join(dir, 'two_domains.sqlite');
  copyFileSync(EXPORT, copy);
  execFileSync('sqlite3', [copy, `
    INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
      SELECT start, start, 75, 'my-domain', globalTid, 7 FROM NVTX_EVENTS ORDER BY start LIMIT 1;
    INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
      SELECT start, end, 59, CASE WHEN n = 3 THEN 'custom-b' ELSE 'custom-a' END, globalTid, 7 FROM
        (SELECT start, end, globalTid, row_number() OVER (ORDER BY start) n FROM NVTX_EVENTS
         WHERE eventType = 59 AND text LIKE '%aten::%') WHERE n <= 3;`]);
  return copy;
}

test('an Nsight Systems export with two domains: both aggregated, the default one unchanged', () => {
  withDir((dir) => {
    const two = twoDomainExport(dir);
    const one = dlprof(['-v', 'quiet', '--output_path=one', '--reports=summary,detail', `--database=${EXPORT}`], dir);
    assert.equal(one.status, 0, one.stderr);
    const r = dlprof(['-v', 'quiet', '--output_path=two', '--reports=summary,detail', `--database=${two}`], dir);
    assert.equal(r.status, 0, r.stderr);
    const db1 = join(dir, 'one/dlprof_dldb.sqlite'), db2 = join(dir, 'two/dlprof_dldb.sqlite');
    assert.deepEqual(sql(db2, 'select aggr_id a, domain_name d from view_performance_summary order by a'),
      [{ a: 1, d: 'default-domain' }, { a: 2, d: 'my-domain' }]);
    // its ranges are its ops (with the kernels they launched); CUDA calls outside
    // them are its unassociated_ ops, as in the default domain
    assert.deepEqual(sql(db2, "select op_node_name n, num_calls c from view_op_nodes where aggr_id=2 and n not like 'unassociated\\_%' escape '\\' order by n"),
      [{ n: 'custom-a', c: 2 }, { n: 'custom-b', c: 1 }]);
    assert.ok(sql(db2, "select sum(gpu_time) t from view_op_nodes where aggr_id=2 and op_node_name like 'custom-%'")[0].t > 0);
    // the default domain's aggregation and reports as without the second domain
    for (const v of ['view_op_nodes', 'view_kernel_summaries', 'view_iterations_profiled', 'view_op_type_summary'])
      assert.deepEqual(sorted(sql(db2, `select * from ${v} where aggr_id=1`)), sorted(sql(db1, `select * from ${v}`)), v);
    assert.equal(readFileSync(join(dir, 'two/dlprof_detailed.csv'), 'utf8'), readFileSync(join(dir, 'one/dlprof_detailed.csv'), 'utf8'));
    assert.match(readFileSync(join(dir, 'two/dlprof_my-domain_detailed.csv'), 'utf8'), /custom-a/);
    assert.ok(!existsSync(join(dir, 'one/dlprof_my-domain_summary.csv')));

    // --domains=my-domain: that one only
    const only = dlprof(['-v', 'quiet', '--output_path=only', '--domains=my-domain', `--database=${two}`], dir);
    assert.equal(only.status, 0, only.stderr);
    assert.deepEqual(sql(join(dir, 'only/dlprof_dldb.sqlite'), 'select aggr_id a, domain_name d from view_performance_summary'),
      [{ a: 1, d: 'my-domain' }]);
    assert.ok(existsSync(join(dir, 'only/dlprof_my-domain_summary.csv')));
    assert.ok(!existsSync(join(dir, 'only/dlprof_summary.csv')));
  });
});

test('dlprof APP: --nsys_options -c cudaProfilerApi maps to --nsys_profile_range', { skip: !APP && 'NVTX_TEST_APP not set' }, () => {
  withDir((dir) => {
    const r = dlprof(['--output_path=r', '--nsys_options=-c cudaProfilerApi', APP, 'single'], dir);
    assert.equal(r.status, 0); // the application's
    assert.match(r.stderr, /with --nsys_profile_range=true only what happens between cudaProfilerStart/);
  });
});
