#!/usr/bin/env python3
"""sim_study: HiCOO's memory and contention studies (hicoo 4.1 and 4.2,
Figs. 9-12) run on armada-sim (issue 21), at the paper's sizes and beyond.

Parts (--parts, default all three):
  memory      request-buffer bytes per node against processes under FCG,
              MFCG, CFCG and Hypercube (12 processes per node, 4 slots of
              16 KiB, 4 buffers per edge as in the paper), 12 to 1,048,576
              processes, plus FCG and Armada's default topology (auto) with
              the runtime's own slot settings; the cut in the increment over
              FCG at 12,288 processes, endpoints per process and per server,
              the log-log growth exponent of bytes against nodes.
  contention  hot-spot vector put and fetch-and-add to rank 0 at 0, 11 and
              20 % contention (hammers spread: one rank in 100/L), 4
              processes per node, per-rank times under each topology
              (Figs. 10 and 11); at 1,024 processes all ranks measure, larger
              sizes sample --measure ranks.
  hot100      every rank 10 fetch-and-adds to rank 0 between barriers, 100
              iterations (Fig. 12), FCG against MFCG and the default.
  connect     endpoints per process and per server (issue 22 item 5, like the
              on-demand connection paper's Tables I-IV): patterns clique,
              hotspot, random and all, ARMADA_CONNECT eager, lazy and edges,
              FCG, MFCG and CFCG, 128 to 4,096 processes, 4 and 12 per node.

Writes DIR/sim.md (goals, tables, the model, every command), DIR/sim.json
(every run: its command line, wall time, exit status, SIMSTAT, SIMCHECK and
parsed records), and DIR/*.png. Simulator runs are independent processes, at
most --jobs (2) at once; a run that would start after --budget seconds is
recorded as skipped. --merge adds the runs of earlier sim.json files,
--report-only runs nothing. Progress goes to stderr. tools/sim/README.md
describes every option and output.

Usage: sim_study.py --sim PATH --out DIR [--model FILE] [--quick]
                    [--parts memory,contention,hot100,connect] [--budget S] ...
       sim_study.py --out DIR --report-only --merge A/sim.json,B/sim.json
"""
import argparse
import datetime
import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

TOPOLOGIES = ["fcg", "mfcg", "cfcg", "hypercube"]
PARTS = ["memory", "contention", "hot100", "connect"]
# hicoo 4.1: the cut in the memory increment over FCG at 12,288 processes.
PAPER_PROCS = 12288
PAPER_CUT = {"mfcg": 7.5, "cfcg": 16.6, "hypercube": 45.0}
# Series names of the memory study: the paper's settings per topology, and
# the runtime's defaults (no --slots/--slot-size/--edge-slots).
DEFAULT_FCG = "fcg-defaults"
DEFAULT_AUTO = "auto-defaults"
# Issue 21's goals.
GOAL_CUT = 16.6            # default topology's cut at 12,288 processes
GOAL_EXPONENT = 1.0 / 3.0  # growth of bytes per node against nodes
# Topologies' dimensions grow in steps (a 32x32 MFCG becomes 33x33 at once),
# so a fitted slope wobbles around the true exponent by about this much.
EXPONENT_SLACK = 0.01
GOAL_HOT100_MEAN = 0.25    # topology mean / FCG mean, 100 % fetch-and-add
GOAL_HOT100_MAX = 0.5      # topology slowest rank / FCG mean
GOAL_HOT100_PROCS = 1024
# connect: the modes and patterns (armada-sim connect), and the series of its
# tables: (label, topology, mode); eager is the same under every topology.
CONNECT_MODES = ["eager", "lazy", "edges"]
CONNECT_PATTERNS = ["clique", "hotspot", "random", "all"]
CONNECT_TOPOS = ["fcg", "mfcg", "cfcg"]
CONNECT_SERIES = [("eager", "fcg", "eager"), ("fcg lazy", "fcg", "lazy"),
                  ("mfcg lazy", "mfcg", "lazy"), ("mfcg edges", "mfcg", "edges"),
                  ("cfcg lazy", "cfcg", "lazy"), ("cfcg edges", "cfcg", "edges")]
# Runs this large announce their start on stderr (they may take minutes).
LOG_START_PROCS = 16384


