#!/usr/bin/env python3
"""armada-bench: runs Armada's microbenchmark suites and its peers, and writes
a report folder (results.json, results.csv, report.md, *.png).

Implementations: armada (build/bench/armada-bench-*), armcimpi (Debian's
ARMCI-MPI, same sources), mpi-rma and openshmem (reference programs for the
contiguous and atomic tests), ucx (ucx_perftest, the raw transport figure),
tcp (ref-tcp: the same request/reply patterns on plain loopback sockets, the
kernel's floor for vnode-tcp; only there, for the gets and fetch-and-add).

Configurations:
  node       one node, shared memory
  vnode      virtual nodes (ARMADA_PPN=1), UCX's default transports;
             peers use Open MPI's UCX one-sided component (--mca osc ucx)
  vnode-tcp  virtual nodes with UCX_TLS=tcp,self for Armada and the peers

Virtual topologies (issue 20): --topologies fcg,mfcg,cfcg,hypercube adds
the implementations armada-mfcg, armada-cfcg and armada-hypercube on the
virtual-node configurations: Armada's programs with ARMADA_TOPOLOGY set
(armada itself is fcg, the default), launched interleaved with the others,
recorded with their topology, and compared with fcg in the report's topology
section (hot-spot contention per level, uncontended ops, the issue's speed
targets). Suite topomem (Armada only, not in the default set) measures the
servers' request-buffer bytes, endpoints and RSS under each topology at
--topomem-np processes (default 16,32,64) as as many virtual nodes.

Every figure is the median of repeated runs: each program repeats its timing
loop (-r) and reports the median; the harness may launch a program several
times (--runs) and takes the median again. The launches of one configuration
and suite are interleaved across implementations (round 1 of each, then
round 2, ...), so that a slow phase of the machine does not fall on one
implementation only. Failed or skipped figures are
listed as such in the report.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from machineinfo import machine  # noqa: E402  (tools/machineinfo.py)

SUITES = ["ops", "contig", "strided", "vector", "fadd", "hotspot", "pairs",
          "shift", "flood", "barrier"]
# Suites run only when asked for (--suites): topomem reads Armada's own
# statistics and runs on the virtual-node configurations only; overheads
# (issue 25, decision 065) sweeps outstanding operations up to 1,024 and is
# long: tools/bench/plot_overheads.py runs it at several process counts.
EXTRA_SUITES = ["topomem", "overheads", "startup"]
TOPOLOGIES = ["fcg", "mfcg", "cfcg", "hypercube"]
# The suites the default set runs on the inter-node configurations.
INTER_SUITES = ("ops", "contig", "fadd", "strided", "flood")
REF_SUITES = {"ops", "contig", "fadd", "overheads"}  # suites the references have
IMPLS = ["armada", "armcimpi", "mpi-rma", "openshmem", "ucx", "tcp"]
# The kernel-floor figures ref-tcp has, compared in the report's floor table.
FLOOR = [("ops", "get", 8, "us"), ("ops", "get1m", 1048576, "MB/s"),
         ("fadd", "fadd_all", 4, "Mops/s")]
CONFIGS = ["node", "vnode", "vnode-tcp"]
TIME_UNITS = {"us"}  # smaller is better; everything else: larger is better

MPIRUN_BASE = ["--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
               "--mca", "btl", "self,vader", "--mca", "mpi_yield_when_idle", "1"]

# Issue targets checked in the report, per configuration:
# (suite, op, size, unit, peer, factor, issue). factor None: measured only.
# A peer "impl@op" compares with that implementation's figure of another op.
# node = issue 2 (same node); vnode-tcp = issue 3 (2 processes as two nodes
# over UCX_TLS=tcp,self); vnode (UCX defaults) = issue 3's "figures as well".
_MEASURED = [
    ("ops", "get", 8, "us", "armcimpi", None, "3"),
    ("ops", "put", 8, "us", "armcimpi", None, "3"),
    ("ops", "acc", 8, "us", "armcimpi", None, "3"),
    ("ops", "lock", 0, "us", "armcimpi", None, "3"),
    ("ops", "fadd", 4, "us", "armcimpi", None, "3"),
    ("ops", "puts", 32768, "us", "armcimpi", None, "3"),
    ("ops", "get1m", 1048576, "MB/s", "ucx", None, "3"),
    ("ops", "get1m_nb", 1048576, "MB/s", "ucx@get1m", None, "3"),
    ("fadd", "fadd_all", 4, "Mops/s", "armcimpi", None, "3"),
]
TARGETS = {
    "node": [
        ("ops", "get", 8, "us", "armcimpi", 3.0, "2"),
        ("ops", "put", 8, "us", "armcimpi", 3.0, "2"),
        ("ops", "acc", 8, "us", "armcimpi", 3.0, "2"),
        ("ops", "lock", 0, "us", "armcimpi", 10.0, "2"),
        ("ops", "fadd", 4, "us", "armcimpi", None, "2"),
        ("ops", "puts", 32768, "us", "armcimpi", None, "2"),
        ("ops", "get1m", 1048576, "MB/s", "ucx", None, "2"),
        ("fadd", "fadd_all", 4, "Mops/s", "armcimpi", None, "2"),
        # ARMCI_Barrier with nothing to fence, 4 processes (issue 26, item
        # 11); the program also times MPI_Barrier in the same loop.
        ("barrier", "barrier_armci", 0, "us", "armcimpi", None, "26"),
    ],
    "vnode-tcp": [
        ("ops", "get", 8, "us", "armcimpi", 4.0, "3"),
        ("ops", "put", 8, "us", "armcimpi", None, "3"),
        ("ops", "acc", 8, "us", "armcimpi", 5.0, "3"),
        ("ops", "lock", 0, "us", "armcimpi", None, "3"),
        ("ops", "fadd", 4, "us", "armcimpi", None, "3"),
        ("ops", "puts", 32768, "us", "armcimpi", 15.0, "3"),
        ("fadd", "fadd_all", 4, "Mops/s", "armcimpi", 7.0, "3"),
        ("ops", "get1m", 1048576, "MB/s", "ucx", 0.9, "3"),
        ("ops", "get1m_nb", 1048576, "MB/s", "ucx@get1m", None, "3"),
    ],
    "vnode": _MEASURED,
}

# Issue 20's speed targets, MFCG against FCG in the same run (config
# vnode-tcp): (suite, op, size, unit, extra, topology, bound, what). bound is
# the largest allowed topology/fcg ratio of times, or for a rate (Mops/s) the
# smallest allowed topology/fcg ratio.
TOPO_TARGETS = [
    ("hotspot", "fadd", 4, "us", "level=100;hammers=*;rank=mean", "mfcg", 0.5,
     "100 % contention fetch-and-add, per-operation time"),
    ("hotspot", "fadd", 4, "Mops/s", "level=100;hammers=*;origins=*", "mfcg", 2.0,
     "100 % contention fetch-and-add, aggregate rate"),
    ("hotspot", "putv", 1024, "us", "level=20;hammers=*;rank=mean", "mfcg", 1.0,
     "20 % contention vector put, per-operation time"),
    ("ops", "get", 8, "us", "", "mfcg", 2.0, "uncontended 8-byte get"),
    ("ops", "acc", 8, "us", "", "mfcg", 2.0, "uncontended 8-byte accumulate"),
    ("ops", "fadd", 4, "us", "", "mfcg", 2.0, "uncontended fetch-and-add"),
]


def topo_impl(topo):
    """The implementation name of Armada under a topology (fcg: armada)."""
    return "armada" if topo == "fcg" else "armada-" + topo


def topo_label(impl):
    """A plot label that names the topology (fcg for armada itself)."""
    return "armada (fcg)" if impl == "armada" else impl


def topo_of(impl):
    """The topology of an Armada implementation name; None for the peers."""
    if impl == "armada":
        return "fcg"
    if impl.startswith("armada-"):
        return impl[len("armada-"):]
    return None


# ---------------------------------------------------------------- plumbing --
def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def maybe_reexec():
    """The python3 first on PATH may lack matplotlib (pyenv); Debian's has it."""
    if have_matplotlib() or os.environ.get("ARMADA_BENCH_REEXEC"):
        return
    for cand in ("/usr/bin/python3", "/bin/python3"):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            ok = subprocess.run([cand, "-c", "import matplotlib"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
            if ok:
                os.environ["ARMADA_BENCH_REEXEC"] = "1"
                os.execv(cand, [cand] + sys.argv)


def cmd_output(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def versions():
    v = {}
    m = re.search(r"project\(Armada VERSION ([0-9.]+)",
                  open(os.path.join(ROOT, "CMakeLists.txt")).read())
    v["armada"] = m.group(1) if m else "?"
    git = cmd_output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    v["armada_git"] = git if re.fullmatch(r"[0-9a-f]{4,40}", git or "") else "uncommitted"
    v["armci-mpi"] = cmd_output(["dpkg-query", "-W", "-f=${Version}", "libarmci-mpi-dev"]) or "?"
    v["openmpi"] = (cmd_output(["mpirun", "--version"]).splitlines() or ["?"])[0]
    v["ucx"] = (cmd_output(["ucx_info", "-v"]).splitlines() or ["?"])[0].lstrip("# ")
    v["compiler"] = (cmd_output(["cc", "--version"]).splitlines() or ["?"])[0]
    v["python"] = platform.python_version()
    return v


# ------------------------------------------------------------------- plan --
class Job:
    def __init__(self, config, impl, suite, np, args, runs):
        self.config, self.impl, self.suite = config, impl, suite
        self.np, self.args, self.runs = np, args, runs

    def name(self):
        return "%s/%s/%s(np=%d)" % (self.config, self.impl, self.suite, self.np)


def suite_plan(suite, quick):
    """(processes, program options) of a suite in the default set."""
    reps = ["-r", "3" if quick else "5", "-R", "0.01" if quick else "0.02"]
    plan = {
        "ops": (2, reps + ["-n", "2000"]),
        "contig": (2, reps + ["-M", "1M" if quick else "4M"]),
        "strided": (2, reps + ["-t", "256k"]),
        "vector": (2, reps + ["-t", "64k"]),
        # Aggregate rates of 4 processes on a small machine swing with where
        # the scheduler puts them: longer repetitions average that out.
        "fadd": (4, reps + ["-n", "2000"] + ([] if quick else ["-R", "0.2"])),
        "hotspot": (4, ["-r", "3", "-R", "0.01", "-n", "500"]),
        "pairs": (4, reps),
        "shift": (4, reps + ["-m", "512"]),
        "flood": (2, reps + ["-M", "1M", "-W", "64"]),
        "barrier": (4, reps[:2] + ["-n", "500"]),
        "overheads": (4, ["-r", "3", "-n", "500", "-K", "1024", "-S", "100"]),
    }
    return plan[suite]


def topomem_jobs(args, config):
    """Suite topomem: Armada under every topology at every process count."""
    jobs = []
    if config == "node":
        return jobs   # one node has no servers
    for np in args.topomem_np:
        for impl in args.all_impls:
            if topo_of(impl) is not None:
                jobs.append(Job(config, impl, "topomem", np, [], args.topomem_runs))
    return jobs


def startup_jobs(args, config):
    """Suite startup (issue 57): Armada and ARMCI-MPI at every process
    count; one figure set per launch, so a job is launched --startup-runs
    times, alternating with the other library."""
    return [Job(config, impl, "startup", np, [], args.startup_runs)
            for np in args.startup_np for impl in ("armada", "armcimpi")
            if impl in args.all_impls]


# The quick selection (--select quick): what whoever changes a hot path or the
# start path runs before and after, and compares with --compare. Each entry:
# (suite, configs, processes or None for the suite's own, options or None,
# launches). Under 3 minutes on the 2-core VM.
QUICK_SELECTION = [
    ("startup", ("node", "vnode-tcp"), (1, 4, 16), [], 2),
    ("ops", ("node", "vnode-tcp"), None, ["-r", "3", "-R", "0.01", "-n", "1000"], 3),
    ("hotspot", ("vnode-tcp",), None,
     ["-r", "3", "-R", "0.01", "-n", "300", "-c", "100", "-o", "fadd"], 2),
]


def quick_jobs(args):
    jobs = []
    for suite, configs, nps, opts, runs in QUICK_SELECTION:
        for config in configs:
            for np in (nps or (suite_plan(suite, True)[0],)):
                for impl in ("armada", "armcimpi"):
                    if impl in args.all_impls:
                        jobs.append(Job(config, impl, suite, np, list(opts), runs))
    return jobs


def default_jobs(args):
    if args.select == "quick":
        return quick_jobs(args)
    jobs = []
    quick = args.quick
    for config in args.configs:
        for suite in args.suites:
            if suite == "topomem":
                jobs += topomem_jobs(args, config)
                continue
            if suite == "startup":
                jobs += startup_jobs(args, config)
                continue
            if config != "node" and suite not in INTER_SUITES and not args.suites_given:
                continue  # the default set keeps the inter-node configs short
            np, opts = suite_plan(suite, quick or (config != "node" and suite != "fadd"))
            if args.np:
                np = args.np
            if args.rep_seconds:
                # One timing repetition's length, every suite alike: longer
                # repetitions average out the scheduler on a small machine.
                opts = [o for i, o in enumerate(opts)
                        if o != "-R" and (i == 0 or opts[i - 1] != "-R")]
                opts += ["-R", str(args.rep_seconds)]
            if config != "node" and suite == "contig":
                opts = opts + ["-M", "1M"]
            if config != "node" and suite == "strided":
                opts = opts + ["-t", "64k", "-m", "64"]
            for impl in args.all_impls:
                if impl == "ucx":
                    continue
                if impl != "armada" and topo_of(impl) and config == "node":
                    continue  # topologies join the servers of several nodes
                if impl in ("mpi-rma", "openshmem") and suite not in REF_SUITES:
                    continue
                if impl == "openshmem" and suite == "overheads":
                    continue  # ref-overheads-mpi is the MPI reference
                if impl == "tcp" and (config != "vnode-tcp" or suite not in ("ops", "fadd")):
                    continue
                runs = args.runs if args.runs else (5 if suite in ("ops", "fadd") else 1)
                jobs.append(Job(config, impl, suite, np, opts, runs))
        if "ucx" in args.impls and "ops" in args.suites:
            # Interleaved with the ops launches, one round of tests per launch.
            jobs.append(Job(config, "ucx", "ops", 2, [], args.runs if args.runs else 5))
    return jobs


def program(build, impl, suite):
    bdir = os.path.join(build, "bench")
    if topo_of(impl) is not None:
        return [os.path.join(bdir, "armada-bench-%s" % suite)]
    if impl == "armcimpi":
        return [os.path.join(bdir, "%s-bench-%s" % (impl, suite))]
    if impl == "mpi-rma" and suite == "overheads":
        # one program, rows impl=mpi-rma (MPI-3 RMA) and impl=mpi-p2p
        return [os.path.join(bdir, "ref-overheads-mpi")]
    if impl == "mpi-rma":
        return [os.path.join(bdir, "ref-mpirma"), suite]
    if impl == "openshmem":
        return [os.path.join(bdir, "ref-shmem"), suite]
    if impl == "tcp":
        return [os.path.join(bdir, "ref-tcp"), suite]
    return None


# --lib DIR: Armada's programs load the libarmci of DIR (another build, for a
# before-and-after comparison) instead of the one they were linked with.
ARMADA_LIB = None


def launch_env(config, impl, stats=False):
    """(mpirun options, environment additions) of an implementation. stats:
    Armada prints its ARMADA_STATS lines (servers, forwarding) at the end."""
    opts, env = list(MPIRUN_BASE), {}
    topo = topo_of(impl)
    if topo is not None and ARMADA_LIB:
        env["LD_LIBRARY_PATH"] = ARMADA_LIB
    if topo is not None and topo != "fcg":
        env["ARMADA_TOPOLOGY"] = topo
    if topo is not None and stats:
        env["ARMADA_STATS"] = "1"
    if config in ("vnode", "vnode-tcp"):
        if topo is not None:
            env["ARMADA_PPN"] = "1"
        elif impl in ("armcimpi", "mpi-rma"):
            opts += ["--mca", "osc", "ucx"]
        if config == "vnode-tcp":
            env["UCX_TLS"] = "tcp,self"
    for k, v in env.items():
        opts += ["-x", "%s=%s" % (k, v)]
    return opts, env


# -------------------------------------------------------------------- run --
LINE = re.compile(r"^(RESULT|SKIP|CHECK) (.*)$")
STATS_LINE = re.compile(r"armada\[rank (\d+)\] stats:(.*)$")
# ARMADA_STATS fields summarised per launch: (field, op, unit, reductions).
# endpoints here are counted at ARMCI_Finalize, server-to-server ones
# included (armada_stats_get's count during the run leaves those out).
STATS_FIELDS = [
    ("server_buffers", "stats_server_buffers", "B", ("max", "mean")),
    ("endpoints", "stats_endpoints", "count", ("max", "mean")),
    ("server_clients", "stats_server_clients", "count", ("max", "mean")),
    ("edges_in", "stats_edges_in", "count", ("max", "mean")),
    ("edges_out", "stats_edges_out", "count", ("max", "mean")),
    ("fwd_requests", "stats_fwd_requests", "count", ("sum",)),
    ("fwd_messages", "stats_fwd_messages", "count", ("sum",)),
    ("fwd_combined", "stats_fwd_combined", "count", ("sum",)),
    ("fwd_in_requests", "stats_fwd_in_requests", "count", ("sum",)),
    ("fwd_in_messages", "stats_fwd_in_messages", "count", ("sum",)),
]


def stats_records(job, out, r):
    """RESULT-like records of the ARMADA_STATS lines of one launch, over the
    processes that run a server (those that print server fields)."""
    per = {}
    for line in out.splitlines():
        m = STATS_LINE.search(line)
        if not m:
            continue
        kv = {}
        for tok in m.group(2).split():
            k, _, v = tok.partition("=")
            vm = re.match(r"^(\d+)B?$", v)
            if vm and "/" not in k:
                kv[k] = int(vm.group(1))
        if "server_clients" in kv:
            per[int(m.group(1))] = kv
    recs = []
    if not per:
        return recs
    nodes = len(per)
    for field, op, unit, reds in STATS_FIELDS:
        vals = [kv[field] for kv in per.values() if field in kv]
        if not vals:
            continue
        for red in reds:
            v = {"max": max, "sum": sum,
                 "mean": lambda x: sum(x) / len(x)}[red](vals)
            recs.append({"_kind": "RESULT", "_run": r, "impl": job.impl, "suite": job.suite,
                         "op": op, "size": "0", "nproc": str(job.np), "value": str(v),
                         "unit": unit, "stat": red, "nodes": str(nodes)})
    return recs


def parse_kv(text):
    out = {}
    for tok in text.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


def run_cmd(cmd, env_add, timeout):
    env = dict(os.environ)
    env.update(env_add)
    t0 = time.time()
    try:
        p = subprocess.run(["timeout", "-k", "5", str(timeout)] + cmd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, rc = p.stdout, p.returncode
    except OSError as e:
        out, rc = str(e), 127
    return rc, out, time.time() - t0


def mpi_launch(job, args, r, st):
    """Launch job's program once (round r); records and the run go into st.
    Returns False when the job should not be launched again (a timeout: a
    hung program would only hang again)."""
    prog = program(args.build, job.impl, job.suite)
    if not os.path.exists(prog[0]):
        st["runs"].append({"status": "skipped",
                           "reason": "not built: %s" % os.path.basename(prog[0])})
        return False
    opts, env = launch_env(job.config, job.impl,
                           stats=args.topologies is not None or job.suite == "topomem")
    cmd = ["mpirun"] + opts + ["-np", str(job.np)] + prog + job.args
    rc, out, secs = run_cmd(cmd, env, args.timeout)
    status = "ok" if rc == 0 else ("timeout" if rc in (124, 137) else "failed")
    got = 0
    for line in out.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        kv = parse_kv(m.group(2))
        kv["_kind"] = m.group(1)
        kv["_run"] = r
        if topo_of(job.impl) is not None:
            kv["impl"] = job.impl   # the same program under another topology
        if job.suite == "startup":
            kv["procs"] = kv.get("nproc", str(job.np))   # one figure per process count
        st["records"].append(kv)
        got += 1
    if "ARMADA_STATS" in env:
        st["records"] += stats_records(job, out, r)
    tail = "\n".join(out.splitlines()[-8:]) if status != "ok" else ""
    st["runs"].append({"status": status, "rc": rc, "seconds": round(secs, 2),
                       "command": " ".join(cmd), "env": env, "records": got, "tail": tail})
    return status != "timeout"


UCX_TESTS = [  # (op, size, ucx_perftest test(s), unit)
    # An 8-byte get is a round trip: UCX's own get (emulated over TCP), or
    # twice the one-way latency of an 8-byte active-message ping-pong.
    ("get", 8, ("ucp_get", "ucp_am_lat*2"), "us"),
    ("put", 8, "ucp_put_lat", "us"),
    ("fadd", 4, "ucp_fadd", "us"),
    # The issue compares a 1 MiB get with the best UCX primitive on the same
    # transport: every candidate runs and the highest bandwidth is kept.
    ("get1m", 1048576, ("ucp_get", "ucp_am_bw", "tag_bw", "stream_bw"), "MB/s"),
    ("put1m", 1048576, "ucp_put_bw", "MB/s"),
]


def ucx_round(job, args, r, st):
    """One ucx_perftest run of every test (round r); values collect in st."""
    exe = shutil.which("ucx_perftest")
    if not exe:
        st["runs"].append({"status": "skipped", "reason": "ucx_perftest not installed"})
        return False
    env = {"UCX_TLS": "tcp,self"} if job.config == "vnode-tcp" else {}
    st.setdefault("port", 13000 + (os.getpid() % 2000))
    vals = st.setdefault("ucx", {})
    for op, size, tests, unit in UCX_TESTS:
        for test in (tests if isinstance(tests, tuple) else (tests,)):
            st["port"] += 2
            name, _, times = test.partition("*")
            v = _ucx_run(exe, env, job, size, name, unit, st["port"], st["runs"])
            if v is not None and times:   # a round trip of a one-way figure
                v = v * int(times) if unit in TIME_UNITS else v / int(times)
            if v is not None:
                vals.setdefault((op, size, unit, test), []).append((r, v))
    return True


def ucx_records(st):
    """Per figure, the candidate test with the best median over rounds (lowest
    time, highest bandwidth); one record per round of that test, so that its
    figure is that median and each round pairs with the other launches of the
    same round."""
    records = []
    vals = st.get("ucx", {})
    for op, size, tests, unit in UCX_TESTS:
        best = None
        for test in (tests if isinstance(tests, tuple) else (tests,)):
            v = vals.get((op, size, unit, test), [])
            if not v:
                continue
            med = statistics.median(x for _, x in v)
            if best is None or (med < best[0] if unit in TIME_UNITS else med > best[0]):
                best = (med, test, v)
        if best is None:
            records.append({"_kind": "SKIP", "_run": 0, "impl": "ucx", "suite": "ops",
                            "op": op, "reason": "ucx_perftest_failed"})
            continue
        for r, x in best[2]:
            records.append({"_kind": "RESULT", "_run": r, "impl": "ucx", "suite": "ops",
                            "op": op, "size": str(size), "nproc": "2", "value": str(x),
                            "unit": unit, "test": best[1]})
    return records


def _ucx_run(exe, env, job, size, test, unit, port, runs):
    """One ucx_perftest run of one test; its figure, or None."""
    full = dict(os.environ)
    full.update(env)
    server = subprocess.Popen(["timeout", "30", exe, "-p", str(port)], env=full,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.4)
    tcp = job.config == "vnode-tcp"
    # Bandwidth needs enough messages to reach steady state (a short run
    # understates UCX and flatters Armada).
    n = "300" if size > 4096 else ("500" if tcp else "20000")
    cmd = [exe, "localhost", "-p", str(port), "-t", test, "-s", str(size),
           "-n", n, "-w", "5" if size > 4096 or tcp else "50"]
    rc, out, secs = run_cmd(cmd, env, 30)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    final = [l for l in out.splitlines() if l.startswith("Final:")]
    if rc != 0 or not final:
        runs.append({"status": "failed", "rc": rc, "seconds": round(secs, 2),
                     "command": " ".join(cmd), "env": env,
                     "tail": "\n".join(out.splitlines()[-5:])})
        return None
    runs.append({"status": "ok", "rc": 0, "seconds": round(secs, 2),
                 "command": " ".join(cmd), "env": env})
    return perftest_figure(final[0], unit)


def perftest_figure(final, unit):
    """The figure of ucx_perftest's `Final:` line in unit: latency (us) or
    bandwidth (MB/s)."""
    f = final.split()
    # Final: iters  lat_typical  lat_avg  lat_overall  bw_avg  bw_overall  ...
    # Armada's and the MPI peers' figures are total time over operations, so
    # the UCX figure is too: the overall mean latency, not the typical (a
    # median-like value that leaves out the tail every launch pays).
    return float(f[4]) if unit in TIME_UNITS else float(f[6])


def run_group(group, args):
    """Runs the jobs of one configuration and suite, their launches
    interleaved: round 1 of every implementation, then round 2, and so on,
    so that a slow phase of a noisy machine hits Armada and its peers alike
    instead of whichever happened to run then. Returns [(job, records, runs)]."""
    states = [{"records": [], "runs": [], "live": True} for _ in group]
    for r in range(max(j.runs for j in group)):
        for job, st in zip(group, states):
            if r >= job.runs or not st["live"]:
                continue
            launch = ucx_round if job.impl == "ucx" else mpi_launch
            st["live"] = launch(job, args, r, st)
    out = []
    for job, st in zip(group, states):
        if job.impl == "ucx":
            st["records"] = ucx_records(st)
        out.append((job, st["records"], st["runs"]))
    return out


# ---------------------------------------------------------------- results --
KEY_EXTRA = ("level", "hammers", "rank", "total", "window", "origins", "pairs", "active",
             "stat", "nodes", "procs")


def figure_key(config, kv):
    extra = ";".join("%s=%s" % (k, kv[k]) for k in KEY_EXTRA if k in kv)
    return (config, kv.get("suite"), kv.get("op"), int(kv.get("size", "0") or 0),
            kv.get("unit", ""), extra)


def collect(jobs_done):
    """Figures: the median over runs of each program's median."""
    figs, skips, checks = {}, [], []
    for job, records, runs in jobs_done:
        for kv in records:
            kind = kv["_kind"]
            if kind == "SKIP":
                skips.append({"config": job.config, "impl": kv.get("impl", job.impl),
                              "suite": kv.get("suite", job.suite), "op": kv.get("op", "?"),
                              "reason": kv.get("reason", "?")})
            elif kind == "CHECK":
                checks.append({"config": job.config, "impl": kv.get("impl", job.impl),
                               "suite": kv.get("suite"), "op": kv.get("op"),
                               "expected": kv.get("expected"), "got": kv.get("got"),
                               "ok": kv.get("ok") == "1"})
            else:
                key = figure_key(job.config, kv) + (kv.get("impl", job.impl),)
                f = figs.setdefault(key, {"values": [], "nproc": int(kv.get("nproc", 0)),
                                          "iters": kv.get("iters"), "reps": kv.get("reps")})
                f["values"].append(float(kv["value"]))
                f.setdefault("by_run", {})[kv["_run"]] = float(kv["value"])
                f["test"] = kv.get("test", "")
        for run in runs:
            if run["status"] not in ("ok",):
                skips.append({"config": job.config, "impl": job.impl, "suite": job.suite,
                              "op": "*", "reason": "%s: %s" % (run["status"],
                                                              run.get("reason", "rc=%s" % run.get("rc")))})
    rows = []
    for key, f in sorted(figs.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        config, suite, op, size, unit, extra, impl = key
        vals = f["values"]
        rows.append({"config": config, "impl": impl, "topology": topo_of(impl),
                     "suite": suite, "op": op, "size": size,
                     "unit": unit, "extra": extra, "value": statistics.median(vals),
                     "runs": len(vals), "run_values": vals, "by_run": f["by_run"],
                     "test": f["test"],
                     "nproc": f["nproc"],
                     "iters": f["iters"], "reps": f["reps"]})
    return rows, skips, checks


# Units where a larger figure is better; for every other unit (times, bytes,
# counts) a smaller one is.
RATE_UNITS = {"MB/s", "GB/s", "Mops/s", "kops/s", "ops/s"}
# A figure measured in one launch has no spread of its own: this share of
# the old value stands in for it.
SINGLE_RUN_SPREAD = 0.10


def compare_reports(old_path, rows):
    """The lines of every figure of rows (this run) that moved beyond its
    run-to-run spread against the report at old_path: the difference of the
    medians exceeds the wider of the two runs' ranges (max - min over
    launches), or SINGLE_RUN_SPREAD of the old median where both ran once."""
    path = old_path if old_path.endswith(".json") else os.path.join(old_path, "results.json")
    with open(path) as fh:
        old_rows = json.load(fh)["figures"]

    def key(r):
        return (r["config"], r["impl"], r["suite"], r["op"], r["size"], r["unit"],
                r.get("extra", ""))

    old = {key(r): r for r in old_rows}
    new = {key(r): r for r in rows}

    def peer_drift(r):
        """The same figure of ARMCI-MPI, new over old: how far the machine
        itself moved between the two reports."""
        if r["impl"] == "armcimpi":
            return ""
        k = (r["config"], "armcimpi") + key(r)[2:]
        if k in old and k in new and old[k]["value"]:
            return "  (ARMCI-MPI's x%.2f)" % (new[k]["value"] / old[k]["value"])
        return ""

    moved, compared = [], 0
    for r in rows:
        o = old.get(key(r))
        if o is None:
            continue
        compared += 1
        nv, ov = r["run_values"] or [r["value"]], o.get("run_values") or [o["value"]]
        width = max(max(nv) - min(nv), max(ov) - min(ov))
        if len(nv) < 2 and len(ov) < 2:
            width = SINGLE_RUN_SPREAD * abs(o["value"])
        diff = r["value"] - o["value"]
        if abs(diff) <= width or o["value"] == 0:
            continue
        better = (diff > 0) == (r["unit"] in RATE_UNITS)
        moved.append("%-6s %-9s %-9s %-8s %-9s %-16s %-8s %s %s -> %s %s (x%.2f)%s" % (
            "better" if better else "WORSE", r["config"], r["impl"], r["suite"], r["op"],
            r.get("extra", "") or "-", r["size"], r["unit"],
            "%.4g [%.4g..%.4g]" % (o["value"], min(ov), max(ov)),
            "%.4g [%.4g..%.4g]" % (r["value"], min(nv), max(nv)),
            "" if len(nv) > 1 or len(ov) > 1 else "(single launch: 10 %)",
            r["value"] / o["value"], peer_drift(r)))
    head = ("compare: %d figures in both reports, %d moved beyond their run-to-run spread "
            "(against %s)\n" % (compared, len(moved), old_path))
    return head + "".join(m + "\n" for m in sorted(moved))


def better_ratio(armada, peer, unit):
    """How many times better Armada is than the peer (>1: Armada better)."""
    if armada is None or peer is None or armada <= 0 or peer <= 0:
        return None
    return peer / armada if unit in TIME_UNITS else armada / peer


def fmt(v):
    if v is None:
        return "—"
    if v >= 100:
        return "%.0f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def write_csv(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["config", "impl", "topology", "suite", "op", "size", "unit", "extra",
                    "nproc", "value", "runs", "run_values", "test"])
        for r in rows:
            w.writerow([r["config"], r["impl"], r.get("topology") or "", r["suite"], r["op"],
                        r["size"], r["unit"],
                        r["extra"], r["nproc"], "%.6g" % r["value"], r["runs"],
                        " ".join("%.6g" % v for v in r["run_values"]), r["test"]])


def write_markdown(path, meta, rows, skips, checks, plots, impls):
    idx, idx_run = {}, {}
    for r in rows:
        key = (r["config"], r["suite"], r["op"], r["size"], r["unit"], r["extra"], r["impl"])
        idx[key] = r["value"]
        idx_run[key] = r.get("by_run", {})
    peers = [i for i in impls if i != "armada"]
    out = []
    out.append("# Armada benchmark report\n")
    out.append("Date: %s  \nMachine: %s, %s, %s cores, %s, kernel %s  \n" % (
        meta["date"], meta["machine"]["host"], meta["machine"]["cpu"],
        meta["machine"]["cores"], meta["machine"]["memory"], meta["machine"]["kernel"]))
    out.append("Versions: " + ", ".join("%s %s" % kv for kv in meta["versions"].items()) + "  \n")
    out.append("Command: `%s`  \nWall time: %.0f s\n" % (meta["command"], meta["seconds"]))
    out.append("\nEach figure is the median of repeated runs: every program repeats its "
               "timing loop and reports the median; runs of a program are repeated "
               "(column `runs`) and the median taken again. Ratio = how many times better "
               "Armada is than the peer (peer time / Armada time, or Armada rate / peer "
               "rate): above 1 means Armada is better.\n")
    out.append("\n## Configurations\n")
    for c, d in meta["configs"].items():
        out.append("- **%s**: %s\n" % (c, d))

    # Issue targets.
    out.append("\n## Issue targets\n")
    out.append("Issue 2 targets apply to `node`, issue 3 targets to `vnode-tcp`; `ucx` is the "
               "best of several ucx_perftest primitives (column `test` in results.csv).\n\n")
    out.append("Column `per round` gives the ratio within each round of interleaved "
               "launches, where the peer ran as many launches as Armada.\n\n")
    out.append("| issue | config | figure | Armada | peer | peer value | ratio | per round "
               "| target | verdict |\n")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for config in meta["configs"]:
        for suite, op, size, unit, peer, factor, issue in TARGETS.get(config, _MEASURED):
            if suite not in meta["suites"]:
                continue  # a suite left out of this run has no row to report
            keys = [k for k in idx if k[0] == config and k[1] == suite and k[2] == op
                    and k[3] == size and k[4] == unit]
            extra = keys[0][5] if keys else ""
            peer, _, peer_op = peer.partition("@")
            pkey = (config, suite, peer_op or op, size, unit, extra, peer)
            a = idx.get((config, suite, op, size, unit, extra, "armada"))
            p = idx.get(pkey)
            ratio = better_ratio(a, p, unit)
            ra = idx_run.get((config, suite, op, size, unit, extra, "armada"), {})
            rp = idx_run.get(pkey, {})
            common = sorted(set(ra) & set(rp)) if len(rp) > 1 else []
            rounds = " / ".join(fmt(better_ratio(ra[k], rp[k], unit)) for k in common) or "—"
            if factor is None:
                verdict = "measured" if a is not None else "**missing**"
            elif ratio is None:
                verdict = "**not measured**"
            else:
                verdict = "pass" if ratio >= factor else "**FAIL**"
            out.append("| %s | %s | %s %s B (%s) | %s | %s | %s | %s | %s | %s | %s |\n" % (
                issue, config, op, size, unit, fmt(a), peer + (" (%s)" % peer_op if peer_op else ""), fmt(p),
                fmt(ratio) if ratio else "—", rounds, ("%gx" % factor) if factor else "—",
                verdict))
    floor = [(c, f) for c in meta["configs"] if c == "vnode-tcp" for f in FLOOR
             if any(k[:5] == (c,) + f and k[6] == "tcp" for k in idx)]
    if floor:
        out.append("\nThe kernel's floor: `tcp` runs the same request/reply pattern on plain "
                   "loopback sockets (bench/ref_tcp.c), no UCX. Armada / floor is how close "
                   "Armada comes to it (1: as fast as bare TCP; below 1: slower), and "
                   "ARMCI-MPI / floor the same for the peer.\n\n")
        out.append("| config | figure | Armada | ARMCI-MPI | tcp floor | Armada / floor | "
                   "ARMCI-MPI / floor |\n| --- | --- | --- | --- | --- | --- | --- |\n")
        for c, (suite, op, size, unit) in floor:
            keys = [k for k in idx if k[:5] == (c, suite, op, size, unit)]
            extra = keys[0][5] if keys else ""
            a, p, t = (idx.get((c, suite, op, size, unit, extra, i))
                       for i in ("armada", "armcimpi", "tcp"))
            out.append("| %s | %s %s B (%s) | %s | %s | %s | %s | %s |\n" % (
                c, op, size, unit, fmt(a), fmt(p), fmt(t), fmt(better_ratio(a, t, unit)),
                fmt(better_ratio(p, t, unit))))
    if checks:
        out.append("\nCorrectness checks (final counter after fetch-and-add):\n\n")
        out.append("| config | impl | suite | op | expected | got | ok |\n| --- | --- | --- | --- | --- | --- | --- |\n")
        for c in checks:
            out.append("| %s | %s | %s | %s | %s | %s | %s |\n" % (
                c["config"], c["impl"], c["suite"], c["op"], c["expected"], c["got"],
                "yes" if c["ok"] else "**NO**"))

    out += topology_section(meta, rows)

    # Every figure, Armada against each peer.
    out.append("\n## All figures\n")
    groups = {}
    for k in idx:
        groups.setdefault((k[0], k[1]), set()).add(k[2:6])
    for (config, suite) in sorted(groups):
        out.append("\n### %s / %s\n\n" % (config, suite))
        head = "| op | size | unit | extra | armada |" + "".join(" %s | ratio |" % p for p in peers)
        out.append(head + "\n|" + " --- |" * (5 + 2 * len(peers)) + "\n")
        for op, size, unit, extra in sorted(groups[(config, suite)], key=lambda t: (t[0], t[2], t[3], t[1])):
            a = idx.get((config, suite, op, size, unit, extra, "armada"))
            cells = ["", op, str(size), unit, extra or "", fmt(a) if a is not None else "**missing**"]
            for p in peers:
                v = idx.get((config, suite, op, size, unit, extra, p))
                cells += [fmt(v), fmt(better_ratio(a, v, unit))]
            out.append(" | ".join(cells)[1:] + " |\n")

    out.append("\n## Failed or skipped\n\n")
    if skips:
        out.append("| config | impl | suite | op | reason |\n| --- | --- | --- | --- | --- |\n")
        for s in skips:
            out.append("| %s | %s | %s | %s | %s |\n" % (s["config"], s["impl"], s["suite"],
                                                       s["op"], s["reason"]))
    else:
        out.append("None.\n")
    out.append("\n## Plots\n\n")
    if plots:
        for p in plots:
            out.append("![%s](%s)\n\n" % (p, p))
    else:
        out.append("No plots: %s\n" % meta.get("plot_note", "none produced"))
    open(path, "w").write("".join(out))


# -------------------------------------------------------------- topologies --
def extra_match(pattern, extra):
    """Whether a figure's extra ("k=v;k=v") matches pattern, whose values may
    be * (any)."""
    want = dict(x.split("=", 1) for x in pattern.split(";") if x)
    have = dict(x.split("=", 1) for x in extra.split(";") if x)
    return set(want) == set(have) and all(v == "*" or have[k] == v for k, v in want.items())


def topo_find(rows, config, suite, op, size, unit, pattern, topo):
    """The row of one figure of Armada under topo, or None."""
    for r in rows:
        if (r["config"] == config and r["suite"] == suite and r["op"] == op
                and r["size"] == size and r["unit"] == unit and r.get("topology") == topo
                and extra_match(pattern, r["extra"])):
            return r
    return None


def time_ratio(v, base):
    """v over base (for times: below 1 means faster than base)."""
    return v / base if v is not None and base else None


def with_ratio(r, base, topo):
    if r is None:
        return "—"
    if topo == "fcg" or base is None:
        return fmt(r["value"])
    return "%s (%sx)" % (fmt(r["value"]), fmt(time_ratio(r["value"], base["value"])))


def topology_section(meta, rows):
    """The report's section on the virtual topologies: targets, hot-spot per
    level, uncontended ops, forwarding counters, server memory."""
    trows = [r for r in rows if r.get("topology")]
    topos = [t for t in TOPOLOGIES if any(r["topology"] == t for r in trows)]
    if len(topos) < 2:
        return []
    configs = sorted({r["config"] for r in trows})
    out = ["\n## Virtual topologies (issue 20)\n\n"]
    out.append("Armada under each virtual topology (ARMADA_TOPOLOGY; `armada` is fcg, the "
               "default), launched interleaved in the same run. `(0.52x)` after a figure is "
               "that topology's figure over fcg's: for times below 1 is faster than fcg, "
               "for rates (Mops/s) above 1 is faster.\n")
    # Issue 20's speed targets.
    tgt = [(c, t) for c in configs for t in TOPO_TARGETS
           if t[5] in topos and topo_find(trows, c, t[0], t[1], t[2], t[3], t[4], "fcg")]
    if tgt:
        out.append("\n### Issue 20 speed targets\n\n")
        out.append("The issue asks for these at 16 virtual nodes over TCP, or at 8 where no "
                   "16-core machine is lent; `nproc` says which was run. Column `per round`: "
                   "the ratio within each round of interleaved launches.\n\n")
        out.append("| config | nproc | target | fcg | topology | value | ratio | per round "
                   "| bound | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- "
                   "| --- |\n")
        for c, (suite, op, size, unit, pat, topo, bound, what) in tgt:
            f = topo_find(trows, c, suite, op, size, unit, pat, "fcg")
            m = topo_find(trows, c, suite, op, size, unit, pat, topo)
            ratio = time_ratio(m["value"], f["value"]) if m else None
            rate = unit not in TIME_UNITS
            rounds = "—"
            if m and len(f.get("by_run", {})) > 1:
                common = sorted(set(f["by_run"]) & set(m["by_run"]))
                rounds = " / ".join(fmt(m["by_run"][k] / f["by_run"][k]) for k in common
                                    if f["by_run"][k]) or "—"
            if ratio is None:
                verdict = "**not measured**"
            else:
                verdict = "pass" if (ratio >= bound if rate else ratio <= bound) else "**FAIL**"
            out.append("| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s %sx | %s |\n" % (
                c, f["nproc"], what, unit, fmt(f["value"]), topo,
                fmt(m["value"]) if m else "—", fmt(ratio), rounds, ">=" if rate else "<=",
                fmt(bound), verdict))
    # Hot-spot contention per level.
    for c in configs:
        for op in ("fadd", "putv"):
            levels = sorted({int(dict(x.split("=", 1) for x in r["extra"].split(";"))["level"])
                             for r in trows if r["config"] == c and r["suite"] == "hotspot"
                             and r["op"] == op})
            if not levels:
                continue
            size = 4 if op == "fadd" else 1024
            nproc = next(r["nproc"] for r in trows if r["config"] == c
                         and r["suite"] == "hotspot" and r["op"] == op)
            out.append("\n### Hot spot: %s to rank 0 (%s, %d processes)\n\n" % (op, c, nproc))
            out.append("Mean over the measuring ranks of the time per operation (us), and the "
                       "aggregate rate of the measuring rank and its hammers (Mops/s).\n\n")
            out.append("| level | hammers |" + "".join(" %s us |" % t for t in topos)
                       + "".join(" %s Mops/s |" % t for t in topos) + "\n|"
                       + " --- |" * (2 + 2 * len(topos)) + "\n")
            for lvl in levels:
                pat_t = "level=%d;hammers=*;rank=mean" % lvl
                pat_r = "level=%d;hammers=*;origins=*" % lvl
                ft = topo_find(trows, c, "hotspot", op, size, "us", pat_t, "fcg")
                fr = topo_find(trows, c, "hotspot", op, size, "Mops/s", pat_r, "fcg")
                any_r = ft or next((topo_find(trows, c, "hotspot", op, size, "us", pat_t, t)
                                    for t in topos), None)
                hm = dict(x.split("=", 1) for x in any_r["extra"].split(";"))["hammers"] \
                    if any_r else "?"
                cells = [str(lvl), hm]
                cells += [with_ratio(topo_find(trows, c, "hotspot", op, size, "us", pat_t, t),
                                     ft, t) for t in topos]
                cells += [with_ratio(topo_find(trows, c, "hotspot", op, size, "Mops/s", pat_r,
                                               t), fr, t) for t in topos]
                out.append("| " + " | ".join(cells) + " |\n")
    # Uncontended operations.
    for c in configs:
        ops = sorted({(r["op"], r["size"], r["unit"]) for r in trows
                      if r["config"] == c and r["suite"] == "ops"
                      and not r["op"].startswith("stats_")}, key=lambda k: (k[2], k[0]))
        if not ops:
            continue
        nproc = next(r["nproc"] for r in trows if r["config"] == c and r["suite"] == "ops")
        out.append("\n### Uncontended operations, rank 0 to the last rank (%s, %d processes)"
                   "\n\n" % (c, nproc))
        out.append("| op | size | unit |" + "".join(" %s |" % t for t in topos) + "\n|"
                   + " --- |" * (3 + len(topos)) + "\n")
        for op, size, unit in ops:
            f = topo_find(trows, c, "ops", op, size, unit, "", "fcg")
            out.append("| %s | %d | %s | " % (op, size, unit) + " | ".join(
                with_ratio(topo_find(trows, c, "ops", op, size, unit, "", t), f, t)
                for t in topos) + " |\n")
    out += forwarding_table(trows, topos)
    out += topomem_tables(trows, topos)
    return out


def forwarding_table(trows, topos):
    """The servers' forwarding counters (ARMADA_STATS, summed over servers)."""
    keys = sorted({(r["config"], r["suite"], r["nproc"]) for r in trows
                   if r["op"] == "stats_fwd_requests" and r["suite"] != "topomem"})
    if not keys:
        return []
    out = ["\n### Forwarding, aggregation and combining (ARMADA_STATS)\n\n",
           "Summed over the servers of one launch (the median launch figure): requests "
           "servers sent on, the messages they travelled in (requests per message = the "
           "aggregation ratio), and fetch-and-adds folded into others.\n\n",
           "| config | suite | nproc | topology | fwd requests | fwd messages | requests per "
           "message | combined |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n"]
    for c, suite, nproc in keys:
        for t in topos:
            got = {}
            for op in ("stats_fwd_requests", "stats_fwd_messages", "stats_fwd_combined"):
                r = next((r for r in trows if r["config"] == c and r["suite"] == suite
                          and r["nproc"] == nproc and r["topology"] == t and r["op"] == op),
                         None)
                got[op] = r["value"] if r else None
            req, msg = got["stats_fwd_requests"], got["stats_fwd_messages"]
            out.append("| %s | %s | %d | %s | %s | %s | %s | %s |\n" % (
                c, suite, nproc, t, fmt(req), fmt(msg),
                fmt(req / msg) if req is not None and msg else "—",
                fmt(got["stats_fwd_combined"])))
    return out


TOPOMEM_FIGS = [  # (op, unit, stat, label)
    ("server_buffers", "B", "max", "server request buffers, bytes (max over servers)"),
    ("server_buffers", "B", "mean", "server request buffers, bytes (mean)"),
    ("endpoints", "count", "max", "endpoints during the run (armada_stats_get; max)"),
    ("stats_endpoints", "count", "max", "endpoints at finalize, server-to-server included "
     "(ARMADA_STATS; max)"),
    ("stats_server_clients", "count", "max", "processes a server keeps slots for (max)"),
    ("stats_edges_in", "count", "max", "neighbour servers a server keeps slots for (max)"),
    ("vmrss", "B", "max", "VmRSS, bytes (max over node leaders)"),
    ("vmhwm", "B", "max", "VmHWM, bytes (max over node leaders)"),
    ("vmhwm", "B", "mean", "VmHWM, bytes (mean)"),
]


def topomem_tables(trows, topos):
    mem = [r for r in trows if r["suite"] == "topomem"]
    if not mem:
        return []
    out = ["\n### Server memory per topology (suite topomem)\n\n",
           "Every process puts 8 B to every other process once, then each node leader "
           "reads its server's request-buffer bytes (armada_stats_get; allocated at "
           "start-up), its endpoints and its RSS (/proc/self/status). One process per "
           "virtual node (ARMADA_PPN=1). `endpoints during the run` is armada_stats_get's "
           "count, taken at ARMCI_Init: client-to-server and server-to-client endpoints, "
           "not the server-to-server ones; `endpoints at finalize` is the ARMADA_STATS "
           "count, which includes them. VmRSS and VmHWM count resident pages only: the "
           "servers allocate their request buffers at start-up, and a buffer's pages become "
           "resident when a request is first written into them, so RSS follows the slots "
           "used, not the bytes allocated. `(4.0x)` is the reduction against fcg "
           "(fcg / topology).\n"]
    for c in sorted({r["config"] for r in mem}):
        for nodes in sorted({r["nproc"] for r in mem if r["config"] == c}):
            out.append("\n%s, %d processes as %d virtual nodes:\n\n" % (c, nodes, nodes))
            out.append("| figure |" + "".join(" %s |" % t for t in topos) + "\n|"
                       + " --- |" * (1 + len(topos)) + "\n")
            for op, unit, stat, label in TOPOMEM_FIGS:
                def get(t):
                    return next((r for r in mem if r["config"] == c and r["nproc"] == nodes
                                 and r["op"] == op and r["unit"] == unit
                                 and r["topology"] == t
                                 and extra_match("stat=%s;nodes=*" % stat, r["extra"])), None)
                f = get("fcg")
                cells = []
                for t in topos:
                    r = get(t)
                    if r is None:
                        cells.append("—")
                    elif t == "fcg" or f is None or not r["value"] or not f["value"]:
                        cells.append(fmt(r["value"]))
                    else:
                        cells.append("%s (%sx)" % (fmt(r["value"]), fmt(f["value"] / r["value"])))
                out.append("| %s | %s |\n" % (label, " | ".join(cells)))
    return out


# ------------------------------------------------------------------ plots --
STYLE = {"armada": ("C0", "o"), "armcimpi": ("C1", "s"), "mpi-rma": ("C2", "^"),
         "openshmem": ("C3", "v"), "ucx": ("C4", "x"), "tcp": ("C5", "+"),
         "armada-mfcg": ("C6", "D"), "armada-cfcg": ("C8", "P"),
         "armada-hypercube": ("C9", "*")}


def spans_decades(values):
    """Whether positive values span more than a factor of ten (a linear axis
    would flatten the smaller ones to zero)."""
    vals = [v for v in values if v and v > 0]
    return bool(vals) and max(vals) > 10 * min(vals)


def make_plots(outdir, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    files = []

    def select(**want):
        return [r for r in rows if all(r.get(k) == v for k, v in want.items())]

    def series_plot(fname, title, panels, xlabel, ylabel, logx=True, logy=True):
        """logy=None: logarithmic in each panel whose values span more than a
        decade."""
        panels = [(t, s) for t, s in panels if s]
        if not panels:
            return
        auto_logy = logy is None
        fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
        for ax, (ptitle, series) in zip(axes[0], panels):
            for label, pts in series:
                pts = sorted(pts)
                impl = label.split()[0]
                color, marker = STYLE.get(impl, ("k", "."))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker,
                        color=color, label=label, markersize=4,
                        linestyle="--" if "tcp" in label else "-")
            if logx:
                ax.set_xscale("log", base=2)
            if (spans_decades([p[1] for _, pts in series for p in pts]) if auto_logy
                    else logy):
                ax.set_yscale("log")
            ax.set_title(ptitle)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, fname), dpi=90)
        plt.close(fig)
        files.append(fname)

    configs = sorted({r["config"] for r in rows})
    impls = sorted({r["impl"] for r in rows})

    def by_impl(suite, op, unit, config, extra=None, maxsize=None, minsize=None):
        out = []
        for impl in impls:
            pts = [(r["size"], r["value"]) for r in select(suite=suite, op=op, unit=unit,
                                                          config=config, impl=impl)
                   if (extra is None or r["extra"] == extra)
                   and (maxsize is None or r["size"] <= maxsize)
                   and (minsize is None or r["size"] >= minsize)]
            if pts:
                out.append((impl, pts))
        return out

    for c in configs:
        series_plot("latency-%s.png" % c, "Contiguous latency (%s)" % c,
                    [(op, by_impl("contig", op, "us", c)) for op in ("put", "get", "acc")],
                    "bytes", "us per operation")
        series_plot("bandwidth-%s.png" % c, "Contiguous bandwidth (%s)" % c,
                    [(op, by_impl("contig", op, "MB/s", c)) for op in ("put", "get", "acc")],
                    "bytes", "MB/s")
        series_plot("accumulate-%s.png" % c, "Accumulate, small and large (%s)" % c,
                    [("small: latency", by_impl("contig", "acc", "us", c, maxsize=1024)),
                     ("large: bandwidth", by_impl("contig", "acc", "MB/s", c, minsize=1024))],
                    "bytes", "us / MB/s")
        series_plot("strided-%s.png" % c, "Strided bandwidth vs chunk size (%s)" % c,
                    [(op, by_impl("strided", op, "MB/s", c)) for op in ("puts", "gets")],
                    "chunk bytes", "MB/s")
        series_plot("vector-%s.png" % c, "Vector bandwidth vs segment size (%s)" % c,
                    [(op, by_impl("vector", op, "MB/s", c)) for op in ("putv", "getv")],
                    "segment bytes", "MB/s")
        series_plot("flood-%s.png" % c, "Flood bandwidth and message rate (%s)" % c,
                    [("nbput MB/s", by_impl("flood", "nbput", "MB/s", c)),
                     ("nbput Mmsg/s", by_impl("flood", "nbput", "Mmsg/s", c)),
                     ("nbget MB/s", by_impl("flood", "nbget", "MB/s", c))],
                    "bytes", "rate")
        # Hot-spot: mean against contention level, and per-rank time.
        for op in ("fadd", "putv"):
            hs = [r for r in rows if r["config"] == c and r["suite"] == "hotspot" and r["op"] == op]
            if not hs:
                continue
            mean_series, rank_panels = [], []
            for impl in impls:
                pts = []
                for r in hs:
                    kv = dict(x.split("=") for x in r["extra"].split(";") if "=" in x)
                    if r["impl"] == impl and kv.get("rank") == "mean":
                        pts.append((int(kv["level"]), r["value"]))
                if pts:
                    mean_series.append((impl, pts))
                per = {}
                for r in hs:
                    kv = dict(x.split("=") for x in r["extra"].split(";") if "=" in x)
                    if r["impl"] == impl and kv.get("rank", "mean") != "mean":
                        per.setdefault(int(kv["level"]), []).append((int(kv["rank"]), r["value"]))
                if per:
                    rank_panels.append(("%s per rank" % impl,
                                        [("%s %d%%" % (impl, lvl), pts) for lvl, pts in sorted(per.items())]))
            series_plot("hotspot-%s-%s.png" % (op, c),
                        "Hot-spot %s to rank 0 against contention (%s)" % (op, c),
                        [("mean over ranks", mean_series)], "% of other processes hammering",
                        "us per operation", logx=False, logy=None)
            if len([i for i in impls if topo_of(i)]) > 1:
                # Under several topologies: the paper's Figs 10-12 instead,
                # one panel per level, one line per topology.
                panels = []
                for lvl in sorted({int(dict(x.split("=", 1) for x in r["extra"].split(";"))
                                       ["level"]) for r in hs}):
                    series = []
                    for impl in impls:
                        pts = []
                        for r in hs:
                            kv = dict(x.split("=", 1) for x in r["extra"].split(";"))
                            if (r["impl"] == impl and r["unit"] == "us"
                                    and kv.get("level") == str(lvl)
                                    and kv.get("rank", "mean") != "mean"):
                                pts.append((int(kv["rank"]), r["value"]))
                        if pts:
                            series.append((topo_label(impl), pts))
                    panels.append(("%d%% hammering" % lvl, series))
                series_plot("hotspot-%s-topo-%s.png" % (op, c),
                            "Per-rank %s time to rank 0 under each topology (%s)" % (op, c),
                            panels, "measuring rank", "us per operation", logx=False, logy=None)
                rates = []
                for impl in impls:
                    pts = []
                    for r in hs:
                        kv = dict(x.split("=", 1) for x in r["extra"].split(";"))
                        if r["impl"] == impl and r["unit"] == "Mops/s":
                            pts.append((int(kv["level"]), r["value"]))
                    if pts:
                        rates.append((topo_label(impl), pts))
                series_plot("hotspot-%s-rate-%s.png" % (op, c),
                            "Aggregate %s rate to rank 0 (%s)" % (op, c),
                            [("measuring rank + hammers", rates)],
                            "% of other processes hammering", "Mops/s", logx=False, logy=None)
            else:
                series_plot("hotspot-%s-ranks-%s.png" % (op, c),
                            "Per-rank %s time to rank 0 (%s)" % (op, c), rank_panels,
                            "rank", "us per operation", logx=False, logy=None)
        # Server memory against process count, one line per topology.
        mem = [r for r in rows if r["config"] == c and r["suite"] == "topomem"]
        panels = []
        for op, unit, stat, label in (("server_buffers", "B", "max", "request buffers per server"),
                                      ("vmhwm", "B", "max", "VmHWM per node leader"),
                                      ("stats_endpoints", "count", "max",
                                       "endpoints per process (finalize)")):
            series = []
            for impl in impls:
                pts = [(r["nproc"], r["value"] / (1 if unit == "count" else 1048576.0))
                       for r in mem if r["impl"] == impl and r["op"] == op
                       and extra_match("stat=%s;nodes=*" % stat, r["extra"])]
                if pts:
                    series.append((topo_label(impl), pts))
            panels.append((label + ("" if unit == "count" else " (MiB)"), series))
        series_plot("topomem-%s.png" % c, "Server memory against processes (%s)" % c,
                    panels, "processes (= virtual nodes)", "MiB / count", logx=True, logy=None)
    return files


# ------------------------------------------------------------------- main --
def main():
    maybe_reexec()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="CMake build folder")
    ap.add_argument("--default", action="store_true", help="run the default set")
    ap.add_argument("--quick", action="store_true", help="shorter runs (smoke test)")
    ap.add_argument("--suites", default=None,
                    help="comma-separated (default: %s; also: %s)" % (
                        ",".join(SUITES), ",".join(EXTRA_SUITES)))
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--runs", type=int, default=0,
                    help="launches per program (default: 5 for ops and fadd, 1 otherwise)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per launch")
    ap.add_argument("--rep-seconds", type=float, default=None,
                    help="seconds of one timing repetition (-R) in every suite")
    ap.add_argument("--budget", type=int, default=None,
                    help="total seconds; later jobs are reported as skipped "
                         "(default 540 with --default, else none)")
    ap.add_argument("--out", default=None, help="report folder (default report/bench-<date>)")
    ap.add_argument("--topologies", default=None,
                    help="run Armada under each of these virtual topologies side by side "
                         "on the virtual-node configurations (%s; fcg is armada itself)"
                         % ",".join(TOPOLOGIES))
    ap.add_argument("--np", type=int, default=0,
                    help="processes of every suite but topomem (default: the suite's own)")
    ap.add_argument("--topomem-np", default="16,32,64",
                    help="process counts (= virtual nodes) of suite topomem")
    ap.add_argument("--topomem-runs", type=int, default=1,
                    help="launches per topology and process count of suite topomem "
                         "(its byte counts are exact; RSS varies a little)")
    ap.add_argument("--startup-np", default="1,2,4,8,16,32,64",
                    help="process counts of suite startup")
    ap.add_argument("--startup-runs", type=int, default=3,
                    help="launches per library and process count of suite startup")
    ap.add_argument("--select", choices=["quick"], default=None,
                    help="quick: the selection to run before and after a change to a hot "
                         "path or the start path (startup at 1, 4 and 16, ops on one node "
                         "and over TCP, one hot-spot row; under 3 minutes)")
    ap.add_argument("--lib", default=None, metavar="DIR",
                    help="run Armada's programs against the libarmci.so in DIR (the "
                         "src folder of another build): the before of a comparison")
    ap.add_argument("--compare", default=None, metavar="OLD",
                    help="an earlier report folder (or its results.json): print every "
                         "figure that moved beyond its run-to-run spread against it")
    args = ap.parse_args()
    global ARMADA_LIB
    ARMADA_LIB = os.path.abspath(args.lib) if args.lib else None
    if args.select == "quick":
        args.suites = ",".join(s for s, *_ in QUICK_SELECTION)
        args.configs = "node,vnode-tcp"
        args.impls = "armada,armcimpi"
    args.suites_given = args.suites is not None
    args.suites = [s for s in (args.suites or ",".join(SUITES)).split(",") if s]
    args.impls = [s for s in args.impls.split(",") if s]
    args.configs = [s for s in args.configs.split(",") if s]
    for s in args.suites:
        if s not in SUITES + EXTRA_SUITES:
            ap.error("unknown suite %s" % s)
    args.all_impls = list(args.impls)
    if args.topologies is not None:
        topos = [t for t in args.topologies.split(",") if t]
        for t in topos:
            if t not in TOPOLOGIES:
                ap.error("unknown topology %s" % t)
        if "armada" not in args.all_impls:
            args.all_impls.insert(0, "armada")
        args.all_impls += [topo_impl(t) for t in topos if t != "fcg"]
    args.topomem_np = [int(x) for x in args.topomem_np.split(",") if x]
    args.startup_np = [int(x) for x in args.startup_np.split(",") if x]
    for c in args.configs:
        if c not in CONFIGS:
            ap.error("unknown config %s" % c)
    args.build = os.path.abspath(args.build)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = args.out or os.path.join(ROOT, "report", "bench-" + stamp)
    os.makedirs(outdir, exist_ok=True)

    jobs = default_jobs(args)
    if args.budget is None and args.default:
        args.budget = 540
    t_start = time.time()
    log("armada-bench: %d jobs, report in %s" % (len(jobs), outdir))
    done = []
    groups = {}
    for job in jobs:   # one group per configuration and suite, in plan order
        groups.setdefault((job.config, job.suite), []).append(job)
    for (config, suite), group in groups.items():
        t0 = time.time()
        if args.budget and t0 - t_start > args.budget:
            for job in group:
                runs = [{"status": "skipped", "reason": "time budget of %ds spent" % args.budget}]
                done.append((job, [], runs))
                log("[%3d/%d] %-40s skipped (time budget)" % (len(done), len(jobs), job.name()))
            continue
        for job, records, runs in run_group(group, args):
            done.append((job, records, runs))
            states = ",".join(sorted({r["status"] for r in runs})) or "none"
            log("[%3d/%d] %-40s %s, %d figures" % (
                len(done), len(jobs), job.name(), states,
                sum(1 for r in records if r["_kind"] == "RESULT")))
        log("      %s/%s: %.1fs, launches interleaved (elapsed %.0fs)" % (
            config, suite, time.time() - t0, time.time() - t_start))

    rows, skips, checks = collect(done)
    # Jobs that produced nothing at all are reported as failed figures.
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
        "machine": machine(), "versions": versions(),
        "configs": {
            "node": "one node, shared memory; mpirun " + " ".join(MPIRUN_BASE),
            "vnode": "virtual nodes ARMADA_PPN=1, UCX default transports; peers with --mca osc ucx",
            "vnode-tcp": "virtual nodes ARMADA_PPN=1 with UCX_TLS=tcp,self; peers with --mca osc ucx -x UCX_TLS=tcp,self",
        },
        "suites": args.suites, "impls": args.all_impls,
        "topologies": args.topologies.split(",") if args.topologies else None,
        "jobs": [{"config": j.config, "impl": j.impl, "suite": j.suite, "np": j.np,
                  "args": j.args, "runs": runs} for j, _, runs in done],
    }
    meta["configs"] = {k: v for k, v in meta["configs"].items() if k in args.configs}
    plots = []
    if have_matplotlib():
        try:
            plots = make_plots(outdir, rows)
        except Exception as e:  # a plot failure must not lose the figures
            meta["plot_note"] = "plotting failed: %s" % e
    else:
        meta["plot_note"] = "matplotlib not available"
    meta["seconds"] = time.time() - t_start
    with open(os.path.join(outdir, "results.json"), "w") as fh:
        json.dump({"meta": meta, "figures": rows, "skipped": skips, "checks": checks},
                  fh, indent=1)
    write_csv(os.path.join(outdir, "results.csv"), rows)
    write_markdown(os.path.join(outdir, "report.md"), meta, rows, skips, checks, plots,
                   args.all_impls)
    # Suites with a page of their own (tables and plots), linked from
    # report.md: overheads (plot_overheads.py, decision 065) and startup
    # (startup_report.py, issue 57).
    sys.path.insert(0, HERE)
    for suite, module, page, heading, what in (
            ("overheads", "plot_overheads", "overheads.md", "Non-data overheads",
             "Tables and plots per cost"),
            ("startup", "startup_report", "startup.md", "Start-up",
             "Tables and plots against the number of processes")):
        srows = [r for r in rows if r["suite"] == suite]
        if suite not in args.suites or not srows:
            continue
        __import__(module).write_report(outdir, srows, page)
        with open(os.path.join(outdir, "report.md"), "a") as fh:
            fh.write("\n## %s\n\n%s: [%s](%s).\n" % (heading, what, page, page))
    if args.compare:
        text = compare_reports(args.compare, rows)
        sys.stdout.write(text)
        with open(os.path.join(outdir, "compare.md"), "w") as fh:
            fh.write("# Against %s\n\n```\n%s```\n" % (args.compare, text))
    log("armada-bench: done in %.0fs: %d figures, %d failed/skipped, report %s" % (
        meta["seconds"], len(rows), len(skips), os.path.join(outdir, "report.md")))
    bad = [c for c in checks if not c["ok"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
