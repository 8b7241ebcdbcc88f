#!/usr/bin/env python3
"""Smoke test of the benchmark harness and programs: one short launch of the
ops and fadd suites of Armada and its peers, on one node and on two virtual
nodes over TCP. It checks that every figure the report should hold is there
and positive, that the fetch-and-add counts are exact, and that nothing was
skipped except the operations a peer has no equivalent for. Then the
topology plumbing of issue 20: launch settings per topology, the parsing of
ARMADA_STATS lines, and one launch of suite topomem under fcg and mfcg at 4
virtual nodes; one launch of suite startup (issue 57) at 2 processes; and
--compare on two made-up reports. No timing is judged here: speed is the
report's business, not a test's.

Usage: bench_smoke.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(ROOT, "tools", "bench", "armada_bench.py")
OPS = ["get", "put", "acc", "lock", "fadd", "puts", "get1m", "get1m_nb", "put1m"]
CONFIGS = ["node", "vnode-tcp"]


def fail(msg):
    print("bench_smoke: FAIL: " + msg)
    sys.exit(1)


def harness():
    """The harness as a module (nothing written into the source tree)."""
    sys.dont_write_bytecode = True
    if os.path.dirname(HARNESS) not in sys.path:
        sys.path.insert(0, os.path.dirname(HARNESS))
    import armada_bench
    return armada_bench


def check_perftest_parse():
    """The UCX figure is read from the columns that match how Armada's are
    measured: overall mean latency, overall bandwidth."""
    armada_bench = harness()
    line = "Final:  100000  11.243  11.658  11.645  0.65  0.66  85775  85876"
    lat = armada_bench.perftest_figure(line, "us")
    bw = armada_bench.perftest_figure(line, "MB/s")
    if lat != 11.645 or bw != 0.66:
        fail("ucx_perftest line read as latency %r, bandwidth %r "
             "(want the overall columns 11.645 and 0.66)" % (lat, bw))


def check_ref_tcp_wait(build):
    """ref-tcp's client waits the way REF_TCP_WAIT says (recv or epoll), says
    so, and refuses any other value with a message instead of guessing."""
    armada_bench = harness()
    prog = os.path.join(build, "bench", "ref-tcp")
    base = ["mpirun"] + armada_bench.MPIRUN_BASE + ["-x", "REF_TCP_WAIT", "-np", "2", prog,
                                                    "ops", "-r", "1", "-n", "200"]
    for wait, ok in (("recv", True), ("epoll", True), ("sleep", False)):
        env = dict(os.environ, REF_TCP_WAIT=wait)
        p = subprocess.run(["timeout", "120"] + base, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if not ok:
            if p.returncode == 0 or "REF_TCP_WAIT=sleep" not in p.stdout:
                fail("ref-tcp accepted REF_TCP_WAIT=sleep (rc %d):\n%s" % (p.returncode, p.stdout))
            continue
        if p.returncode != 0:
            fail("ref-tcp with REF_TCP_WAIT=%s exited %d:\n%s" % (wait, p.returncode, p.stdout))
        if "client_wait=%s" % wait not in p.stdout:
            fail("ref-tcp with REF_TCP_WAIT=%s did not report that wait:\n%s" % (wait, p.stdout))
        gets = [l for l in p.stdout.splitlines() if l.startswith("RESULT") and " op=get " in l]
        if not gets or not float(gets[0].split("value=")[1].split()[0]) > 0:
            fail("ref-tcp with REF_TCP_WAIT=%s gave no get figure:\n%s" % (wait, p.stdout))


def check_topology_plumbing():
    """Armada under a topology is the same program with ARMADA_TOPOLOGY set
    (fcg: none, the default); the default set adds none; the ARMADA_STATS
    lines of the servers become per-launch figures."""
    ab = harness()
    opts, env = ab.launch_env("vnode-tcp", "armada-mfcg", stats=True)
    if env.get("ARMADA_TOPOLOGY") != "mfcg" or env.get("ARMADA_PPN") != "1" \
            or env.get("ARMADA_STATS") != "1" or "ARMADA_TOPOLOGY=mfcg" not in opts:
        fail("launch_env of armada-mfcg: %r %r" % (opts, env))
    opts, env = ab.launch_env("vnode-tcp", "armada")
    if "ARMADA_TOPOLOGY" in env or "ARMADA_STATS" in env:
        fail("launch_env of armada sets %r" % env)
    if ab.program("build", "armada-hypercube", "ops") != ab.program("build", "armada", "ops"):
        fail("armada-hypercube does not run Armada's program")
    if ab.topo_of("armcimpi") is not None or ab.topo_of("armada") != "fcg":
        fail("topo_of names a topology wrongly")
    out = ("armada[rank 1] stats: rmw/server=3(12B) shm_mapped=4096B server_buffers=100B "
           "server_requests=2 endpoints=6 server_clients=3 edges_in=2 edges_out=1 "
           "fwd_requests=10 fwd_messages=4 fwd_combined=2 fwd_in_requests=0 fwd_in_messages=0\n"
           "armada[rank 0] stats: shm_mapped=8192B server_buffers=300B server_requests=9 "
           "endpoints=8 server_clients=3 edges_in=2 edges_out=0 fwd_requests=6 fwd_messages=2 "
           "fwd_combined=0 fwd_in_requests=5 fwd_in_messages=5\n"
           "armada[rank 2] stats: put/rma=1(8B) shm_mapped=4096B server_buffers=0B "
           "server_requests=0 endpoints=4\n")
    job = ab.Job("vnode-tcp", "armada-mfcg", "topomem", 3, [], 1)
    got = {(r["op"], r["stat"]): float(r["value"]) for r in ab.stats_records(job, out, 0)}
    want = {("stats_server_buffers", "max"): 300, ("stats_server_buffers", "mean"): 200,
            ("stats_endpoints", "max"): 8, ("stats_fwd_requests", "sum"): 16,
            ("stats_fwd_messages", "sum"): 6, ("stats_fwd_combined", "sum"): 2}
    for k, v in want.items():
        if got.get(k) != v:
            fail("ARMADA_STATS figure %s: got %r, want %r" % (k, got.get(k), v))


def check_topomem(build):
    """Suite topomem under fcg and mfcg at 4 virtual nodes over TCP: every
    put arrived, each topology has its own server figures."""
    with tempfile.TemporaryDirectory(prefix="armada-bench-topo-") as out:
        cmd = [sys.executable, HARNESS, "--build", build, "--impls", "armada",
               "--configs", "vnode-tcp", "--suites", "topomem", "--topologies", "fcg,mfcg",
               "--topomem-np", "4", "--timeout", "120", "--out", out]
        print(" ".join(cmd), flush=True)
        if subprocess.call(cmd) != 0:
            fail("the harness's topomem run failed")
        with open(os.path.join(out, "results.json")) as fh:
            res = json.load(fh)
        with open(os.path.join(out, "report.md")) as fh:
            report = fh.read()
    if res["skipped"] or len(res["checks"]) != 2 or not all(c["ok"] for c in res["checks"]):
        fail("topomem: skipped %s, checks %s" % (res["skipped"], res["checks"]))
    for topo in ("fcg", "mfcg"):
        for op in ("server_buffers", "endpoints", "vmhwm", "stats_endpoints"):
            vals = [f["value"] for f in res["figures"] if f["topology"] == topo
                    and f["op"] == op and "stat=max" in f["extra"] and f["nproc"] == 4]
            if len(vals) != 1 or not vals[0] > 0:
                fail("topomem %s %s: %r" % (topo, op, vals))
    if "Server memory per topology" not in report:
        fail("the report has no server memory table")


def check_compare():
    """--compare: a figure whose medians differ by more than the wider of the
    two reports' ranges is printed, with its direction; one within them, or
    present in one report only, is not."""
    ab = harness()

    def row(impl, op, unit, runs):
        return {"config": "node", "impl": impl, "suite": "ops", "op": op, "size": 8,
                "unit": unit, "extra": "", "value": sorted(runs)[len(runs) // 2],
                "run_values": runs}
    old = [row("armada", "get", "us", [1.0, 1.1, 1.2]), row("armada", "put", "us", [2.0, 2.1]),
           row("armada", "bw", "MB/s", [100.0, 101.0]), row("armcimpi", "get", "us", [5.0, 5.1]),
           row("armada", "gone", "us", [1.0, 1.0])]
    new = [row("armada", "get", "us", [1.6, 1.7, 1.8]), row("armada", "put", "us", [2.05, 2.1]),
           row("armada", "bw", "MB/s", [150.0, 151.0]), row("armcimpi", "get", "us", [5.0, 5.2])]
    with tempfile.TemporaryDirectory(prefix="armada-compare-") as d:
        with open(os.path.join(d, "results.json"), "w") as fh:
            json.dump({"figures": old}, fh)
        text = ab.compare_reports(d, new)
    lines = text.splitlines()
    if not lines[0].startswith("compare: 4 figures in both reports, 2 moved"):
        fail("compare's summary: %r" % lines[0])
    moved = {l.split()[4]: l.split()[0] for l in lines[1:]}
    if moved != {"get": "WORSE", "bw": "better"}:
        fail("compare flagged %r, expected get WORSE and bw better" % moved)
    if "ARMCI-MPI's x1.02" not in text:   # 5.2 / 5.1
        fail("compare does not show how far ARMCI-MPI's same figure moved: %r" % text)
    print("bench_smoke: --compare flags what moved beyond its spread, and only that")


def check_startup(build):
    """Suite startup: one launch per library at 2 processes on one node and
    as 2 virtual nodes over TCP; every figure present, the first get read
    the right value (CHECK), Armada's steps reported, startup.md written."""
    if not os.path.exists(os.path.join(build, "bench", "armada-bench-startup")):
        fail("armada-bench-startup not built")
    with tempfile.TemporaryDirectory(prefix="armada-bench-startup-") as out:
        cmd = [sys.executable, HARNESS, "--build", build, "--suites", "startup",
               "--startup-np", "2", "--startup-runs", "1", "--configs", "node,vnode-tcp",
               "--out", out]
        print(" ".join(cmd), flush=True)
        if subprocess.call(cmd) != 0:
            fail("the startup suite exited non-zero (a first get read a wrong value?)")
        with open(os.path.join(out, "results.json")) as fh:
            res = json.load(fh)
        if not os.path.exists(os.path.join(out, "startup.md")):
            fail("no startup.md in the report")
    figs = {(f["config"], f["impl"], f["op"]) for f in res["figures"]}
    impls = ["armada"] + (["armcimpi"] if os.path.exists(
        os.path.join(build, "bench", "armcimpi-bench-startup")) else [])
    for config in ("node", "vnode-tcp"):
        for impl in impls:
            for op in ("init", "malloc", "first_get", "ttfb", "init_malloc_cpu", "rss_alloc"):
                if (config, impl, op) not in figs:
                    fail("no %s %s figure in %s" % (impl, op, config))
        for op in ("step_nodes", "step_network_cpu", "endpoints"):
            if (config, "armada", op) not in figs:
                fail("no Armada %s figure in %s" % (op, config))
    bad = [c for c in res["checks"] if not c["ok"]]
    if bad or not res["checks"]:
        fail("startup checks: %r" % res["checks"])
    print("bench_smoke: suite startup reports every figure, steps and endpoints")