# ---------------------------------------------------------------- plumbing --
def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def maybe_reexec():
    """The python3 first on PATH may lack matplotlib (pyenv); Debian's has it."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("ARMADA_SIM_REEXEC"):
        return
    for cand in ("/usr/bin/python3", "/bin/python3"):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            ok = subprocess.run([cand, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode == 0
            if ok:
                os.environ["ARMADA_SIM_REEXEC"] = "1"
                os.execv(cand, [cand] + sys.argv)


# ----------------------------------------------------------------- parsing --
KINDS = ("SIM", "MODEL", "SIMSTAT", "SIMCHECK")
_INT = re.compile(r"^-?[0-9]+$")
_FLOAT = re.compile(r"^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def parse_value(text):
    """An int, a float, or the text itself ("32x32", "mean", "defaults")."""
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text) or text in ("inf", "-inf", "nan"):
        return float(text)
    return text


def parse_line(line):
    """One output line of armada-sim: {"kind": "SIM"|"MODEL"|"SIMSTAT"|
    "SIMCHECK", key: value, ...}, or None for a line of another kind. A token
    without '=' in a record is an error (the format has none). A value may be
    double-quoted, spaces and all (MODEL source="calibrated from ...")."""
    if '"' in line:
        try:
            toks = shlex.split(line)
        except ValueError as e:
            raise ValueError("armada-sim line with unbalanced quotes: %r (%s)" % (line, e))
    else:
        toks = line.split()
    if not toks or toks[0] not in KINDS:
        return None
    rec = {"kind": toks[0]}
    for t in toks[1:]:
        if "=" not in t:
            raise ValueError("armada-sim line has a token without '=': %r in %r" % (t, line))
        k, v = t.split("=", 1)
        # MODEL source=... is a name (a file, a report): keep it text.
        rec[k] = v if (rec["kind"] == "MODEL" and k == "source") else parse_value(v)
    return rec


def parse_output(text):
    """{"model": the MODEL line, "records": the SIM records in order,
    "simstat": the SIMSTAT line (None when missing: the run did not finish),
    "checks": the SIMCHECK lines (the run's invariants, ok=1 when kept),
    "other": the count of non-empty lines of no known kind}."""
    out = {"model": None, "records": [], "simstat": None, "checks": [], "other": 0}
    for line in text.splitlines():
        rec = parse_line(line)
        if rec is None:
            out["other"] += 1 if line.strip() else 0
        elif rec["kind"] == "MODEL":
            out["model"] = out["model"] or rec
        elif rec["kind"] == "SIMSTAT":
            out["simstat"] = rec
        elif rec["kind"] == "SIMCHECK":
            out["checks"].append(rec)
        else:
            out["records"].append(rec)
    return out


def compact_records(recs):
    """The records for sim.json: per-rank lines (an int rank) that differ
    only in rank and us become one {"columns": common fields, "rank": [...],
    "us": [...]} entry (131,072 ranks would otherwise take 10+ MB a run);
    everything else stays as it is. expand_records undoes it."""
    out, groups = [], {}
    for rec in recs:
        if isinstance(rec.get("rank"), int) and "us" in rec:
            common = tuple(sorted((k, v) for k, v in rec.items() if k not in ("rank", "us")))
            g = groups.get(common)
            if g is None:
                g = groups[common] = {"columns": dict(common), "rank": [], "us": []}
                out.append(g)
            g["rank"].append(rec["rank"])
            g["us"].append(rec["us"])
        else:
            out.append(rec)
    return out


def expand_records(entries):
    """The records of compact_records' output, per-rank lines in order."""
    recs = []
    for e in entries:
        if "columns" in e:
            recs += [dict(e["columns"], rank=r, us=u) for r, u in zip(e["rank"], e["us"])]
        else:
            recs.append(e)
    return recs


# ------------------------------------------------------------------ runner --
def sim_command(opts, args):
    """The full command line of one run: global options, then the experiment."""
    cmd = [opts.sim]
    if opts.model:
        cmd += ["--model", opts.model]
    for s in opts.set or []:
        cmd += ["--set", s]
    if opts.seed is not None:
        cmd += ["--seed", str(opts.seed)]
    return cmd + [str(a) for a in args]


_BIG_LOCK = threading.Lock()


def launch(cmd, timeout):
    """(stdout, stderr, exit status or None on timeout) of cmd. It runs as
    the child of a small shell, not of this process: Linux carries the
    exec'ing process's peak memory into the new program's getrusage maxrss,
    so a simulator started straight from this (large) Python process would
    report this process's memory as its own in SIMSTAT maxrss_kb."""
    wrapped = ["/bin/sh", "-c", '"$0" "$@"; exit $?'] + cmd
    try:
        p = subprocess.Popen(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    except OSError as e:
        return "", str(e), -1
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)   # the shell and the simulator
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return out, err + "\ntimed out after %ss" % timeout, None


def run_one(spec, opts, t_start, lock, counter, total):
    """Runs one spec ({"part", "meta", "args"}); returns the run's record.
    Runs of --big-procs processes or more run one at a time (each may take
    gigabytes; two at once could exhaust a small machine)."""
    if spec["meta"].get("procs", 0) >= getattr(opts, "big_procs", 0) > 0:
        with _BIG_LOCK:
            return _run_one(spec, opts, t_start, lock, counter, total)
    return _run_one(spec, opts, t_start, lock, counter, total)


def _run_one(spec, opts, t_start, lock, counter, total):
    cmd = sim_command(opts, spec["args"])
    run = {"part": spec["part"], "meta": spec["meta"], "cmd": cmd,
           "cmdline": " ".join(shlex.quote(c) for c in cmd)}
    if opts.budget and time.time() - t_start > opts.budget:
        run.update(status="skipped", reason="time budget of %ds spent" % opts.budget)
    else:
        if spec["meta"].get("procs", 0) >= LOG_START_PROCS:
            log("[start] %-9s %s" % (spec["part"], " ".join(map(str, spec["args"]))))
        t0 = time.time()
        out, err, run["rc"] = launch(cmd, opts.timeout)
        run["status"] = ("timeout" if run["rc"] is None else
                         "ok" if run["rc"] == 0 else "failed")
        run["wall_s"] = round(time.time() - t0, 3)
        try:
            parsed = parse_output(out)
        except ValueError as e:
            parsed = parse_output("")
            run["status"] = "failed"
            err += "\n" + str(e)
        run.update(model=parsed["model"], records=parsed["records"],
                   simstat=parsed["simstat"], checks=parsed["checks"],
                   other_lines=parsed["other"])
        bad = [c for c in parsed["checks"] if c.get("ok") != 1]
        if bad:
            run["status"] = "failed"
            err += "\nSIMCHECK not ok: " + " ".join(
                "%s=%s" % (k, v) for k, v in bad[0].items() if k != "kind")
        elif run["status"] == "ok" and parsed["simstat"] is None:
            run["status"] = "failed"
            err += "\n(no SIMSTAT line: the output is incomplete)"
        if run["status"] != "ok":
            run["stderr_tail"] = err[-2000:]
            run["reason"] = (err.strip().splitlines() or ["rc=%s" % run.get("rc")])[-1][:300]
    with lock:
        counter[0] += 1
        extra = ""
        if run.get("simstat"):
            extra = ", sim %.1fs, %d MiB" % (run["simstat"].get("wall_s", 0),
                                             run["simstat"].get("maxrss_kb", 0) // 1024)
        log("[%3d/%d] %-7s %-9s %s (%.1fs%s)%s" % (
            counter[0], total, run["status"], spec["part"], " ".join(map(str, spec["args"])),
            run.get("wall_s", 0.0), extra,
            "" if run["status"] == "ok" else ": " + run.get("reason", "")))
    return run


def run_all(specs, opts):
    """Runs the specs, at most opts.jobs at once, in the order given; the
    results come back in the same order."""
    lock, counter, t_start = threading.Lock(), [0], time.time()
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        futs = [pool.submit(run_one, s, opts, t_start, lock, counter, len(specs)) for s in specs]
        return [f.result() for f in futs]


# ------------------------------------------------------------------- plans --
def procs_doubling(first, last):
    out, n = [], first
    while n <= last:
        out.append(n)
        n *= 2
    return out


def memory_specs(opts):
    """The paper's settings per topology at 12 x 2^k processes (nodes a power
    of two), the final 1,048,576 for all but Hypercube, and the defaults."""
    ppn = 12
    top = opts.memory_max
    procs = procs_doubling(ppn, top)
    extra = [] if top in procs else [top]
    specs = []
    paper = ["--slots", "4", "--slot-size", "16384", "--edge-slots", "4"]
    for n in procs + extra:
        for topo in TOPOLOGIES:
            nodes = -(-n // ppn)
            if topo == "hypercube" and nodes & (nodes - 1):
                continue
            specs.append({"part": "memory", "meta": {"series": topo, "procs": n},
                          "args": ["memory", "--topology", topo, "--procs", n, "--ppn", ppn]
                          + paper})
        for series, topo in ((DEFAULT_FCG, "fcg"), (DEFAULT_AUTO, "auto")):
            specs.append({"part": "memory", "meta": {"series": series, "procs": n},
                          "args": ["memory", "--topology", topo, "--procs", n, "--ppn", ppn]})
    return specs


def contention_specs(opts):
    specs = []
    for size in opts.contention_procs:
        n, iters = size["procs"], size.get("iters", opts.iters)
        sample = size.get("measure", 0 if n <= opts.measure_all_upto else opts.measure)
        measure = ["--measure", sample] if sample else []
        for op in ("putv", "fadd"):
            for level in opts.levels:
                topos = ["fcg", "mfcg", "cfcg"] + (["hypercube"] if level == 0 else [])
                for topo in topos:
                    specs.append({"part": "contention",
                                  "meta": {"topo": topo, "procs": n, "op": op, "level": level},
                                  "args": ["hotspot", "--topology", topo, "--procs", n,
                                           "--ppn", opts.ppn, "--op", op, "--level", level,
                                           "--iters", iters, "--hammers", "spread"]
                                  + measure})
    return specs


def hot100_specs(opts):
    specs = []
    for size in opts.hot100_procs:
        n = size["procs"]
        for topo in ("fcg", "mfcg", "auto"):
            specs.append({"part": "hot100", "meta": {"topo": topo, "procs": n},
                          "args": ["hot100", "--topology", topo, "--procs", n, "--ppn", opts.ppn,
                                   "--ops", opts.hot100_ops,
                                   "--iters", size.get("iters", opts.hot100_iters)]})
    return specs


def connect_specs(opts):
    """Every pattern, mode and topology per size and processes per node.
    Pattern all makes every server hold a record for every remote client
    (about 4 KB each in the simulator), so it runs only where processes x
    (nodes - 1) stays within --connect-all-pairs."""
    specs = []
    for n in opts.connect_procs:
        for ppn in opts.connect_ppn:
            nodes = -(-n // ppn)
            for pattern in CONNECT_PATTERNS:
                if pattern == "all" and n * (nodes - 1) > opts.connect_all_pairs:
                    continue
                extra = (["--k", opts.connect_k] if pattern == "clique" else
                         ["--ops", opts.connect_ops] if pattern in ("random", "hotspot") else [])
                for topo in CONNECT_TOPOS:
                    for mode in CONNECT_MODES:
                        specs.append({"part": "connect",
                                      "meta": {"topo": topo, "procs": n, "ppn": ppn,
                                               "pattern": pattern, "mode": mode},
                                      "args": ["connect", "--topology", topo, "--procs", n,
                                               "--ppn", ppn, "--pattern", pattern,
                                               "--mode", mode] + extra})
    return specs


def plan(opts):
    """Every run, smallest first, so that a time budget drops the largest."""
    specs = []
    if "memory" in opts.parts:
        specs += memory_specs(opts)
    if "contention" in opts.parts:
        specs += contention_specs(opts)
    if "hot100" in opts.parts:
        specs += hot100_specs(opts)
    if "connect" in opts.parts:
        specs += connect_specs(opts)
    specs.sort(key=lambda s: s["meta"]["procs"])   # stable: part order kept per size
    return specs


# ---------------------------------------------------------------- analysis --
def runs_records(runs, part, **want):
    """(run index, run, record) for the ok runs of a part whose meta matches."""
    for i, r in enumerate(runs):
        if r["part"] != part or r.get("status") != "ok":
            continue
        if all(r["meta"].get(k) == v for k, v in want.items()):
            for rec in r["records"]:
                yield i, r, rec


def memory_series(runs):
    """{series: {procs: point}}, a point being the node=max record's figures
    (buffer_bytes, nodes, dims, ep_client, ep_server, topo) and node=mean's
    buffer bytes."""
    series = {}
    for i, r, rec in runs_records(runs, "memory"):
        if rec.get("exp") != "memory":
            continue
        pt = series.setdefault(r["meta"]["series"], {}).setdefault(r["meta"]["procs"], {"run": i})
        if rec.get("node") == "max":
            for k in ("buffer_bytes", "nodes", "dims", "ep_client", "ep_server", "topo",
                      "edges_in", "edges_out", "clients"):
                if k in rec:
                    pt[k] = rec[k]
        elif rec.get("node") == "mean":
            pt["mean_bytes"] = rec.get("buffer_bytes")
    for s in series.values():
        for n in [n for n, p in s.items() if "buffer_bytes" not in p]:
            del s[n]          # a run without a node=max line has no figure
    return series


def increments(points, base_procs=None):
    """{procs: bytes at procs - bytes at base_procs (default: the smallest
    procs)}."""
    if not points:
        return {}
    base = points[min(points) if base_procs is None else base_procs]["buffer_bytes"]
    return {n: p["buffer_bytes"] - base for n, p in points.items()}


def cut_over(fcg_points, points, procs):
    """FCG's increment over the topology's at procs, both from the smallest
    process count the two series share: None where either lacks a figure,
    inf where the topology's increment is 0."""
    common = set(fcg_points) & set(points)
    if procs not in common:
        return None
    base = min(common)
    fi = increments(fcg_points, base)[procs]
    ti = increments(points, base)[procs]
    if ti <= 0:
        return math.inf if fi > 0 else None
    return fi / ti


def loglog_slope(xs, ys):
    """Least-squares slope of log y against log x (None under 2 points)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def growth_exponent(points, decades=2.0):
    """(exponent, nodes from, nodes to, points): the log-log slope of bytes
    per node against nodes over the last `decades` of node counts."""
    pts = sorted((p["nodes"], p["buffer_bytes"]) for p in points.values() if "nodes" in p)
    if len(pts) < 2:
        return None, None, None, 0
    lo = pts[-1][0] / 10 ** decades
    sel = [p for p in pts if p[0] >= lo]
    if len(sel) < 3:
        sel = pts[-3:]
    return loglog_slope([p[0] for p in sel], [p[1] for p in sel]), sel[0][0], sel[-1][0], len(sel)


def per_rank_summary(recs):
    """{"mean", "max", "n", "points": [(rank, us)]} of one run's records:
    the simulator's rank=mean/rank=max lines, else computed from the ranks."""
    pts = [(rec["rank"], rec["us"]) for rec in recs if isinstance(rec.get("rank"), int)]
    out = {"points": pts, "n": len(pts)}
    for rec in recs:
        if rec.get("rank") in ("mean", "max"):
            out[rec["rank"]] = rec["us"]
    if "mean" not in out and pts:
        out["mean"] = sum(p[1] for p in pts) / len(pts)
    if "max" not in out and pts:
        out["max"] = max(p[1] for p in pts)
    if pts:
        out["computed_mean"] = sum(p[1] for p in pts) / len(pts)
    return out


def run_summaries(runs, part, exp):
    """{(meta key tuple): summary} for a part, summary as per_rank_summary
    plus "hammers" (contention) and "run" (index)."""
    by_run = {}
    for i, r, rec in runs_records(runs, part):
        if rec.get("exp") == exp:
            by_run.setdefault(i, []).append(rec)
    out = {}
    for i, recs in by_run.items():
        s = per_rank_summary(recs)
        s["run"] = i
        s["hammers"] = next((rec["hammers"] for rec in recs if "hammers" in rec), None)
        s["topo_printed"] = next((rec["topo"] for rec in recs if "topo" in rec), None)
        m = runs[i]["meta"]
        if part == "contention":
            out[(m["procs"], m["op"], m["level"], m["topo"])] = s
        else:
            out[(m["procs"], m["topo"])] = s
    return out


def shown_topo(printed):
    """The topology a run printed, without armada-sim's "auto:" prefix."""
    if not printed:
        return "?"
    return printed[len("auto:"):] if printed.startswith("auto:") else printed


def hot100_ratios(summ):
    """{(procs, topo): {"mean_ratio", "max_ratio", "goal_ok"}} against FCG's
    mean at the same size; the goal applies at 1,024 processes."""
    out = {}
    for (n, topo), s in summ.items():
        f = summ.get((n, "fcg"))
        if topo == "fcg" or f is None or not f.get("mean") or "mean" not in s:
            continue
        mr, xr = s["mean"] / f["mean"], s["max"] / f["mean"]
        out[(n, topo)] = {"mean_ratio": mr, "max_ratio": xr,
                          "goal_ok": mr <= GOAL_HOT100_MEAN and xr <= GOAL_HOT100_MAX}
    return out


CONNECT_FIELDS = ("c2s_mean", "c2s_max", "s2c_mean", "s2c_max", "s2s_mean", "s2s_max",
                  "s2c_per_proc", "c2s_off_edge", "s2c_off_edge", "s2s_off_edge", "nodes")


def connect_points(runs):
    """{(pattern, ppn, procs, topo, mode): the run's SIM exp=connect figures}."""
    out = {}
    for i, r, rec in runs_records(runs, "connect"):
        if rec.get("exp") != "connect":
            continue
        m = r["meta"]
        out[(m["pattern"], m["ppn"], m["procs"], m["topo"], m["mode"])] = dict(
            {k: rec[k] for k in CONNECT_FIELDS if k in rec}, run=i)
    return out


def connect_checks(points):
    """Problems in the figures: a lazy or edges count above eager's at the
    same size, or a client endpoint off the topology's edges under edges."""
    bad = []
    for (pat, ppn, n, topo, mode), p in sorted(points.items()):
        e = points.get((pat, ppn, n, topo, "eager"))
        if mode != "eager" and e:
            for k in ("c2s_max", "s2c_max"):
                if p.get(k, 0) > e.get(k, 0):
                    bad.append("%s ppn=%d procs=%d %s %s: %s %s above eager's %s"
                               % (pat, ppn, n, topo, mode, k, p[k], e[k]))
        if mode == "edges" and topo != "fcg" and p.get("c2s_off_edge", 0):
            bad.append("%s ppn=%d procs=%d %s edges: %d client endpoints off the edges"
                       % (pat, ppn, n, topo, p["c2s_off_edge"]))
    return bad


# ------------------------------------------------------------------ tables --
def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if isinstance(v, int):
        return str(v)
    if abs(v) >= 1000:
        return "%.0f" % v
    return ("%%.%dg" % digits) % v


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def series_order(series):
    return [s for s in TOPOLOGIES + [DEFAULT_FCG, DEFAULT_AUTO] if s in series] + \
        sorted(s for s in series if s not in TOPOLOGIES + [DEFAULT_FCG, DEFAULT_AUTO])


def memory_section(series):
    """Markdown lines and a summary dict of the memory study."""
    L, summary = [], {"cut": {}, "exponent": {}, "goal": {}}
    names = series_order(series)
    if not names:
        return ["No memory figures (no run finished)."], summary
    allp = sorted({n for s in series.values() for n in s})
    L.append("Request-buffer bytes of the node with the most (node=max), MiB. "
             "Paper settings: 12 processes per node, 4 slots of 16 KiB, 4 buffers per edge; "
             "`%s` and `%s`: the runtime's own slot settings (FCG, and its default topology)."
             % (DEFAULT_FCG, DEFAULT_AUTO))
    L.append("")
    rows = []
    for n in allp:
        row = [n]
        for s in names:
            p = series[s].get(n)
            row.append(fmt(p["buffer_bytes"] / 2 ** 20) if p else "-")
        rows.append(row)
    L += md_table(["processes"] + names, rows)
    L.append("")
    # Cut in the increment at 12,288 processes.
    L.append("Cut in the increment over FCG at %d processes (increment = bytes at N minus bytes "
             "at the smallest N; cut = FCG's increment / the topology's):" % PAPER_PROCS)
    L.append("")
    rows = []
    fcg = series.get("fcg", {})
    for s in names:
        if s in ("fcg", DEFAULT_FCG):
            continue
        base = series.get(DEFAULT_FCG, {}) if s == DEFAULT_AUTO else fcg
        c = cut_over(base, series[s], PAPER_PROCS)
        summary["cut"][s] = c
        p = series[s].get(PAPER_PROCS, {})
        inc = increments(series[s]).get(PAPER_PROCS)
        rows.append([s, p.get("topo", "-"), p.get("dims", "-"),
                     fmt(inc / 2 ** 20) if inc is not None else "-",
                     ("%s over %s" % (fmt(c), DEFAULT_FCG if s == DEFAULT_AUTO else "fcg"))
                     if c is not None else "-",
                     fmt(PAPER_CUT.get(s))])
    if DEFAULT_AUTO in series and fcg:
        c = cut_over(fcg, series[DEFAULT_AUTO], PAPER_PROCS)
        summary["cut"][DEFAULT_AUTO + "/paper-fcg"] = c
        rows.append([DEFAULT_AUTO + " (vs paper FCG)", "", "", "",
                     "%s over fcg" % fmt(c) if c is not None else "-", "-"])
    L += md_table(["series", "topology", "dims", "increment MiB", "cut", "paper"], rows)
    L.append("")
    # Endpoints.
    L.append("Endpoints when connections follow the topology's edges (node=max): per process "
             "(ep_client) / per server (ep_server).")
    L.append("")
    rows = []
    for n in allp:
        row = [n]
        for s in names:
            p = series[s].get(n)
            row.append("%s / %s" % (p.get("ep_client", "-"), p.get("ep_server", "-")) if p else "-")
        rows.append(row)
    L += md_table(["processes"] + names, rows)
    L.append("")
    # Growth exponents.
    L.append("Growth exponent of bytes per node against nodes (log-log least-squares slope over "
             "the last two decades of node counts; FCG grows as 1, a cube root as 0.333):")
    L.append("")
    rows = []
    for s in names:
        e, lo, hi, k = growth_exponent(series[s])
        summary["exponent"][s] = e
        rows.append([s, fmt(e), "%s-%s (%d points)" % (lo, hi, k) if e is not None else "-"])
    L += md_table(["series", "exponent", "nodes"], rows)
    L.append("")
    # Goal.
    c, e = summary["cut"].get(DEFAULT_AUTO), summary["exponent"].get(DEFAULT_AUTO)
    cut_ok = c is not None and c >= GOAL_CUT
    exp_ok = e is not None and e <= GOAL_EXPONENT + EXPONENT_SLACK
    summary["goal"] = {"cut": c, "cut_ok": cut_ok, "exponent": e, "exponent_ok": exp_ok}
    L.append("**Goal (issue 21)**: default topology cuts the increment at %d processes "
             "by >= %.1fx: "
             "%s (%s); bytes per node grow no faster than the cube root of nodes "
             "(exponent <= 1/3, %.2f allowed for dimension steps): %s (%s)."
             % (PAPER_PROCS, GOAL_CUT, fmt(c), "met" if cut_ok else "NOT met",
                EXPONENT_SLACK, fmt(e), "met" if exp_ok else "NOT met"))
    return L, summary


def contention_section(summ):
    L = []
    if not summ:
        return ["No contention figures (no run finished)."]
    L.append("Hot-spot operations to rank 0 (hammers spread: one rank in every 100/L hammers); "
             "per-rank time per operation, mean and slowest over the measuring ranks, and the "
             "ratio of the mean to FCG's at the same size, operation and level.")
    L.append("")
    rows = []
    for key in sorted(summ, key=lambda k: (k[0], k[1], k[2], TOPOLOGIES.index(k[3])
                                           if k[3] in TOPOLOGIES else 9)):
        n, op, level, topo = key
        s = summ[key]
        f = summ.get((n, op, level, "fcg"))
        ratio = s["mean"] / f["mean"] if f and f.get("mean") else None
        rows.append([n, op, level, topo, s.get("hammers", "-"), s["n"], fmt(s.get("mean")),
                     fmt(s.get("max")), fmt(ratio)])
    L += md_table(["processes", "op", "level %", "topology", "hammers", "ranks measured",
                   "mean us", "max us", "mean / fcg mean"], rows)
    return L


def hot100_section(summ):
    L = []
    if not summ:
        return ["No hot100 figures (no run finished)."], {}
    ratios = hot100_ratios(summ)
    L.append("100 %% contention fetch-and-add (Fig. 12): every rank does its fetch-and-adds to "
             "rank 0 between barriers; per-rank mean time per operation. Goal at %d processes: "
             "mean <= %.2f x FCG's mean and slowest rank <= %.2f x FCG's mean. Paper (Jaguar): "
             "FCG above 8,000 us on average, MFCG mostly under 2,000 us."
             % (GOAL_HOT100_PROCS, GOAL_HOT100_MEAN, GOAL_HOT100_MAX))
    L.append("")
    rows = []
    order = ["fcg", "mfcg", "auto"]
    for key in sorted(summ, key=lambda k: (k[0], order.index(k[1]) if k[1] in order else 9)):
        n, topo = key
        s = summ[key]
        r = ratios.get(key, {})
        goal = "-"
        if r and n == GOAL_HOT100_PROCS:
            goal = "met" if r["goal_ok"] else "NOT met"
        name = topo if topo != "auto" else "auto (%s)" % shown_topo(s.get("topo_printed"))
        rows.append([n, name, s["n"], fmt(s.get("mean")), fmt(s.get("max")),
                     fmt(r.get("mean_ratio")), fmt(r.get("max_ratio")), goal])
    L += md_table(["processes", "topology", "ranks", "mean us", "max us", "mean / fcg mean",
                   "max / fcg mean", "goal"], rows)
    return L, ratios


def connect_section(points, opts_k=None):
    """Markdown lines and a summary of the connection counts."""
    if not points:
        return ["No connection figures (no run finished)."], {}
    L = ["Endpoints per process and per server that each pattern makes, from what the "
         "simulated run sent (`armada-sim connect`: vector puts, each followed by a fence). "
         "Cell: client-to-server endpoints per process (mean) / server-to-client endpoints "
         "per server (mean) / server-to-server per server (mean); eager is computed (every "
         "client to every other node's server, every server to every remote client) and is "
         "the same under every topology. lazy and edges: what the run used; the simulated "
         "operations all go through the servers, so a client connects to its first hops and "
         "a server answers the clients that did not connect to it back along their routes "
         "(decision 050), and the two differ only where edges bind further. Patterns: clique = each process with its "
         "k nearest nodes on the ring of nodes (STOMP-like), hotspot = everyone to rank 0, "
         "random = operations to random ranks, all = every other node once.", ""]
    summary = {}
    for pat in [p for p in CONNECT_PATTERNS if any(k[0] == p for k in points)]:
        for ppn in sorted({k[1] for k in points if k[0] == pat}):
            L += ["**%s**, %d processes per node:" % (pat, ppn), ""]
            rows = []
            for n in sorted({k[2] for k in points if k[0] == pat and k[1] == ppn}):
                row = [n, next((p["nodes"] for k, p in points.items()
                                if k[:3] == (pat, ppn, n) and "nodes" in p), "-")]
                for label, topo, mode in CONNECT_SERIES:
                    p = points.get((pat, ppn, n, topo, mode))
                    row.append("%s / %s / %s" % (fmt(p.get("c2s_mean")), fmt(p.get("s2c_mean")),
                                                 fmt(p.get("s2s_mean"))) if p else "-")
                    if p:
                        summary["%s/%d/%d/%s" % (pat, ppn, n, label.replace(" ", "-"))] = {
                            k: p.get(k) for k in CONNECT_FIELDS}
                e = points.get((pat, ppn, n, "fcg", "eager"))
                best = [points.get((pat, ppn, n, t, m)) for t, m in
                        (("mfcg", "edges"), ("cfcg", "edges"), ("fcg", "lazy"))]
                ratios = []
                for b in best:
                    ratios.append(fmt(e["s2c_mean"] / b["s2c_mean"]) if e and b and
                                  b.get("s2c_mean") else "-")
                row.append(" / ".join(ratios))
                rows.append(row)
            L += md_table(["processes", "nodes"] + [c[0] for c in CONNECT_SERIES]
                          + ["eager s2c / (mfcg edges, cfcg edges, fcg lazy)"], rows)
            L.append("")
    L.append("Largest per process / per server (max) at the largest size of each pattern:")
    L.append("")
    rows = []
    for pat in CONNECT_PATTERNS:
        for ppn in sorted({k[1] for k in points if k[0] == pat}):
            ns = [k[2] for k in points if k[0] == pat and k[1] == ppn]
            if not ns:
                continue
            n = max(ns)
            row = [pat, ppn, n]
            for label, topo, mode in CONNECT_SERIES:
                p = points.get((pat, ppn, n, topo, mode))
                row.append("%s / %s / %s" % (p.get("c2s_max"), p.get("s2c_max"), p.get("s2s_max"))
                           if p else "-")
            rows.append(row)
    L += md_table(["pattern", "ppn", "processes"] + [c[0] for c in CONNECT_SERIES], rows)
    L.append("")
    off = [(k, p["s2c_off_edge"]) for k, p in sorted(points.items())
           if k[4] == "edges" and k[3] != "fcg" and p.get("s2c_off_edge")]
    if off:
        L.append("Under edges some server still answered an origin on a non-neighbour node "
                 "straight (server-to-client endpoints off the topology's edges), e.g. %s: "
                 "%d such endpoints in the job."
                 % (" ".join(map(str, off[-1][0])), off[-1][1]))
        L.append("")
    bad = connect_checks(points)
    L.append("Checks (lazy and edges never above eager; under edges no client endpoint off "
             "an edge): %s." % ("all kept" if not bad else "%d broken: %s" % (
                 len(bad), "; ".join(bad[:5]))))
    summary["checks_broken"] = bad
    return L, summary


def model_section(runs):
    models = [r["model"] for r in runs if r.get("model")]
    if not models:
        return ["No MODEL line was printed."], None
    m = models[0]
    same = all(x == m for x in models)
    L = ["Model parameters in use (the MODEL line of the runs%s):" %
         ("" if same else "; NOTE: not every run printed the same line, see sim.json"), ""]
    L += md_table(["parameter", "value"], [[k, v] for k, v in m.items() if k != "kind"])
    return L, m


def runs_section(runs):
    L = []
    by = {}
    for r in runs:
        by[r.get("status", "?")] = by.get(r.get("status", "?"), 0) + 1
    L.append("Runs: %s." % ", ".join("%d %s" % (v, k) for k, v in sorted(by.items())))
    checked = [r for r in runs if r.get("checks")]
    if checked:
        kept = sum(1 for r in checked if all(c.get("ok") == 1 for c in r["checks"]))
        L.append("Invariants (SIMCHECK lines: every operation completed, every fetch-and-add "
                 "value handed out once, no request beyond a credit): kept in %d of %d runs "
                 "that check them." % (kept, len(checked)))
    bad = [r for r in runs if r.get("status") != "ok"]
    if bad:
        L.append("")
        L += md_table(["status", "command", "reason"],
                      [[r["status"], "`%s`" % r["cmdline"], r.get("reason", "")] for r in bad])
    costly = sorted((r for r in runs if r.get("simstat")),
                    key=lambda r: -r["simstat"].get("wall_s", 0))[:12]
    if costly:
        L.append("")
        L.append("The costliest runs (SIMSTAT; issue 21 asks under 10 minutes and 8 GiB for a "
                 "1,048,576-process memory point and a 131,072-process contention point):")
        L.append("")
        L += md_table(["part", "command", "wall s", "max RSS MiB", "events", "sim us"],
                      [[r["part"], "`%s`" % " ".join(r["cmd"][1:]), fmt(r["simstat"].get("wall_s")),
                        fmt(r["simstat"].get("maxrss_kb", 0) / 1024.0),
                        r["simstat"].get("events", "-"), fmt(r["simstat"].get("sim_us"))]
                       for r in costly])
    return L


# ------------------------------------------------------------------- plots --
MARK = {"fcg": "o", "mfcg": "s", "cfcg": "^", "hypercube": "D", "auto": "x",
        DEFAULT_FCG: "v", DEFAULT_AUTO: "x"}


def plot_memory(outdir, series):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 5))
    for s in series_order(series):
        pts = sorted(series[s].items())
        ax.plot([n for n, _ in pts], [p["buffer_bytes"] / 2 ** 20 for _, p in pts],
                marker=MARK.get(s, "."), label=s, linestyle="--" if "defaults" in s else "-")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("processes (12 per node)")
    ax.set_ylabel("request-buffer MiB per node (node with the most)")
    ax.set_title("Request-buffer memory per node (cf. hicoo Fig. 9)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    name = "memory.png"
    fig.savefig(os.path.join(outdir, name), dpi=110)
    plt.close(fig)
    return [name]


def plot_contention(outdir, summ):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = []
    for n, op in sorted({(k[0], k[1]) for k in summ}):
        levels = sorted({k[2] for k in summ if k[0] == n and k[1] == op})
        fig, axes = plt.subplots(1, len(levels), figsize=(5 * len(levels), 4.2), squeeze=False)
        for ax, level in zip(axes[0], levels):
            for topo in TOPOLOGIES:
                s = summ.get((n, op, level, topo))
                if not s or not s["points"]:
                    continue
                ax.scatter([p[0] for p in s["points"]], [p[1] for p in s["points"]],
                           s=4 if len(s["points"]) > 300 else 10, marker=MARK[topo],
                           label=topo, alpha=0.7, rasterized=True)
            ax.set_yscale("log")
            ax.set_xlabel("rank")
            ax.set_ylabel("us per operation")
            ax.set_title("%d %% contention" % level)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle("%s to rank 0, %d processes (cf. hicoo Fig. %d)"
                     % ("vector put" if op == "putv" else "fetch-and-add", n,
                        10 if op == "putv" else 11))
        fig.tight_layout()
        name = "contention-%s-np%d.png" % (op, n)
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        names.append(name)
    return names


def plot_hot100(outdir, summ):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = []
    for n in sorted({k[0] for k in summ}):
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
        for topo in ("fcg", "mfcg", "auto", "cfcg", "hypercube"):
            s = summ.get((n, topo))
            if not s or not s["points"]:
                continue
            pts = s["points"]
            label = topo if topo != "auto" else "auto (%s)" % shown_topo(s.get("topo_printed"))
            a1.scatter([p[0] for p in pts], [p[1] for p in pts], s=3 if len(pts) > 2000 else 8,
                       marker=MARK[topo], label=label, alpha=0.6, rasterized=True)
            ys = sorted(p[1] for p in pts)
            a2.plot([i / max(1, len(ys) - 1) for i in range(len(ys))], ys, label=label)
        a1.set_xlabel("rank")
        a1.set_title("by rank")
        a2.set_xlabel("share of ranks (sorted)")
        a2.set_title("sorted")
        for ax in (a1, a2):
            ax.set_ylabel("us per fetch-and-add")
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle("100 %% contention fetch-and-add, %d processes (cf. hicoo Fig. 12)" % n)
        fig.tight_layout()
        name = "hot100-np%d.png" % n
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        names.append(name)
    return names


def plot_connect(outdir, points):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pats = [p for p in CONNECT_PATTERNS if any(k[0] == p for k in points)]
    ppn = min(k[1] for k in points)
    fig, axes = plt.subplots(2, len(pats), figsize=(4.2 * len(pats), 7.5), squeeze=False)
    for j, pat in enumerate(pats):
        for i, (field, what) in enumerate((("c2s_mean", "client-to-server per process"),
                                           ("s2c_mean", "server-to-client per server"))):
            ax = axes[i][j]
            for label, topo, mode in CONNECT_SERIES:
                pts = sorted((k[2], p[field]) for k, p in points.items()
                             if k[:2] == (pat, ppn) and k[3:] == (topo, mode) and field in p)
                if pts:
                    ax.plot([x for x, _ in pts], [max(y, 1e-2) for _, y in pts],
                            marker=MARK.get(topo, "."), label=label,
                            linestyle="--" if mode == "eager" else "-")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title("%s: %s" % (pat, what), fontsize=9)
            ax.set_xlabel("processes (%d per node)" % ppn)
            ax.grid(True, which="both", alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle("Endpoints made on demand (issue 22; cf. the on-demand connection paper)")
    fig.tight_layout()
    name = "connect.png"
    fig.savefig(os.path.join(outdir, name), dpi=110)
    plt.close(fig)
    return [name]


def make_plots(outdir, series, csumm, hsumm, cpoints=None):
    """PNG names; plotting failures are reported, never lose the tables."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], "matplotlib not available: no plots"
    names = []
    try:
        if series:
            names += plot_memory(outdir, series)
        if csumm:
            names += plot_contention(outdir, csumm)
        if hsumm:
            names += plot_hot100(outdir, hsumm)
        if cpoints:
            names += plot_connect(outdir, cpoints)
    except Exception as e:  # noqa: BLE001 (a plot must not lose the figures)
        return names, "plotting failed: %s" % e
    return names, None


# ------------------------------------------------------------------ report --
def goals_lines(summary, hsumm):
    """The issue's goals at a glance, from the sections' summaries."""
    L = ["## Goals (issue 21)", ""]
    g = summary.get("memory", {}).get("goal")
    if g:
        L.append("- Memory, default topology at %d processes: cut %s (goal >= %.1f: %s); "
                 "growth exponent %s (goal <= 1/3: %s)."
                 % (PAPER_PROCS, fmt(g["cut"]), GOAL_CUT, "met" if g["cut_ok"] else "NOT met",
                    fmt(g["exponent"]), "met" if g["exponent_ok"] else "NOT met"))
    for key, r in sorted(summary.get("hot100", {}).items()):
        n, topo = key.split("/")
        if int(n) != GOAL_HOT100_PROCS:
            continue
        shown = topo if topo != "auto" else "default (auto: %s)" % shown_topo(
            hsumm.get((int(n), topo), {}).get("topo_printed"))
        L.append("- 100 %% fetch-and-add at %s processes, %s: mean %s x FCG's mean (goal <= %.2f), "
                 "slowest %s x FCG's mean (goal <= %.2f): %s."
                 % (n, shown, fmt(r["mean_ratio"]), GOAL_HOT100_MEAN, fmt(r["max_ratio"]),
                    GOAL_HOT100_MAX, "met" if r["goal_ok"] else "NOT met"))
    if len(L) == 2:
        L.append("- No goal could be evaluated (missing runs).")
    return L


def build_report(runs, meta):
    """(markdown text, summary dict) of a set of finished runs."""
    series = memory_series(runs)
    csumm = run_summaries(runs, "contention", "hotspot")
    hsumm = run_summaries(runs, "hot100", "hot100")
    cpoints = connect_points(runs)
    L = ["# armada-sim study: hicoo 4.1 and 4.2 at scale", ""]
    L.append("Command: `%s`  " % meta.get("command", "?"))
    L.append("Simulator: `%s`; date %s; %d runs, %.0f s." % (
        meta.get("sim", "?"), meta.get("date", "?"), len(runs), meta.get("seconds", 0)))
    L.append("")
    head_end = len(L)
    ml, model = model_section(runs)
    L += ml + [""]
    summary = {"model": model}
    if "memory" in meta.get("parts", PARTS):
        L += ["## Memory (hicoo 4.1, Fig. 9)", ""]
        mlines, summary["memory"] = memory_section(series)
        L += mlines + [""]
        if "memory.png" in meta.get("plots", []):
            L += ["![memory](memory.png)", ""]
    if "contention" in meta.get("parts", PARTS):
        L += ["## Contention (hicoo 4.2, Figs. 10 and 11)", ""]
        L += contention_section(csumm) + [""]
        L += ["![%s](%s)" % (p, p) for p in meta.get("plots", []) if p.startswith("contention")]
        L.append("")
    if "hot100" in meta.get("parts", PARTS):
        L += ["## 100 % contention fetch-and-add (hicoo Fig. 12)", ""]
        hl, ratios = hot100_section(hsumm)
        summary["hot100"] = {"%d/%s" % k: v for k, v in ratios.items()}
        L += hl + [""]
        L += ["![%s](%s)" % (p, p) for p in meta.get("plots", []) if p.startswith("hot100")]
        L.append("")
    if "connect" in meta.get("parts", PARTS):
        L += ["## Connections on demand (issue 22 item 5)", ""]
        cl, summary["connect"] = connect_section(cpoints)
        L += cl + [""]
        if "connect.png" in meta.get("plots", []):
            L += ["![connect](connect.png)", ""]
    if meta.get("plot_note"):
        L += ["Plots: " + meta["plot_note"], ""]
    L[head_end:head_end] = goals_lines(summary, hsumm) + [""]
    L += ["## Runs", ""] + runs_section(runs) + [""]
    L += ["## Commands", "", "Every run's command line (also in sim.json, with its records):",
          "", "```"] + [r["cmdline"] for r in runs] + ["```", ""]
    summary["contention"] = {"%d/%s/%d/%s" % k: {"mean": v.get("mean"), "max": v.get("max"),
                                                  "n": v["n"], "hammers": v.get("hammers")}
                             for k, v in csumm.items()}
    return "\n".join(L), summary, (series, csumm, hsumm, cpoints)


def json_safe(v):
    """v with infinities and NaNs as text (strict JSON has none)."""
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    return v


def parse_list(text, cast=int):
    return [cast(x) for x in text.split(",") if x]


def parse_sizes(text, fields):
    """"1024,16384:10:128" -> [{"procs": 1024}, {"procs": 16384, fields[0]:
    10, fields[1]: 128}]: a process count with optional per-size settings."""
    out = []
    for item in text.split(","):
        if not item:
            continue
        parts = item.split(":")
        if len(parts) > len(fields) + 1:
            raise ValueError("%r: at most %d settings after the process count (%s)"
                             % (item, len(fields), ":".join(fields)))
        size = {"procs": int(parts[0])}
        for f, v in zip(fields, parts[1:]):
            if v:
                size[f] = int(v)
        out.append(size)
    return out


def merge_runs(files, runs):
    """The runs of earlier sim.json files, then `runs`; where two runs have
    the same part and settings, the later one wins unless it failed and the
    earlier did not."""
    merged, index = [], {}
    loaded = []
    for path in files:
        with open(path) as fh:
            for r in json.load(fh)["runs"]:
                loaded.append(dict(r, records=expand_records(r.get("records", [])),
                                   merged_from=path))
    for r in loaded + runs:
        key = (r["part"], json.dumps(r["meta"], sort_keys=True))
        if key in index:
            old = merged[index[key]]
            if old.get("status") == "ok" and r.get("status") != "ok":
                continue
            merged[index[key]] = r
        else:
            index[key] = len(merged)
            merged.append(r)
    return merged


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=None, help="the armada-sim binary (required unless "
                    "--report-only)")
    ap.add_argument("--out", required=True, help="report folder")
    ap.add_argument("--model", default=None, help="model file passed to armada-sim")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a model parameter passed to armada-sim (repeatable)")
    ap.add_argument("--seed", type=int, default=None, help="passed to armada-sim")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes only (CI smoke): memory to 12,288, contention and hot100 "
                         "at 64 processes, connect at 128")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--jobs", type=int, default=2, help="simulator runs at once (default 2)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds; runs that would start later are recorded as skipped "
                         "(runs go smallest first)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run (default 900)")
    ap.add_argument("--memory-max", type=int, default=None,
                    help="largest process count of the memory study (default 1048576; "
                         "quick 12288)")
    ap.add_argument("--contention-procs", default=None,
                    help="process counts of the contention study, each N or N:ITERS or "
                         "N:ITERS:MEASURE (default 1024,16384,131072; quick 64)")
    ap.add_argument("--hot100-procs", default=None,
                    help="process counts of hot100, each N or N:ITERS "
                         "(default 1024,16384,131072; quick 64)")
    ap.add_argument("--measure", type=int, default=256,
                    help="measuring ranks sampled above --measure-all-upto processes (256)")
    ap.add_argument("--measure-all-upto", type=int, default=1024,
                    help="up to this many processes every rank measures (1024)")
    ap.add_argument("--levels", default="0,11,20", help="contention levels in percent")
    ap.add_argument("--ppn", type=int, default=4, help="processes per node, contention/hot100")
    ap.add_argument("--iters", type=int, default=20, help="hotspot iterations per rank (20)")
    ap.add_argument("--hot100-ops", type=int, default=10)
    ap.add_argument("--hot100-iters", type=int, default=100)
    ap.add_argument("--big-procs", type=int, default=131072,
                    help="runs of this many processes or more run one at a time (131072; "
                         "0: no limit)")
    ap.add_argument("--connect-procs", default=None,
                    help="process counts of the connect part (default 128,256,...,4096; "
                         "quick 128)")
    ap.add_argument("--connect-ppn", default=None,
                    help="processes per node of the connect part (default 4,12; quick 4)")
    ap.add_argument("--connect-k", type=int, default=4, help="nodes of a clique (4)")
    ap.add_argument("--connect-ops", type=int, default=10,
                    help="operations per process, random and hotspot patterns (10)")
    ap.add_argument("--connect-all-pairs", type=int, default=600000,
                    help="pattern all only where processes x (nodes - 1) is at most this "
                         "(600000: ~2 GiB of server records)")
    ap.add_argument("--merge", default=None,
                    help="earlier sim.json files (comma-separated) whose runs join this "
                         "report; a run repeated here replaces the earlier one")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: report the runs of --merge")
    ap.add_argument("--list", action="store_true",
                    help="print the commands that would run, run nothing")
    opts = ap.parse_args(argv)
    opts.parts = parse_list(opts.parts, str)
    for p in opts.parts:
        if p not in PARTS:
            ap.error("unknown part %s (known: %s)" % (p, ",".join(PARTS)))
    if opts.memory_max is None:
        opts.memory_max = 12288 if opts.quick else 1048576
    try:
        opts.contention_procs = parse_sizes(opts.contention_procs or (
            "64" if opts.quick else "1024,16384,131072"), ["iters", "measure"])
        opts.hot100_procs = parse_sizes(opts.hot100_procs or (
            "64" if opts.quick else "1024,16384,131072"), ["iters"])
        opts.levels = parse_list(opts.levels)
        opts.connect_procs = parse_list(opts.connect_procs or (
            "128" if opts.quick else "128,256,512,1024,2048,4096"))
        opts.connect_ppn = parse_list(opts.connect_ppn or ("4" if opts.quick else "4,12"))
    except ValueError as e:
        ap.error(str(e))
    opts.merge = parse_list(opts.merge or "", str)
    if opts.report_only and not opts.merge:
        ap.error("--report-only reports the runs of --merge files: none given")
    if not opts.report_only and not opts.list:
        if not opts.sim or not os.path.exists(opts.sim):
            ap.error("no simulator at %s" % opts.sim)
    opts.sim = os.path.abspath(opts.sim) if opts.sim else None
    if opts.model:
        opts.model = os.path.abspath(opts.model)
    return opts


def write_outputs(opts, runs, meta):
    """sim.md, sim.json and the plots of the runs."""
    meta["parts"] = [p for p in PARTS if p in meta["parts"] or any(r["part"] == p for r in runs)]
    _, _, (series, csumm, hsumm, cpoints) = build_report(runs, meta)
    meta["plots"], meta["plot_note"] = make_plots(opts.out, series, csumm, hsumm, cpoints)
    text, summary, _ = build_report(runs, meta)
    with open(os.path.join(opts.out, "sim.md"), "w") as fh:
        fh.write(text)
    with open(os.path.join(opts.out, "sim.json"), "w") as fh:
        stored = [dict(r, records=compact_records(r.get("records", []))) for r in runs]
        json.dump(json_safe({"meta": meta, "summary": summary, "runs": stored}), fh,
                  separators=(",", ":"))


def main(argv=None):
    opts = parse_args(argv)
    specs = [] if opts.report_only else plan(opts)
    if opts.list:
        for sp in specs:
            print(" ".join(shlex.quote(c) for c in sim_command(opts, sp["args"])))
        return 0
    os.makedirs(opts.out, exist_ok=True)
    log("sim_study: %d runs (%s), %d at once, report in %s"
        % (len(specs), ",".join(opts.parts), opts.jobs, opts.out))
    t0 = time.time()
    runs = run_all(specs, opts)
    seconds = round(time.time() - t0, 1)
    if opts.merge:
        runs = merge_runs(opts.merge, runs)
    meta = {"command": " ".join([os.path.basename(sys.argv[0])] + (argv if argv is not None
                                                                   else sys.argv[1:])),
            "sim": opts.sim, "model_file": opts.model, "sets": opts.set, "seed": opts.seed,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "parts": [] if opts.report_only else opts.parts, "quick": opts.quick,
            "jobs": opts.jobs, "budget": opts.budget, "merged": opts.merge, "seconds": seconds}
    write_outputs(opts, runs, meta)
    bad = sum(1 for r in runs if r.get("status") not in ("ok", "skipped"))
    log("sim_study: done in %.0fs: %d runs, %d failed, %d skipped; %s"
        % (seconds, len(runs), bad, sum(1 for r in runs if r.get("status") == "skipped"),
           os.path.join(opts.out, "sim.md")))
    return 1 if bad else 0


if __name__ == "__main__":
    maybe_reexec()
    sys.exit(main())
