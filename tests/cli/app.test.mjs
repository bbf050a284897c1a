// dlprof APP with real programs on a machine without a GPU: the
// application's exit status whatever was recorded; one line when nothing
// was (and no dldb, an existing one kept); a pointer to the PyTorch
// profiler traces the application wrote during the run (Debian's
// python3-torch at /usr/bin/python3 when it is installed); an NVTX
// recording without a key op says so instead of DLProf's "key op  not
// found". NVTX_TEST_APP: tests/collector's nvtx_test_app (its case skips
// without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DLPROF = process.env.DLPROF;
const APP = process.env.NVTX_TEST_APP || '';
const DEBIAN_PY = '/usr/bin/python3';

function dlprof(args, cwd) {
  return spawnSync(DLPROF, args, { cwd, encoding: 'utf8', timeout: 120000 });
}
function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'dlprof-app-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
/* stderr's lines but the progress line "dlprof: profiling APP (collector ...)" */
const messages = (r) =>
  r.stderr
    .split('\n')
    .filter((l) => l && !/^dlprof: profiling /.test(l));
const hasTorch = () => existsSync(DEBIAN_PY) && spawnSync(DEBIAN_PY, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

test('the app exits 5 and records nothing: dlprof exits 5 with one line, no dldb', () => {
  withDir((dir) => {
    const r = dlprof(['python3', '-c', 'import sys; sys.exit(5)'], dir);
    assert.equal(r.status, 5, r.stderr);
    const lines = messages(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^dlprof: nothing was recorded: python3 made no NVTX ranges and no CUDA calls, so no dldb was written; python3 exited with status 5$/);
    assert.doesNotMatch(r.stderr, /DLPROF_|CPU-side NVTX|--database/);
    assert.ok(!existsSync(join(dir, 'dlprof_dldb.sqlite')));
    assert.deepEqual(readdirSync(dir), []);
  });
});

test('nothing recorded with --force=true keeps the existing dldb', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'dlprof_dldb.sqlite'), 'an older profile');
    const r = dlprof(['--force=true', 'python3', '-c', 'pass'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(dir, 'dlprof_dldb.sqlite'), 'utf8'), 'an older profile');
  });
});

test('an application that cannot be run: 127 and one line', () => {
  withDir((dir) => {
    const r = dlprof([join(dir, 'no-such-program')], dir);
    assert.equal(r.status, 127);
    assert.deepEqual(messages(r), [`dlprof: cannot run ${join(dir, 'no-such-program')}: No such file or directory`]);
  });
});

/* A program writing the files tensorboard_trace_handler writes; one older
 * trace (before the run) is not pointed at. */
test('traces the app wrote during the run are pointed at; older ones are not', () => {
  withDir((dir) => {
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old', 'w.1.pt.trace.json'), '[]');
    utimesSync(join(dir, 'old', 'w.1.pt.trace.json'), new Date(2001, 0, 1), new Date(2001, 0, 1));
    const script = "import os\nos.makedirs('tb', exist_ok=True)\nfor t in (1, 2):\n    open(f'tb/host_1.{t}.pt.trace.json', 'w').write('[]')\n";
    const r = dlprof(['python3', '-c', script], dir);
    assert.equal(r.status, 0, r.stderr);
    const lines = messages(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /; the app wrote PyTorch profiler traces in \.\/tb: import them with dlprof --database=\.\/tb$/);
    const old = dlprof(['python3', '-c', 'pass'], dir);
    assert.doesNotMatch(old.stderr, /profiler traces/);
  });
});

