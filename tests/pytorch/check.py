"""PyTorch profiler traces as PyTorch writes them, end to end through dlprof.

  check.py real DLPROF WORKDIR     traces made here by Debian's PyTorch
                                   (/usr/bin/python3 with python3-torch;
                                   exit 77 where it cannot be imported)
  check.py recorded DLPROF WORKDIR the GPU traces of data/, written by a
                                   CUDA PyTorch on a GPU machine
  check.py gpu DLPROF WORKDIR      on a GPU: a CNN trained by a CUDA PyTorch
                                   ($DL_TORCH_PYTHON, else this python) under
                                   torch.profiler and imported, and under
                                   `dlprof python` with emit_nvtx (exit 77
                                   where CUDA cannot be used)
  check.py shared DLPROF SHARED WORKDIR
                                   the 2021 folder kineto/resnet50_v100 and
                                   HTA's and TraceLens's traces (exit 77
                                   where SHARED has none)

Each trace (each file, and a folder of tensorboard_trace_handler cycles) is
imported with `dlprof --database`; then, from the trace itself:
  - the iterations are its ProfilerStep#N ranges in count and order, each
    starting with its range and lasting as long (+-1 us); on a GPU trace a
    step lasts until the last kernel it launched ends (the TensorBoard
    plugin's device time);
  - the ops' self CPU time (view_op_cpu_times) sums to at most the time of
    the aggregated iterations times the threads with ops;
  - events of unknown kinds are counted and said;
  - no op exists only because a child ends 1 us after its parent: the trace
    with such overruns made (the last child of each op ends 1 us after it)
    or removed (clipped to the parent) gives the same ops and calls.
"""
import copy
import glob
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

TORCH_PY = "/usr/bin/python3"  # Debian's, with python3-torch; not a pyenv python3
FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def save(path, events, like):
    """Writes events the way `like` held them (a bare array or an object)."""
    with (gzip.open if like.endswith(".gz") else open)(like, "rt") as f:
        d = json.load(f)
    if isinstance(d, dict):
        d["traceEvents"] = events
    else:
        d = events
    with (gzip.open if path.endswith(".gz") else open)(path, "wt") as f:
        json.dump(d, f)


def dlprof(dlprof_bin, src, out):
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([dlprof_bin, f"--database={src}", f"--output_path={out}", "--force=true",
                        "--reports=summary"], capture_output=True, text=True)
    check(p.returncode == 0, f"dlprof --database={os.path.basename(src)} exits 0"
          + ("" if p.returncode == 0 else f" (got {p.returncode}: {p.stderr[-400:]})"))
    return os.path.join(out, "dlprof_dldb.sqlite"), p.stderr


def worker_key(path):
    m = re.match(r"(.+)\.(\d+)\.pt\.trace\.json(\.gz)?$", os.path.basename(path))
    return (m.group(1), int(m.group(2))) if m else (os.path.basename(path), 0)


def cpu_ops(events):
    return [e for e in events if e.get("ph") == "X" and "dur" in e and
            (e.get("cat") in ("cpu_op", "user_annotation", "Operator") or
             ("cat" not in e and e.get("pid") == "CPU functions"))]


def steps_of(events):
    return sorted((e for e in cpu_ops(events) if e["name"].startswith("ProfilerStep#")),
                  key=lambda e: e["ts"])


def device_end(events, step):
    """The step's end in device time: the latest end of a kernel launched
    (by correlation id) by a CUDA call that starts inside it."""
    end = step["ts"] + step["dur"]
    calls = {e["args"].get("correlation") for e in events if e.get("ph") == "X" and
             e.get("cat") in ("cuda_runtime", "Runtime", "cuda_driver") and
             step["ts"] <= e["ts"] <= step["ts"] + step["dur"] and "args" in e}
    for e in events:
        if (e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel") and
                e.get("args", {}).get("correlation") in calls):
            end = max(end, e["ts"] + e["dur"])
    return end


