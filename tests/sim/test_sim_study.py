#!/usr/bin/env python3
"""Self-test of tools/sim/sim_study.py and sim_validate.py on synthetic
armada-sim output: the line parser, the memory study's increments, cuts and
growth exponents, the contention and hot100 summaries and the issue's goal
ratios, the connection tables and their checks, the validation's cell matching and 25 % test, and one end-to-end
--quick run of sim_study against a stand-in simulator (a few lines of
Python written to a temporary folder), including a failing run. No real
simulator is needed. Exits non-zero on the first failure.

Usage: test_sim_study.py"""
import io
import json
import math
import os
import sys
import tempfile
from contextlib import redirect_stderr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "sim"))
sys.dont_write_bytecode = True
import sim_study  # noqa: E402
import sim_validate  # noqa: E402
import sim_fit  # noqa: E402

CHECKS = [0]


def fail(msg):
    print("test_sim_study: FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    CHECKS[0] += 1
    if not cond:
        fail(msg)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# ------------------------------------------------------------------ parser --
def test_parser():
    rec = sim_study.parse_line("SIM exp=memory topo=mfcg dims=32x32 procs=12288 ppn=12 "
                               "nodes=1024 node=max buffer_bytes=123 ep_client=63 x=1.5e3")
    check(rec["kind"] == "SIM" and rec["topo"] == "mfcg" and rec["dims"] == "32x32",
          "SIM line text fields: %r" % rec)
    check(rec["procs"] == 12288 and isinstance(rec["procs"], int), "procs parsed as int")
    check(rec["node"] == "max" and rec["x"] == 1500.0, "node=max and a float in e notation")
    m = sim_study.parse_line('MODEL source="defaults" lat_us=0.39000000000000001')
    check(m["source"] == "defaults" and m["lat_us"] == 0.39, "quotes dropped: %r" % m)
    m = sim_study.parse_line('MODEL source="calibrated from r.json (vnode-tcp, 8 processes); '
                             'defaults: copy_ns" cores=2')
    check(m["source"] == "calibrated from r.json (vnode-tcp, 8 processes); defaults: copy_ns"
          and m["cores"] == 2, "a quoted value with spaces: %r" % m)
    m = sim_study.parse_line("MODEL source=123 cores=2 lat_us=9.5")
    check(m["source"] == "123" and m["cores"] == 2 and m["lat_us"] == 9.5,
          "MODEL source stays text, numbers are numbers: %r" % m)
    check(sim_study.parse_line("armada-sim: note") is None, "unknown lines are not records")
    try:
        sim_study.parse_line("SIM exp=memory stray")
        fail("a token without '=' was accepted")
    except ValueError:
        pass
    text = "\n".join(["MODEL source=defaults cores=2", "junk line",
                      "SIM exp=hot100 topo=fcg procs=4 ppn=1 rank=1 us=2.5",
                      "SIM exp=hot100 topo=fcg procs=4 ppn=1 rank=mean us=2.5",
                      "SIMSTAT events=10 sim_us=5 wall_s=0.1 maxrss_kb=100"])
    out = sim_study.parse_output(text + "\nSIMCHECK stuck=0 fadd_dup=0 ok=1")
    check(out["model"]["source"] == "defaults" and len(out["records"]) == 2
          and out["simstat"]["events"] == 10 and out["other"] == 1
          and out["checks"] == [{"kind": "SIMCHECK", "stuck": 0, "fadd_dup": 0, "ok": 1}],
          "parse_output: model, 2 records, simstat, a check, 1 other line: %r" % out)
    out = sim_study.parse_output("MODEL source=x\nSIM exp=hot100 rank=1 us=1")
    check(out["simstat"] is None, "a missing SIMSTAT line is reported as None")
    lines = ["SIM exp=hotspot topo=fcg procs=9 level=0 hammers=0 rank=%d us=%d" % (r, 10 + r)
             for r in range(1, 9)]
    lines.insert(4, "SIM exp=hotspot topo=fcg procs=9 level=0 hammers=1 rank=50 us=7")
    lines += ["SIM exp=hotspot topo=fcg procs=9 level=0 hammers=0 rank=mean us=14.5"]
    recs = [sim_study.parse_line(x) for x in lines]
    packed = sim_study.compact_records(recs)
    check(len(packed) == 3 and packed[0]["rank"] == list(range(1, 9)),
          "per-rank records packed into columns: %r" % packed)
    back = sim_study.expand_records(json.loads(json.dumps(packed)))
    key = (lambda r: (str(r["rank"]), r["hammers"]))
    check(sorted(back, key=key) == sorted(recs, key=key), "packed records expand to the same")


# ------------------------------------------------------------------ memory --
SLOT = 4 * 16384


def mem_bytes(series, nodes):
    """Synthetic bytes per node: 12 clients' slots plus edges x 12 x slots."""
    base = 12 * SLOT
    if series in ("fcg", "fcg-defaults"):
        edges = nodes - 1
    elif series == "mfcg":      # about 7.5 times fewer edges than FCG at 1024 nodes
        edges = round((nodes - 1) / 7.5)
    elif series == "cube":      # exactly the cube root
        return int(1000 * nodes ** (1.0 / 3.0))
    else:
        edges = 0
    return base + edges * 12 * SLOT


def mem_run(series, procs, topo=None):
    nodes = procs // 12
    recs = []
    b = mem_bytes(series, nodes)
    for node, bb in (("0", b), ("max", b), ("mean", b // 2)):
        line = ("SIM exp=memory topo=%s dims=%d procs=%d ppn=12 nodes=%d node=%s buffer_bytes=%d "
                "clients=12 edges_in=1 edges_out=1 ep_client=%d ep_server=%d"
                % (topo or series, nodes, procs, nodes, node, bb, nodes, 12 * nodes))
        recs.append(sim_study.parse_line(line))
    return {"part": "memory", "meta": {"series": series, "procs": procs}, "status": "ok",
            "records": recs, "cmd": ["sim"], "cmdline": "sim"}


def test_memory():
    procs = [12 * 2 ** k for k in range(11)]            # 12 .. 12,288
    runs = [mem_run(s, n) for s in ("fcg", "mfcg", "cube") for n in procs]
    runs += [mem_run("auto-defaults", n, topo="cfcg") for n in procs]
    runs += [mem_run("fcg-defaults", n) for n in procs]
    runs.append(dict(mem_run("fcg", 24576), status="failed"))   # ignored: failed
    series = sim_study.memory_series(runs)
    check(set(series) == {"fcg", "mfcg", "cube", "auto-defaults", "fcg-defaults"},
          "memory series: %s" % sorted(series))
    check(24576 not in series["fcg"], "a failed run gives no memory point")
    check(series["fcg"][12288]["buffer_bytes"] == mem_bytes("fcg", 1024),
          "node=max bytes kept, not node=mean")
    check(series["fcg"][12288]["mean_bytes"] == mem_bytes("fcg", 1024) // 2, "node=mean kept")
    inc = sim_study.increments(series["fcg"])
    check(inc[12] == 0 and inc[12288] == 1023 * 12 * SLOT, "FCG increment: %r" % inc[12288])
    cut = sim_study.cut_over(series["fcg"], series["mfcg"], 12288)
    want = 1023 / round(1023 / 7.5)
    check(close(cut, want), "MFCG cut %r, want %r" % (cut, want))
    check(sim_study.cut_over(series["fcg"], series["mfcg"], 99) is None, "cut without figures")
    part = {n: p for n, p in series["mfcg"].items() if n != 12}
    want2 = (1023 - 1) / (round(1023 / 7.5) - round(1 / 7.5))
    check(close(sim_study.cut_over(series["fcg"], part, 12288), want2),
          "a series without its smallest point is cut from the smallest shared one")
    check(sim_study.cut_over(series["fcg"], series["auto-defaults"], 12288) == math.inf,
          "a flat series cuts the increment infinitely")
    e, lo, hi, k = sim_study.growth_exponent(series["cube"])
    check(close(e, 1.0 / 3.0, 1e-3), "cube-root series exponent %r" % e)
    check(hi == 1024 and lo == 16 and k == 7, "exponent window: nodes %s-%s, %d points" % (lo, hi, k))
    e, _, _, _ = sim_study.growth_exponent(series["fcg"])
    check(0.95 < e <= 1.0, "FCG exponent near 1: %r" % e)
    check(close(sim_study.loglog_slope([1, 10, 100], [5, 50, 500]), 1.0), "slope of y = 5x")
    text, summary = sim_study.memory_section(series)
    text = "\n".join(text)
    check(summary["cut"]["auto-defaults"] == math.inf and summary["goal"]["cut_ok"],
          "default series flat: goal cut met")
    check(summary["goal"]["exponent_ok"], "flat default: exponent goal met")
    check("| 12288 | %s |" % sim_study.fmt(mem_bytes("fcg", 1024) / 2 ** 20) in text,
          "bytes table row at 12288 (MiB)")
    check("| mfcg | mfcg | 1024 |" in text and sim_study.fmt(want) + " over fcg" in text,
          "cut table row of MFCG")
    # The default series now grows like FCG: both goals missed.
    runs2 = [r for r in runs if r["meta"]["series"] != "auto-defaults"]
    runs2 += [dict(mem_run("fcg", n), meta={"series": "auto-defaults", "procs": n})
              for n in procs]
    _, summary = sim_study.memory_section(sim_study.memory_series(runs2))
    check(close(summary["cut"]["auto-defaults"], 1.0) and not summary["goal"]["cut_ok"]
          and not summary["goal"]["exponent_ok"], "FCG-like default misses both goals: %r"
          % summary["goal"])
    specs = sim_study.memory_specs(type("O", (), {"memory_max": 1048576})())
    hyper = [s for s in specs if s["meta"]["series"] == "hypercube"]
    check(all(((s["meta"]["procs"] // 12) & (s["meta"]["procs"] // 12 - 1)) == 0 for s in hyper),
          "hypercube only at power-of-two nodes")
    check(max(s["meta"]["procs"] for s in specs) == 1048576
          and max(s["meta"]["procs"] for s in hyper) == 786432, "memory plan reaches 1,048,576")
    auto = [s for s in specs if s["meta"]["series"] == "auto-defaults"][0]["args"]
    check("--slots" not in auto and "auto" in auto, "defaults run without --slots")


# -------------------------------------------------------------- contention --
def hs_run(part, exp, meta, values, summary=True, hammers=3):
    recs = []
    for r, us in values:
        extra = "op=%s level=%d hammers=%d " % (meta["op"], meta["level"], hammers) \
            if part == "contention" else ""
        recs.append(sim_study.parse_line("SIM exp=%s topo=%s procs=%d ppn=4 %srank=%d us=%s"
                                         % (exp, meta["topo"], meta["procs"], extra, r, us)))
    if summary:
        vs = [v for _, v in values]
        for name, v in (("mean", sum(vs) / len(vs)), ("max", max(vs))):
            extra = "op=%s level=%d hammers=%d " % (meta["op"], meta["level"], hammers) \
                if part == "contention" else ""
            recs.append(sim_study.parse_line("SIM exp=%s topo=%s procs=%d ppn=4 %srank=%s us=%s"
                                             % (exp, meta["topo"], meta["procs"], extra, name, v)))
    return {"part": part, "meta": meta, "status": "ok", "records": recs, "cmd": ["sim"],
            "cmdline": "sim"}


def test_contention():
    runs = []
    for topo, base in (("fcg", 100.0), ("mfcg", 40.0)):
        meta = {"topo": topo, "procs": 64, "op": "fadd", "level": 20}
        runs.append(hs_run("contention", "hotspot", meta,
                           [(r, base + r) for r in range(4, 64)], summary=(topo == "fcg")))
    summ = sim_study.run_summaries(runs, "contention", "hotspot")
    f, m = summ[(64, "fadd", 20, "fcg")], summ[(64, "fadd", 20, "mfcg")]
    check(f["n"] == 60 and close(f["mean"], 100 + 33.5) and f["max"] == 163.0,
          "fcg summary from the rank=mean/max lines: %r" % {k: f[k] for k in ("n", "mean", "max")})
    check(close(m["mean"], 40 + 33.5) and m["max"] == 103.0,
          "mfcg summary computed from ranks when no rank=mean line: %r" % m["mean"])
    check(f["hammers"] == 3, "hammers kept")
    text = "\n".join(sim_study.contention_section(summ))
    ratio = sim_study.fmt((40 + 33.5) / (100 + 33.5))
    check("| 64 | fadd | 20 | mfcg | 3 | 60 | %s | 103 | %s |" % (sim_study.fmt(73.5), ratio)
          in text, "contention table row of mfcg:\n" + text)


def test_hot100():
    runs = []
    pts = {"fcg": [8000.0] * 4, "mfcg": [1000.0, 1000.0, 1000.0, 3000.0],
           "auto": [1000.0, 1000.0, 1000.0, 4100.0]}
    for topo, vals in pts.items():
        runs.append(hs_run("hot100", "hot100", {"topo": topo, "procs": 1024},
                           list(enumerate(vals))))
    runs.append(hs_run("hot100", "hot100", {"topo": "mfcg", "procs": 64}, [(0, 1.0)]))
    summ = sim_study.run_summaries(runs, "hot100", "hot100")
    ratios = sim_study.hot100_ratios(summ)
    r = ratios[(1024, "mfcg")]
    check(close(r["mean_ratio"], 1500 / 8000) and close(r["max_ratio"], 3000 / 8000)
          and r["goal_ok"], "mfcg ratios 0.1875 / 0.375, goal met: %r" % r)
    r = ratios[(1024, "auto")]
    check(close(r["max_ratio"], 4100 / 8000) and not r["goal_ok"],
          "slowest rank 0.51 x FCG's mean misses the goal: %r" % r)
    check((64, "mfcg") not in ratios, "no ratio without an FCG run at that size")
    text = "\n".join(sim_study.hot100_section(summ)[0])
    check("| 1024 | mfcg | 4 | 1500 | 3000 | 0.188 | 0.375 | met |" in text,
          "hot100 table row of mfcg:\n" + text)
    check("NOT met" in text, "the missed goal is shown")
    goals = "\n".join(sim_study.goals_lines(
        {"hot100": {"%d/%s" % k: v for k, v in ratios.items()}}, summ))
    check("1024 processes, mfcg: mean 0.188 x FCG's mean (goal <= 0.25), slowest 0.375" in goals
          and "default (auto: auto): mean 0.222" in goals and goals.count("NOT met") == 1,
          "goals block:\n" + goals)


def conn_run(pattern, ppn, procs, topo, mode, c2s, s2c, s2s=0.0, c2s_max=None, off=0):
    line = ("SIM exp=connect topo=%s procs=%d ppn=%d nodes=%d pattern=%s k=4 ops=10 op=putv "
            "mode=%s c2s_mean=%.4f c2s_max=%d s2c_mean=%.4f s2c_max=%d s2s_mean=%.4f s2s_max=%d "
            "s2c_per_proc=1.0 c2s_off_edge=%d s2c_off_edge=3 s2s_off_edge=0 pairs=9"
            % (topo, procs, ppn, procs // ppn, pattern, mode, c2s,
               c2s_max if c2s_max is not None else int(c2s), s2c, int(s2c), s2s, int(s2s), off))
    return {"part": "connect", "status": "ok", "cmd": ["sim"], "cmdline": "sim",
            "meta": {"topo": topo, "procs": procs, "ppn": ppn, "pattern": pattern, "mode": mode},
            "records": [sim_study.parse_line(line)]}


def test_connect():
    runs = [conn_run("clique", 4, 128, t, "eager", 31, 124) for t in ("fcg", "mfcg", "cfcg")]
    runs += [conn_run("clique", 4, 128, "fcg", "lazy", 4, 16),
             conn_run("clique", 4, 128, "mfcg", "edges", 3.5, 15.5, 1.25),
             conn_run("clique", 4, 128, "cfcg", "edges", 3, 16, 2)]
    pts = sim_study.connect_points(runs)
    check(len(pts) == 6 and pts[("clique", 4, 128, "mfcg", "edges")]["s2s_mean"] == 1.25,
          "connect points by pattern, ppn, procs, topology, mode: %r" % sorted(pts))
    check(sim_study.connect_checks(pts) == [], "no broken check: %r"
          % sim_study.connect_checks(pts))
    text, summ = sim_study.connect_section(pts)
    text = "\n".join(text)
    check("| 128 | 32 | 31 / 124 / 0 | 4 / 16 / 0 | - | 3.5 / 15.5 / 1.25 | - | 3 / 16 / 2 | "
          "8 / 7.75 / 7.75 |" in text, "connect table row (eager/edges s2c ratios):\n" + text)
    check("Checks (lazy and edges never above eager; under edges no client endpoint off an "
          "edge): all kept." in text, "checks kept:\n" + text)
    check(summ["clique/4/128/mfcg-edges"]["c2s_mean"] == 3.5, "connect summary: %r" % summ)
    # A lazy count above eager's, and a client endpoint off an edge under edges.
    runs += [conn_run("clique", 4, 128, "mfcg", "lazy", 5, 16, c2s_max=40),
             conn_run("clique", 4, 128, "cfcg", "lazy", 4, 16)]
    runs[5] = conn_run("clique", 4, 128, "cfcg", "edges", 3, 16, 2, off=2)
    bad = sim_study.connect_checks(sim_study.connect_points(runs))
    check(len(bad) == 2 and any("mfcg lazy: c2s_max 40 above eager's 31" in b for b in bad)
          and any("cfcg edges: 2 client endpoints off the edges" in b for b in bad),
          "broken checks found: %r" % bad)


# ---------------------------------------------------------------- validate --
def fig(impl, op, level, value, config="vnode-tcp", nproc=8, rank="mean", unit="us"):
    return {"config": config, "impl": impl, "suite": "hotspot", "op": op, "unit": unit,
            "extra": "level=%d;hammers=%d;rank=%s" % (level, level // 10, rank),
            "value": value, "nproc": nproc, "runs": 3, "run_values": [value - 2, value, value + 2]}


def test_validate():
    report = {"figures": [
        fig("armada", "fadd", 20, 40.0), fig("armada", "fadd", 20, 99.0, config="vnode"),
        fig("armada-mfcg", "fadd", 20, 50.0), fig("armada", "fadd", 20, 5.0, rank="3"),
        fig("armada", "fadd", 20, 1.0, unit="Mops/s"), fig("armcimpi", "fadd", 20, 7.0),
        fig("armada", "putv", 0, 30.0, config="vnode"), fig("armada", "putv", 0, 20.0)]}
    cells = sim_validate.measured_cells(report, "r.json")
    check(cells[(8, "fcg", "fadd", 20)]["us"] == 40.0, "vnode-tcp wins over vnode")
    check(cells[(8, "fcg", "putv", 0)]["us"] == 20.0, "vnode-tcp wins even when listed later")
    check(cells[(8, "mfcg", "fadd", 20)]["us"] == 50.0 and len(cells) == 3,
          "only Armada's rank=mean us figures: %r" % sorted(cells))
    sim_runs = []
    for topo, op, level, us in (("fcg", "fadd", 20, 50.0), ("mfcg", "fadd", 20, 63.0),
                                ("fcg", "putv", 0, 14.0)):
        meta = {"procs": 8, "topo": topo, "op": op, "level": level}
        sim_runs.append(hs_run("contention", "hotspot", meta, [(1, us)], hammers=2))
    sim_runs.append(dict(sim_runs[0], status="failed", meta=dict(sim_runs[0]["meta"], level=0)))
    sim = sim_validate.sim_cells(sim_runs)
    check(len(sim) == 3, "a failed simulator run gives no cell")
    keys = [(8, "fcg", "fadd", 20), (8, "mfcg", "fadd", 20), (8, "fcg", "putv", 0),
            (8, "fcg", "fadd", 0)]
    rows = {(r["topology"], r["op"], r["level"]): r for r in sim_validate.compare(cells, sim, keys)}
    check(close(rows[("fcg", "fadd", 20)]["ratio"], 1.25) and rows[("fcg", "fadd", 20)]["within"],
          "ratio 1.25 is within 25 %")
    check(close(rows[("mfcg", "fadd", 20)]["ratio"], 1.26) and
          rows[("mfcg", "fadd", 20)]["within"] is False, "ratio 1.26 is not within 25 %")
    check(close(rows[("fcg", "putv", 0)]["ratio"], 0.7) and
          rows[("fcg", "putv", 0)]["within"] is False, "ratio 0.7 is not within 25 %")
    check(rows[("fcg", "fadd", 0)]["within"] is None, "a cell without simulation is not judged")
    meta_v = {"command": "x", "date": "d", "measured_sources": ["r.json"], "sim": "s",
              "commands": ["c"], "problems": []}
    md = sim_validate.report_md(sim_validate.compare(cells, sim, keys), meta_v, None)
    check("**1 of 3 cells within 25 %**" in md, "validate.md count line:\n" + md)
    check("| 8 | mfcg | fadd | 20 | 2/2 | 50 | 48-52 (3) | 63 | - | 1.26 | no |" in md,
          "validate.md row:\n" + md)
    # Several seeds of one cell: the median of their means, and their spread.
    seeded = []
    for sd, us in ((1, 70.0), (2, 50.0), (3, 90.0)):
        meta = {"procs": 8, "topo": "fcg", "op": "fadd", "level": 20, "seed": sd}
        seeded.append(hs_run("contention", "hotspot", meta, [(1, us)], hammers=2))
    cell = sim_validate.sim_cells(seeded)[(8, "fcg", "fadd", 20)]
    check(cell["us"] == 70.0 and sorted(cell["seed_values"]) == [50.0, 70.0, 90.0],
          "median over seeds: %r" % cell)
    md = sim_validate.report_md(sim_validate.compare(cells, {(8, "fcg", "fadd", 20): cell},
                                                     keys[:1]), meta_v, None)
    check("| 8 | fcg | fadd | 20 | 2/2 | 40 | 38-42 (3) | 70 | 50-90 (3) | 1.75 | no |" in md,
          "validate.md row with seeds:\n" + md)
    opts = type("O", (), {"seed_list": [4, 5]})()
    specs = sim_validate.sim_specs(opts, [(8, "fcg", "fadd", 20)])
    check([s["args"][:2] for s in specs] == [["--seed", 4], ["--seed", 5]] and
          specs[0]["args"][2] == "hotspot", "one run per seed, the seed first: %r" % specs)


# --------------------------------------------------------------------- fit --
def test_fit():
    check(sim_fit.grid_of("0.1:0.3:0.1") == [0.1, 0.2, 0.3], "grid")
    rms, within, n = sim_fit.score([{"ratio": 1.0, "within": True},
                                    {"ratio": math.e, "within": False}, {"ratio": None}])
    check(close(rms, math.sqrt(0.5)) and within == 1 and n == 2, "score %r" % ((rms, within, n),))
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "m.txt")
        with open(p, "w") as fh:
            fh.write("# c\nsource = calibrated\ncores = 2\nsrv_poll_load = 0\n")
        text = sim_fit.model_with(p, "srv_poll_load", 0.22, "fitted")
        check("srv_poll_load = 0.22\n" in text and "source = calibrated; fitted\n" in text and
              "srv_poll_load = 0\n" not in text, "model_with:\n" + text)
        text = sim_fit.model_with(p, "hop_us", 3.0, "x")
        check(text.endswith("hop_us = 3.0\n"), "a key not in the file is added:\n" + text)


# --------------------------------------------------------- sizes and merge --
def test_sizes_merge():
    sizes = sim_study.parse_sizes("1024,16384:5,131072:2:64", ["iters", "measure"])
    check(sizes == [{"procs": 1024}, {"procs": 16384, "iters": 5},
                    {"procs": 131072, "iters": 2, "measure": 64}], "sizes: %r" % sizes)
    try:
        sim_study.parse_sizes("1024:1:2", ["iters"])
        fail("a size with too many settings was accepted")
    except ValueError:
        pass
    opts = type("O", (), {"contention_procs": sizes, "measure_all_upto": 1024, "measure": 256,
                          "iters": 20, "levels": [0], "ppn": 4})()
    specs = {s["meta"]["procs"]: s["args"] for s in sim_study.contention_specs(opts)}
    check("--measure" not in specs[1024] and specs[1024][specs[1024].index("--iters") + 1] == 20,
          "1024: every rank measures, 20 iterations: %r" % specs[1024])
    check(specs[16384][-2:] == ["--measure", 256] and 5 in specs[16384],
          "16384: 5 iterations, 256 measuring: %r" % specs[16384])
    check(specs[131072][-2:] == ["--measure", 64], "131072: 64 measuring: %r" % specs[131072])
    with tempfile.TemporaryDirectory(prefix="sim-study-merge-") as tmp:
        old = [{"part": "hot100", "meta": {"topo": "fcg", "procs": 8}, "status": "ok",
                "records": sim_study.compact_records([{"kind": "SIM", "rank": 1, "us": 5.0}])},
               {"part": "hot100", "meta": {"topo": "mfcg", "procs": 8}, "status": "timeout",
                "records": []},
               {"part": "hot100", "meta": {"topo": "auto", "procs": 8}, "status": "ok",
                "records": []}]
        path = os.path.join(tmp, "sim.json")
        with open(path, "w") as fh:
            json.dump({"runs": old}, fh)
        new = [{"part": "hot100", "meta": {"topo": "mfcg", "procs": 8}, "status": "ok",
                "records": [{"kind": "SIM", "rank": 1, "us": 2.0}]},
               {"part": "hot100", "meta": {"topo": "auto", "procs": 8}, "status": "failed",
                "records": []}]
        merged = sim_study.merge_runs([path], new)
    got = [(r["meta"]["topo"], r["status"], r.get("merged_from") is not None) for r in merged]
    check(got == [("fcg", "ok", True), ("mfcg", "ok", False), ("auto", "ok", True)],
          "merge: rerun replaces a timeout, a failed rerun keeps the ok run: %r" % got)
    check(merged[0]["records"] == [{"kind": "SIM", "rank": 1, "us": 5.0}],
          "merged records expanded")


# ------------------------------------------------------------------ launch --
def test_launch():
    import time
    out, err, rc = sim_study.launch(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"], 30)
    check((out, err.strip(), rc) == ("out\n", "err", 3), "launch: %r" % ((out, err, rc),))
    t0 = time.time()
    out, err, rc = sim_study.launch(["/bin/sh", "-c", "echo started; sleep 20"], 0.5)
    check(rc is None and out == "started\n" and "timed out" in err and time.time() - t0 < 10,
          "launch: a run past its time limit is killed, its output kept: %r" % ((out, err, rc),))
    out, err, rc = sim_study.launch(["/nonexistent/armada-sim"], 30)
    check(rc not in (0, None), "launch: a missing program fails (rc %r)" % rc)


# -------------------------------------------------------------- end to end --
FAKE = r'''#!/usr/bin/env python3
import sys
a = sys.argv[1:]
glob = []
while a[0].startswith("--"):
    glob += [a.pop(0), a.pop(0)]
exp, o = a[0], dict(zip(a[1::2], a[2::2]))
n, ppn, t = int(o["--procs"]), int(o["--ppn"]), o["--topology"]
if t == "hypercube" and exp != "memory":
    sys.stderr.write("stand-in: no hypercube here\n"); sys.exit(3)
print("MODEL source=stand-in cores=2 " + (" ".join(glob[1::2]) or "lat_us=10"))
f = {"fcg": 8.0, "mfcg": 2.0, "cfcg": 1.5, "auto": 1.0, "hypercube": 1.2}[t]
if exp == "connect":
    print("SIM exp=connect topo=%s procs=%d ppn=%d nodes=%d pattern=%s k=4 ops=10 op=putv mode=%s "
          "c2s_mean=%.4f c2s_max=3 s2c_mean=%.4f s2c_max=9 s2s_mean=0 s2s_max=0 s2c_per_proc=1 "
          "c2s_off_edge=0 s2c_off_edge=0 s2s_off_edge=0 pairs=5"
          % (t, n, ppn, n // ppn, o["--pattern"], o["--mode"],
             n // ppn - 1 if o["--mode"] == "eager" else 2, n - ppn if o["--mode"] == "eager" else 8))
elif exp == "memory":
    nodes = n // ppn
    b = int(f * nodes * 1000) + (0 if "--slots" in o else 7)
    for k in ("0", "max", "mean"):
        print("SIM exp=memory topo=%s dims=%d procs=%d ppn=%d nodes=%d node=%s buffer_bytes=%d "
              "clients=%d edges_in=1 edges_out=1 ep_client=2 ep_server=9" % (t, nodes, n, ppn, nodes, k, b, ppn))
elif exp != "connect":
    ranks = range(ppn, n) if exp == "hotspot" else range(n)
    tag = ("op=%s level=%s hammers=1 " % (o["--op"], o["--level"])) if exp == "hotspot" else ""
    for r in list(ranks) + ["mean", "max"]:
        print("SIM exp=%s topo=%s procs=%d ppn=%d %srank=%s us=%.1f" % (exp, t, n, ppn, tag, r, f * 100))
bad = exp == "hotspot" and t == "cfcg" and o["--op"] == "fadd" and o["--level"] == "20"
if exp != "memory":
    print("SIMCHECK stuck=0 fadd_dup=%d ok=%d" % (bad, not bad))
print("SIMSTAT events=5 sim_us=1.0 wall_s=0.01 maxrss_kb=1000")
sys.exit(1 if bad else 0)
'''


def test_end_to_end():
    with tempfile.TemporaryDirectory(prefix="sim-study-test-") as tmp:
        fake = os.path.join(tmp, "fake-sim")
        with open(fake, "w") as fh:
            fh.write(FAKE)
        os.chmod(fake, 0o755)
        out = os.path.join(tmp, "out")
        err = io.StringIO()
        with redirect_stderr(err):
            rc = sim_study.main(["--sim", fake, "--out", out, "--quick",
                                 "--contention-procs", "16", "--hot100-procs", "16",
                                 "--set", "lat_us=3", "--jobs", "2"])
        check(rc == 1, "a failing simulator run makes sim_study exit 1 (rc %r)" % rc)
        with open(os.path.join(out, "sim.json")) as fh:
            data = json.load(fh)
        runs = data["runs"]
        failed = [r for r in runs if r["status"] != "ok"]
        check(len(failed) == 3 and sum("hypercube" in r["cmd"] for r in failed) == 2,
              "the two hypercube hotspot runs fail (putv, fadd at level 0) and the cfcg one "
              "whose invariants broke: %r" % [r["cmdline"] for r in failed])
        check(any(r.get("reason", "").startswith("SIMCHECK not ok: stuck=0 fadd_dup=1 ok=0")
                  for r in failed), "a broken invariant is the run's reason: %r"
              % [r.get("reason") for r in failed])
        check(all(r["cmd"][1:3] == ["--set", "lat_us=3"] for r in runs),
              "every command carries the --set")
        check(all("records" in r and r["cmdline"] for r in runs if r["status"] == "ok"),
              "every run keeps its command and records")
        hot = [r for r in runs if r["part"] == "hot100" and r["meta"]["topo"] == "fcg"][0]
        recs = sim_study.expand_records(hot["records"])
        check([x["rank"] for x in recs] == list(range(16)) + ["mean", "max"]
              and all(x["us"] == 800.0 for x in recs), "hot100 records stored in sim.json")
        n_conn = sum(1 for r in runs if r["part"] == "connect")
        check(n_conn == 36, "connect runs at 128 processes: 4 patterns x 3 topologies x 3 "
              "modes (%d)" % n_conn)
        n_mem = sum(1 for r in runs if r["part"] == "memory")
        check(n_mem == 11 * 6, "memory runs at 12..12288 processes: 11 sizes x 6 series (%d)"
              % n_mem)
        check(data["summary"]["memory"]["cut"]["mfcg"] == 4.0, "stand-in MFCG cut 8/2 = 4: %r"
              % data["summary"]["memory"]["cut"].get("mfcg"))
        check(data["summary"]["hot100"]["16/auto"]["mean_ratio"] == 0.125,
              "stand-in hot100 auto/fcg = 1/8")
        with open(os.path.join(out, "sim.md")) as fh:
            md = fh.read()
        for want in ("## Goals (issue 21)", "- Memory, default topology at 12288", "## Memory", "## Contention", "## 100 % contention", "| lat_us | 3 |",
                     "| 16 | putv | 11 | mfcg | 1 | 12 | 200 | 200 | 0.25 |", "3 failed",
                     "kept in 56 of 57 runs", "## Connections on demand",
                     "| 128 | 32 | 31 / 124 / 0 | 2 / 8 / 0 |",
                     "stand-in: no hypercube here"):
            check(want in md, "sim.md lacks %r" % want)
        # The same runs reported again from sim.json, and merged with a rerun.
        out2 = os.path.join(tmp, "again")
        with redirect_stderr(io.StringIO()):
            rc = sim_study.main(["--out", out2, "--report-only", "--merge",
                                 os.path.join(out, "sim.json")])
        with open(os.path.join(out2, "sim.md")) as fh:
            md2 = fh.read()
        check(rc == 1 and md2.split("## Goals")[1].split("## Runs")[0]
              == md.split("## Goals")[1].split("## Runs")[0],
              "--report-only --merge gives the same tables from sim.json")
        try:
            import matplotlib  # noqa: F401
            have_mpl = True
        except ImportError:
            have_mpl = False
        if have_mpl:
            pngs = sorted(x for x in os.listdir(out) if x.endswith(".png"))
            check(pngs == ["connect.png", "contention-fadd-np16.png", "contention-putv-np16.png",
                           "hot100-np16.png", "memory.png"], "plots: %r" % pngs)
        return have_mpl


def main():
    test_parser()
    test_memory()
    test_contention()
    test_hot100()
    test_connect()
    test_validate()
    test_fit()
    test_launch()
    test_sizes_merge()
    plots = test_end_to_end()
    print("test_sim_study: OK, %d checks%s" % (
        CHECKS[0], "" if plots else " (matplotlib missing: plots not checked)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