test("Debian's PyTorch, CPU only, tensorboard_trace_handler('./tb'): the pointer", (t) => {
  if (!hasTorch()) return t.skip(`${DEBIAN_PY} cannot import torch (Debian's python3-torch is not installed)`);
  withDir((dir) => {
    const script = `
import torch, torch.nn as nn
from torch.profiler import profile, schedule, tensorboard_trace_handler, ProfilerActivity
m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 14 * 14, 10))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2),
             on_trace_ready=tensorboard_trace_handler('./tb')) as p:
    for _ in range(5):
        opt.zero_grad(); nn.functional.cross_entropy(m(x), y).backward(); opt.step(); p.step()
`;
    writeFileSync(join(dir, 'train.py'), script);
    const r = dlprof([DEBIAN_PY, 'train.py'], dir);
    assert.equal(r.status, 0, r.stderr);
    const lines = messages(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`^dlprof: nothing was recorded: ${DEBIAN_PY} made no NVTX ranges and no CUDA calls, so no dldb was written; the app wrote PyTorch profiler traces in ./tb: import them with dlprof --database=./tb$`));
    assert.ok(readdirSync(join(dir, 'tb')).some((f) => f.endsWith('.pt.trace.json')));
  });
});

test('NVTX ranges without a key op: says none was set and what was done, never "key op  not found"', { skip: !APP && 'NVTX_TEST_APP not set' }, () => {
  withDir((dir) => {
    const r = dlprof([APP, 'all', '3'], dir);
    assert.equal(r.status, 3, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /key op +not found/);
    assert.match(r.stdout, /Unable to split profile into training iterations: no key op was set, so the whole profile is one iteration/);
    assert.match(r.stderr, /dlprof: no key op was set: the whole recording is one iteration; to split it, aggregate again with dlprof --database=\.\/dlprof_dldb\.sqlite --key_op=NAME/);
    assert.match(r.stderr, /exited with status 3/);
    assert.ok(existsSync(join(dir, 'dlprof_dldb.sqlite')));
    // the dldb's finding says the same as stdout (the viewer shows it)
    const q = spawnSync('sqlite3', [join(dir, 'dlprof_dldb.sqlite'),
      "SELECT problem FROM view_expert_systems WHERE problem LIKE 'Unable to split%'"], { encoding: 'utf8' });
    assert.equal(q.status, 0, q.stderr);
    assert.match(q.stdout, /no key op was set, so the whole profile is one iteration/);
    // a key op that the recording lacks is named
    const k = dlprof(['--force=true', '--key_op=no_such_range', APP, 'single'], dir);
    assert.equal(k.status, 0, k.stderr);
    assert.match(k.stdout, /key op no_such_range not found/);
    assert.doesNotMatch(k.stderr, /no key op was set/);
  });
});

/* dlprof runs with glibc's huge-page tunable where the kernel gives huge
 * pages on advice (cli/hugepages.h: it executes itself again with it, the
 * value it was given kept in DLPROF_GLIBC_TUNABLES, which the new
 * process's first environment shows; glibc's start-up edits
 * GLIBC_TUNABLES' own text there), and the application gets
 * GLIBC_TUNABLES as dlprof was given it. */
test('dlprof gives its own memory huge pages; the app gets the environment it was given', () => {
  withDir((dir) => {
    const script =
      "import os\n" +
      "env = open(f'/proc/{os.getppid()}/environ', 'rb').read().split(b'\\0')\n" +
      "saved = [e[22:].decode() for e in env if e.startswith(b'DLPROF_GLIBC_TUNABLES=')]\n" +
      "comm = open(f'/proc/{os.getppid()}/comm').read().strip()\n" +
      "print(os.environ.get('GLIBC_TUNABLES'), saved[0] if saved else None, 'DLPROF_GLIBC_TUNABLES' in os.environ, comm)\n";
    const given = 'glibc.malloc.perturb=0';
    const r = spawnSync(DLPROF, ['python3', '-c', script], {
      cwd: dir, encoding: 'utf8', timeout: 120000,
      env: { ...process.env, GLIBC_TUNABLES: given, DLPROF_HUGEPAGES: '' },
    });
    assert.equal(r.status, 0, r.stderr);
    let mode = '';
    try { mode = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'); } catch { /* none */ }
    const huge = mode.includes('[madvise]') && !(process.env.LD_PRELOAD || '').includes('vgpreload');
    /* the process keeps its name (ps, pkill) */
    assert.equal(r.stdout.trim(), `${given} ${huge ? `+${given}` : 'None'} False dlprof`);
  });
});