def check_iterations(db, files, gpu, what):
    """files: the trace files in import order (a folder's cycles in
    timestamp order). Iterations are their steps, each cycle after the one
    before; steps of several ranks at one time are one iteration."""
    spans = []  # [name, host start, end]: the host end, or the device end on a GPU
    for f in files:
        ev = load(f)
        shift = spans[-1][2] if spans and worker_key(f)[0] == worker_key(prev)[0] else 0
        first = min(e["ts"] for e in cpu_ops(ev))
        shift = shift - first if first < shift else 0  # a cycle follows the one before
        for s in steps_of(ev):
            end = device_end(ev, s) if gpu else s["ts"] + s["dur"]
            same = [x for x in spans if x[0] == s["name"] and s["ts"] + shift <= x[2]
                    and x[1] <= end + shift]
            if same:  # the same step on another rank, at the same time: one iteration
                same[0][1] = min(same[0][1], s["ts"] + shift)
                same[0][2] = max(same[0][2], end + shift)
            else:
                spans.append([s["name"], s["ts"] + shift, end + shift])
        prev = f
    spans.sort(key=lambda x: x[1])
    want = []
    for i, (name, start, end) in enumerate(spans):
        if gpu and i > 0:  # a step starts when the one before ended on the device
            start = max(start, spans[i - 1][2])
        want.append((name, max(end, start) - start))
    con = sqlite3.connect(db)
    got = con.execute("SELECT i.iter_value, n.name, i.start_time, i.duration "
                      "FROM view_iterations_all i LEFT JOIN view_dl_iteration_names n "
                      "ON n.aggr_id = i.aggr_id AND n.iter_value = i.iter_value "
                      "ORDER BY i.iter_value").fetchall()
    check([g[1] for g in got] == [w[0] for w in want],
          f"{what}: iterations are the {len(want)} ProfilerStep ranges in order "
          f"(got {[g[1] for g in got][:14]})")
    starts = [g[2] for g in got]
    check(starts == sorted(starts), f"{what}: iterations do not interleave (starts ascend)")
    bad = [(g[1], g[3], w[1] * 1000) for g, w in zip(got, want)
           if abs(g[3] - round(w[1] * 1000)) > 1000]
    check(len(got) == len(want) and not bad,
          f"{what}: each iteration lasts as long as its step, +-1 us"
          + (" (device time)" if gpu else "") + (f" (differ: {bad[:4]})" if bad else ""))
    return con


def check_self_time(con, what):
    self_ns, total_ns, n = con.execute("SELECT SUM(self_cpu_time), SUM(total_cpu_time), COUNT(*) "
                                       "FROM view_op_cpu_times").fetchone()
    wall = con.execute("SELECT SUM(duration) FROM view_iterations_profiled").fetchone()[0]
    threads = con.execute("SELECT COUNT(DISTINCT tid) FROM nvtx_ranges").fetchone()[0]
    check(n > 0 and self_ns is not None and 0 < self_ns <= wall * threads,
          f"{what}: ops' self CPU time {self_ns} ns <= iterations' time {wall} ns x {threads} "
          f"thread(s) (total CPU time {total_ns} ns)")


def op_set(db):
    con = sqlite3.connect(db)
    return sorted(con.execute("SELECT op_name, direction, calls FROM view_op_cpu_times"))


def overrun_variants(events):
    """Two copies of events: every op's last child made to end 1 us after it,
    and every child that ends up to 1 us after its parent clipped to it (to its
    parent as clipped, so a parent cut short cuts its children too).
    Returns (made, clipped, overruns seen)."""
    ops = [e for e in cpu_ops(events) if not e["name"].startswith("ProfilerStep#")]
    by_thread = {}
    for e in ops:
        by_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    made, clipped, seen = copy.deepcopy(events), copy.deepcopy(events), 0
    index = {id(e): i for i, e in enumerate(events)}
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack, last_child = [], {}
        for e in evs:
            # nested as docs/dldb.md says: starts inside its parent or where it
            # ends, and ends at most 1 us after it
            while stack:
                p = stack[-1]
                p_end, e_end = p["ts"] + p["dur"], e["ts"] + e["dur"]
                if e["ts"] <= p_end and (e_end <= p_end or (p["dur"] > 0 and e_end <= p_end + 1)):
                    break
                stack.pop()
            if stack:
                p = stack[-1]
                over = e["ts"] + e["dur"] - (p["ts"] + p["dur"])
                if over > 0:
                    seen += 1
                elif e["ts"] > p["ts"]:
                    last_child[id(p)] = e
                # clipped to its parent as clipped: a parent cut short cuts its
                # children too (one that started where it ended starts there)
                cp = clipped[index[id(p)]]
                ce = clipped[index[id(e)]]
                cp_end = cp["ts"] + cp["dur"]
                ce["ts"] = min(ce["ts"], cp_end)
                ce["dur"] = min(e["ts"] + ce["dur"], cp_end) - ce["ts"]
            stack.append(e)
        starts = {}
        for e in evs:
            starts[e["ts"]] = starts.get(e["ts"], 0) + 1
        by_id = {id(e): e for e in evs}
        for pid, c in last_child.items():
            p = by_id[pid]
            end = p["ts"] + p["dur"]
            # not where an event starts at the new end: it would nest in c
            if c["dur"] > 0 and end not in starts and end + 1 not in starts:
                made[index[id(c)]]["dur"] = end + 1 - c["ts"]
    return made, clipped, seen