def main():
    build = sys.argv[1]
    check_compare()
    check_startup(build)
    check_perftest_parse()
    check_topology_plumbing()
    check_ref_tcp_wait(build)
    def built(name):
        return os.path.exists(os.path.join(build, "bench", name))
    # ARMCI-MPI and OpenSHMEM are optional build dependencies: their peers
    # join when their programs were built.
    have_armcimpi = built("armcimpi-bench-ops")
    have_shmem = built("ref-shmem")
    impls = (["armada", "mpi-rma", "tcp"] + (["armcimpi"] if have_armcimpi else [])
             + (["openshmem"] if have_shmem else []))
    print("bench_smoke: peers %s" % ", ".join(impls[1:]))
    with tempfile.TemporaryDirectory(prefix="armada-bench-smoke-") as out:
        cmd = [sys.executable, HARNESS, "--build", build, "--quick", "--runs", "1",
               "--configs", ",".join(CONFIGS), "--suites", "ops,fadd",
               "--impls", ",".join(impls), "--out", out]
        print(" ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
        if rc != 0:
            fail("the harness exited %d (a fetch-and-add count was wrong?)" % rc)
        with open(os.path.join(out, "results.json")) as fh:
            res = json.load(fh)
        with open(os.path.join(out, "report.md")) as fh:
            report = fh.read()
    figs = {(f["config"], f["impl"], f["suite"], f["op"], f["unit"]): f["value"]
            for f in res["figures"]}
    for key, value in figs.items():
        if not value > 0:
            fail("figure %s is %r" % (key, value))
    for config in CONFIGS:
        for op in OPS:
            if (config, "armada", "ops", op, "us") not in figs:
                fail("no Armada %s figure in %s" % (op, config))
        for impl in impls:
            if impl == "tcp" and config != "vnode-tcp":   # the TCP floor runs there only
                continue
            if (config, impl, "fadd", "fadd_all", "Mops/s") not in figs:
                fail("no %s fetch-and-add aggregate in %s" % (impl, config))
        for impl in [i for i in impls if i not in ("armada", "tcp")]:
            if (config, impl, "ops", "puts", "us") not in figs:
                fail("no %s strided put in %s" % (impl, config))
    bad = [s for s in res["skipped"] if s.get("reason") != "no_equivalent"]
    if bad:
        fail("failed or skipped: %s" % bad)
    expected_skips = {("mpi-rma", "lock"), ("openshmem", "acc")}
    got_skips = {(s["impl"], s["op"]) for s in res["skipped"]}
    if got_skips - expected_skips:
        fail("unexpected no_equivalent skips: %s" % sorted(got_skips - expected_skips))
    checks = res["checks"]
    if not checks or not all(c["ok"] for c in checks):
        fail("fetch-and-add checks: %s" % checks)
    if "**missing**" in report:
        fail("the report lists a missing Armada figure")
    print("bench_smoke: %d figures, %d checks exact, skips only %s" % (
        len(figs), len(checks), sorted(got_skips)))
    check_topomem(build)
    print("bench_smoke: topology plumbing and topomem under fcg and mfcg fine")


if __name__ == "__main__":
    main()