def check_overruns(dlprof_bin, path, work, what, base_ops):
    ev = load(path)
    made, clipped, seen = overrun_variants(ev)
    changed = sum(1 for a, b in zip(ev, made) if a.get("dur") != b.get("dur"))
    check(changed > 0, f"{what}: {changed} children made to end 1 us after their op "
          f"({seen} such in the trace itself)")
    for name, evs in (("made", made), ("clipped", clipped)):
        out = os.path.join(work, f"{what}_{name}")
        os.makedirs(out, exist_ok=True)
        dst = os.path.join(out, os.path.basename(path))
        save(dst, evs, path)
        db, _ = dlprof(dlprof_bin, dst, os.path.join(out, "out"))
        got = op_set(db)
        extra = sorted(set(got) - set(base_ops))
        check(got == base_ops, f"{what}: overruns {name}: the same ops and calls"
              + (f" (differ: {extra[:5]})" if extra else ""))


def real(dlprof_bin, work):
    probe = subprocess.run([TORCH_PY, "-c", "import torch"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP: {TORCH_PY} cannot import torch (Debian's python3-torch: "
              f"scripts/install-deps.sh installs it): {probe.stderr.strip()[-200:]}")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    tb, legacy = os.path.join(work, "tb"), os.path.join(work, "legacy.json")
    os.makedirs(tb)
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([TORCH_PY, os.path.join(here, "train.py"), tb, legacy],
                       capture_output=True, text=True)
    check(p.returncode == 0, "the CNN trains 12 steps under torch.profiler"
          + ("" if p.returncode == 0 else f": {p.stderr[-600:]}"))
    files = sorted(glob.glob(os.path.join(tb, "*.pt.trace.json*")), key=worker_key)
    check(len(files) >= 2, f"tensorboard_trace_handler wrote {len(files)} cycle files")
    for i, f in enumerate(files):
        db, _ = dlprof(dlprof_bin, f, os.path.join(work, f"file{i}"))
        con = check_iterations(db, [f], False, f"cycle file {i}")
        check_self_time(con, f"cycle file {i}")
        check_overruns(dlprof_bin, f, work, f"cycle{i}", op_set(db))
    db, err = dlprof(dlprof_bin, tb, os.path.join(work, "folder"))
    check("2 cycles in timestamp order" in err or f"{len(files)} cycles in timestamp order" in err,
          "the folder's files are said to be cycles of one process")
    con = check_iterations(db, files, False, "folder")
    check_self_time(con, "folder")
    eligible = con.execute("SELECT COUNT(*) FROM view_op_nodes WHERE tc_eligible").fetchone()[0]
    check(eligible == 0, f"CPU only: no op is tensor-core eligible (got {eligible})")
    names = {r[0] for r in con.execute("SELECT op_name FROM view_op_cpu_times")}
    check(any(n.startswith("Optimizer.step#") for n in names) and
          any(n.startswith("Optimizer.zero_grad#") for n in names),
          "the optimizer's step and zero_grad are ops of their own")
    nested = {"aten::convolution_backward", "aten::add_", "aten::max_pool2d_with_indices"}
    check(not names & nested, f"nested framework calls belong to their op (got {names & nested})")
    # events of kinds it does not know are counted and said, not dropped silently
    odd = os.path.join(work, "odd.json")
    ev = load(files[0])
    ev += [{"name": "mystery", "ph": "X", "cat": "no_such_kind", "ts": 1, "dur": 1, "tid": 1,
            "pid": 1}] * 2 + [{"name": "bare", "ph": "X", "ts": 1, "dur": 1, "tid": 1, "pid": 7}]
    save(odd, ev, files[0])
    _, err = dlprof(dlprof_bin, odd, os.path.join(work, "odd"))
    check("odd.json: 3 events of unknown kinds ignored" in err,
          "events of unknown kinds are counted and said on stderr")
    if os.path.exists(legacy):
        db, err = dlprof(dlprof_bin, legacy, os.path.join(work, "legacy"))
        con = sqlite3.connect(db)
        check(con.execute("SELECT COUNT(*) FROM view_op_cpu_times").fetchone()[0] > 0,
              "the autograd profiler's export_chrome_trace imports with its ops")
    return 1 if FAILS else 0


def kernel_events(events):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]


def summary(con, what):
    """Prints what the GPU run recorded, for the log; returns (kernels, tc kernels)."""
    n = con.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    tc = con.execute("SELECT COUNT(*) FROM view_iteration_kernels WHERE uses_tc = 1").fetchone()[0]
    gpus = con.execute("SELECT * FROM view_gpu_names").fetchall()
    print(f"{what}: {n} kernels, {tc} aggregated launches on tensor cores, GPUs {gpus}")
    for row in con.execute("SELECT op_node_name, gpu_time, kernel_calls, tc_eligible, using_tc "
                           "FROM view_op_nodes ORDER BY gpu_time DESC LIMIT 8"):
        print(f"  op {row}")
    for row in con.execute("SELECT kernel_name, uses_tc, COUNT(*) FROM view_iteration_kernels "
                           "GROUP BY kernel_name, uses_tc ORDER BY COUNT(*) DESC LIMIT 12"):
        print(f"  kernel {row[0][:90]} tc={row[1]} x{row[2]}")
    return n, tc


def check_gpu_ops(con, what):
    n, tc = summary(con, what)
    check(n > 0, f"{what}: kernels recorded ({n})")
    gpu_ops = con.execute("SELECT COUNT(*), COALESCE(SUM(gpu_time), 0) FROM view_op_nodes "
                          "WHERE gpu_time > 0").fetchone()
    check(gpu_ops[0] >= 3, f"{what}: GPU time attributed to {gpu_ops[0]} ops ({gpu_ops[1]} ns)")
    conv = con.execute("SELECT COALESCE(SUM(kernel_calls), 0) FROM view_op_nodes "
                       "WHERE op_node_name LIKE '%conv%'").fetchone()[0]
    check(conv > 0, f"{what}: the convolutions' kernels belong to conv ops ({conv} calls)")
    check(tc > 0, f"{what}: bf16 convolutions and GEMMs are seen on tensor cores ({tc} launches)")


def check_gpu_traces(dlprof_bin, files, work):
    """Each GPU trace imported alone: its steps, self times, every kernel,
    the ops' GPU time and tensor cores."""
    for i, f in enumerate(files):
        db, err = dlprof(dlprof_bin, f, os.path.join(work, f"file{i}"))
        print(err.strip()[-800:])
        if not os.path.exists(db):
            continue
        con = check_iterations(db, [f], True, f"GPU trace {i}")
        check_self_time(con, f"GPU trace {i}")
        want = len(kernel_events(load(f)))
        got = con.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
        check(got == want, f"GPU trace {i}: every kernel of the trace imported ({got}, want {want})")
        check_gpu_ops(con, f"GPU trace {i}")


def recorded(dlprof_bin, work):
    """The traces in data/ that a CUDA PyTorch wrote on a GPU machine
    (train_gpu.py profiler; data/README.md), each alone and as a folder."""
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    folders = sorted(glob.glob(os.path.join(here, "data", "*", "")))
    check(len(folders) >= 1, f"{len(folders)} recorded trace folder(s) in data/")
    for folder in folders:
        name = os.path.basename(os.path.dirname(folder))
        files = sorted(glob.glob(os.path.join(folder, "*.pt.trace.json*")), key=worker_key)
        check(len(files) >= 2, f"{name}: {len(files)} cycle files")
        check_gpu_traces(dlprof_bin, files, os.path.join(work, name))
        db, err = dlprof(dlprof_bin, folder, os.path.join(work, name, "folder"))
        check(f"{len(files)} cycles in timestamp order" in err,
              f"{name}: the folder's files are cycles of one process")
        con = check_iterations(db, files, True, f"{name} folder")
        check_self_time(con, f"{name} folder")
        gpus = int(con.execute("SELECT num_gpus FROM view_system_config").fetchone()[0])
        names = con.execute("SELECT COUNT(*) FROM view_gpu_names").fetchone()[0]
        check(gpus == names == 1, f"{name} folder: one process's cycles on one GPU count it once "
              f"(num_gpus {gpus}, GPU names {names})")
    return 1 if FAILS else 0


def gpu(dlprof_bin, work):
    py = os.environ.get("DL_TORCH_PYTHON", sys.executable)
    here = os.path.dirname(os.path.abspath(__file__))
    train = os.path.join(here, "train_gpu.py")
    probe = subprocess.run([py, train, "check"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP: {py} has no PyTorch that can use a GPU: {probe.stderr.strip()[-200:]}")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    tb = os.path.join(work, "tb")
    os.makedirs(tb)
    p = subprocess.run([py, train, "profiler", tb], capture_output=True, text=True)
    check(p.returncode == 0, "the CNN trains on the GPU under torch.profiler"
          + ("" if p.returncode == 0 else f": {p.stderr[-600:]}"))
    files = sorted(glob.glob(os.path.join(tb, "*.pt.trace.json*")), key=worker_key)
    check(len(files) >= 1, f"tensorboard_trace_handler wrote {len(files)} file(s)")
    check_gpu_traces(dlprof_bin, files, work)
    live = os.path.join(work, "live")
    p = subprocess.run([dlprof_bin, f"--output_path={live}", "--force=true", "--key_op=iteration",
                        py, train, "nvtx"], capture_output=True, text=True)
    print(p.stderr.strip()[-1500:])
    check(p.returncode == 0, f"dlprof {os.path.basename(py)} train_gpu.py nvtx exits 0 "
          f"(got {p.returncode})")
    db = os.path.join(live, "dlprof_dldb.sqlite")
    check(os.path.exists(db), "dlprof APP writes the dldb")
    if os.path.exists(db):
        con = sqlite3.connect(db)
        iters = con.execute("SELECT COUNT(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
                            "WHERE s.value = 'iteration'").fetchone()[0]
        check(iters == 12, f"live: the 12 NVTX iteration ranges recorded (got {iters})")
        ext = con.execute("SELECT COUNT(*) FROM cupti_external_correlations").fetchone()[0]
        check(ext > 0, f"live: external correlations tie kernels to NVTX ranges ({ext})")
        check_gpu_ops(con, "live")
    return 1 if FAILS else 0


def shared(dlprof_bin, root, work):
    k = os.path.join(root, "traces", "kineto")
    if not os.path.isdir(os.path.join(k, "resnet50_v100")):
        print(f"SKIP: no shared traces at {k}")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    folder = os.path.join(k, "resnet50_v100")
    files = sorted(glob.glob(os.path.join(folder, "*.json*")), key=worker_key)
    db, err = dlprof(dlprof_bin, folder, os.path.join(work, "resnet50_v100"))
    check("worker0: 2 cycles in timestamp order" in err,
          "resnet50_v100: worker0's two files are cycles of one process")
    con = check_iterations(db, files, True, "resnet50_v100")
    check_self_time(con, "resnet50_v100")
    cycle = os.path.join(folder, "worker0.1623143089861.pt.trace.json.gz")
    db1, _ = dlprof(dlprof_bin, cycle, os.path.join(work, "worker0"))
    check_overruns(dlprof_bin, cycle, work, "resnet50_worker0", op_set(db1))
    for f in (os.path.join(k, "hta", "trace_diff_control_control.json.gz"),
              os.path.join(k, "tracelens_h100", "gaunernst_bert-small-uncased__1016001.json.gz")):
        name = os.path.basename(f).split(".")[0]
        db, _ = dlprof(dlprof_bin, f, os.path.join(work, name))
        con = check_iterations(db, [f], True, name)
        check_self_time(con, name)
    return 1 if FAILS else 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "real":
        rc = real(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "recorded":
        rc = recorded(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "gpu":
        rc = gpu(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "shared":
        rc = shared(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__)
        rc = 2
    print(f"{len(FAILS)} failed" if FAILS else "all passed" if rc == 0 else "")
    sys.exit(rc)
