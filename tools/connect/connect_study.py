#!/usr/bin/env python3
"""connect_study: how many connections each process makes, and what making
them costs (issue 22 items 5 and 6; the on-demand connection paper's Tables
I-IV and Fig. 12), under ARMADA_CONNECT=eager, lazy and edges.

Parts (--parts, default both):
  tables  every benchmark suite (armada-bench-<suite>, short options), the
          clique kernel (armada-bench-clique, one run per --clique-k) and
          armada-bench-connect, at each --np as that many virtual nodes
          (ARMADA_PPN=1) under each --modes; the ARMADA_STATS=1 line of every
          process gives its eps_c2s / eps_s2c / eps_s2s, averaged per run:
          Table I (client-to-server endpoints per process), Table II
          (server-to-client endpoints per server), Tables III/IV (the same
          for the clique kernel, the paper's STOMP tables), Table V
          (server-to-server endpoints per server, the topology's edges).
  fig12   armada-bench-connect at each --fig-np virtual nodes under eager
          and lazy (--runs launches each): ARMCI_Init time (max over
          processes), the first 8-byte put+fence and get to a fresh node
          (mean), and the steady-state ones (median), against nodes.

Every run: mpirun with --oversubscribe --bind-to none --mca btl self,vader
--mca mpi_yield_when_idle 1, ARMADA_PPN=1, UCX_TLS=tcp,self, ARMADA_STATS=1,
ARMADA_CONNECT=<mode> (edges: also ARMADA_TOPOLOGY=<--edges-topology>),
under `timeout`. A run that fails, times out, fails a CHECK or lacks a
process's stats line is recorded as such and its figures are left out:
table cells say why, never a number.

Writes DIR/connect.md (tables, figure data, commands), DIR/connect.json
(every run: command, environment, exit status, seconds, per-process stats,
RESULT and CHECK records; the tables), DIR/connect_fig12.png (matplotlib;
if the python3 first on PATH lacks it the script re-runs itself under
/usr/bin/python3) and DIR/logs/<run>.log (each run's output). Exits 1 when
any run did not succeed, 0 otherwise.

Usage: connect_study.py [--build DIR] [--out DIR] [--np 16,64]
                        [--modes eager,lazy,edges] [--fig-np 2,4,8,16,32,64]
                        [--quick] [--timeout S] [--suites LIST] [--parts LIST]
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "btl", "self,vader", "--mca", "mpi_yield_when_idle", "1"]
MODES = ["eager", "lazy", "edges"]
# Short options per suite: a run at 64 processes on 2 cores in well under a
# minute; the counts, not the timings, are what the tables use.
SUITE_OPTS = {
    "ops": ["-r", "1", "-w", "5", "-n", "50", "-R", "0.005"],
    "contig": ["-r", "1", "-w", "2", "-n", "20", "-M", "4k", "-R", "0.005"],
    "strided": ["-r", "1", "-w", "2", "-n", "20", "-t", "16k", "-m", "1k", "-R", "0.005"],
    "vector": ["-r", "1", "-w", "2", "-n", "20", "-t", "16k", "-m", "1k", "-R", "0.005"],
    "fadd": ["-r", "1", "-w", "2", "-n", "20", "-R", "0.005"],
    "hotspot": ["-r", "1", "-w", "2", "-n", "10", "-c", "100", "-s", "0.02",
                "-R", "0.002"],
    "pairs": ["-r", "1", "-w", "2", "-n", "20", "-R", "0.005"],
    "shift": ["-r", "1", "-w", "2", "-n", "20", "-m", "512", "-R", "0.005"],
    "flood": ["-r", "1", "-w", "2", "-n", "64", "-m", "1k", "-M", "4k", "-W", "16",
              "-R", "0.005"],
    "barrier": ["-r", "1", "-w", "2", "-n", "20"],
    "topomem": [],
}
QUICK_OPTS = {
    "ops": ["-r", "1", "-w", "2", "-n", "10", "-o", "get,put,acc,fadd", "-R", "0.002"],
    "contig": ["-r", "1", "-w", "1", "-n", "5", "-M", "64", "-R", "0.002"],
    "strided": ["-r", "1", "-w", "1", "-n", "5", "-t", "4k", "-m", "2k", "-R", "0.002"],
    "vector": ["-r", "1", "-w", "1", "-n", "5", "-t", "4k", "-m", "2k", "-R", "0.002"],
    "fadd": ["-r", "1", "-w", "1", "-n", "5", "-R", "0.002"],
    "hotspot": ["-r", "1", "-w", "1", "-n", "3", "-c", "100", "-s", "0.01", "-R", "0.001"],
    "pairs": ["-r", "1", "-w", "1", "-n", "5", "-R", "0.002"],
    "shift": ["-r", "1", "-w", "1", "-n", "5", "-m", "64", "-R", "0.002"],
    "flood": ["-r", "1", "-w", "1", "-n", "16", "-m", "1k", "-M", "1k", "-W", "4",
              "-R", "0.002"],
    "barrier": ["-r", "1", "-w", "1", "-n", "5"],
    "topomem": [],
}
CONNECT_OPTS = ["-r", "3", "-w", "10", "-n", "100"]
QUICK_CONNECT_OPTS = ["-r", "1", "-w", "2", "-n", "10"]
STATS_LINE = re.compile(r"armada\[rank (\d+)\] stats:(.*)$")
RECORD = re.compile(r"^(RESULT|SKIP|CHECK|INFO) (.*)$")
EPS = ("eps_c2s", "eps_s2c", "eps_s2s")


# log, maybe_reexec (matplotlib's python) and parse_kv (key=value records)
# are the benchmark harness's own.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from armada_bench import log, maybe_reexec, parse_kv  # noqa: E402


def int_list(text):
    return [int(x) for x in text.split(",") if x.strip()]


def app_spec(text):
    row, sep, cmd = text.partition("=")
    if not sep or not row.strip() or not cmd.split():
        raise argparse.ArgumentTypeError("want ROW=PROGRAM [ARGS], got %r" % text)
    return row.strip(), cmd.split()


def word_list(text):
    return [x.strip() for x in text.split(",") if x.strip()]


# ----------------------------------------------------------------- parsing --
def parse_stats(out):
    """Per rank, the numeric fields of its ARMADA_STATS line (eps_*,
    connect_us, endpoints, server_clients, ...)."""
    per = {}
    for line in out.splitlines():
        m = STATS_LINE.search(line)
        if not m:
            continue
        kv = {}
        for k, v in parse_kv(m.group(2)).items():
            vm = re.match(r"^([0-9]+(?:\.[0-9]+)?)B?$", v)
            if vm and "/" not in k:
                kv[k] = float(vm.group(1))
        per[int(m.group(1))] = kv
    return per


def parse_records(out):
    recs = []
    for line in out.splitlines():
        m = RECORD.match(line.strip())
        if m:
            kv = parse_kv(m.group(2))
            kv["_kind"] = m.group(1)
            recs.append(kv)
    return recs


def eps_summary(per, np):
    """Mean and max per run of each eps_* count: client-to-server over every
    process, the servers' counts over the processes that run a server (those
    whose line has server_clients; every process when none has)."""
    if len(per) < np or any(k not in kv for kv in per.values() for k in EPS):
        return None
    servers = [kv for kv in per.values() if "server_clients" in kv] or list(per.values())
    out = {"processes": len(per), "servers": len(servers)}
    for k in EPS:
        vals = [kv[k] for kv in (per.values() if k == "eps_c2s" else servers)]
        out[k] = {"mean": statistics.mean(vals), "max": max(vals), "min": min(vals)}
    cu = [kv["connect_us"] for kv in per.values() if "connect_us" in kv]
    if cu:
        out["connect_us"] = {"mean": statistics.mean(cu), "max": max(cu)}
    return out


# --------------------------------------------------------------------- run --
def launch(args, name, prog, opts, np, mode):
    """One mpirun; returns the run's record (never raises on a bad run)."""
    env_add = {"ARMADA_PPN": "1", "UCX_TLS": "tcp,self", "ARMADA_STATS": "1",
               "ARMADA_CONNECT": mode}
    if mode == "edges":
        env_add["ARMADA_TOPOLOGY"] = args.edges_topology
    elif args.topology:
        env_add["ARMADA_TOPOLOGY"] = args.topology
    cmd = list(MPIRUN)
    for k, v in sorted(env_add.items()):
        cmd += ["-x", "%s=%s" % (k, v)]
    cmd += ["-np", str(np), prog] + opts
    run = {"name": name, "np": np, "mode": mode, "command": " ".join(cmd), "env": env_add}
    if not os.path.exists(prog):
        run.update(status="not_built", rc=None, seconds=0.0, records=[], stats=None)
        log("  %-40s not built: %s" % (name, prog))
        return run
    env = dict(os.environ)
    env.update(env_add)
    t0 = time.time()
    try:
        p = subprocess.run(["timeout", "-k", "5", str(args.timeout)] + cmd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        out, rc = p.stdout, p.returncode
    except OSError as e:
        out, rc = str(e), 127
    secs = time.time() - t0
    with open(os.path.join(args.out, "logs", name + ".log"), "w") as f:
        f.write("$ " + run["command"] + "\n" + out)
    recs = parse_records(out)
    per = parse_stats(out)
    bad_checks = [r for r in recs if r["_kind"] == "CHECK" and r.get("ok") != "1"]
    if rc in (124, 137):
        status = "timeout"
    elif rc != 0:
        status = "failed"
    elif bad_checks:
        status = "check_failed"
    elif eps_summary(per, np) is None:
        status = "stats_missing"   # a process's line, or its eps_* fields
    else:
        status = "ok"
    run.update(status=status, rc=rc, seconds=round(secs, 2), records=recs,
               stats={str(r): kv for r, kv in sorted(per.items())},
               eps=eps_summary(per, np) if status == "ok" else None)
    if status != "ok":
        run["tail"] = "\n".join(out.splitlines()[-10:])
    log("  %-40s %-13s %6.1f s" % (name, status, secs))
    return run


def table_jobs(args):
    """(name, program, options, np, mode, row) of the tables part."""
    bdir = os.path.join(args.build, "bench")
    jobs = []
    for np in args.np:
        for mode in args.modes:
            for s in args.suites:
                opts = (QUICK_OPTS if args.quick else SUITE_OPTS)[s]
                jobs.append(("%s.np%d.%s" % (s, np, mode),
                             os.path.join(bdir, "armada-bench-%s" % s), opts, np, mode, s))
            for k in args.clique_k:
                opts = ["-k", str(k), "-i", "3" if args.quick else "10"]
                row = "clique k=%d" % k
                jobs.append(("clique-k%d.np%d.%s" % (k, np, mode),
                             os.path.join(bdir, "armada-bench-clique"), opts, np, mode, row))
            for row, words in args.app:
                prog = words[0] if os.path.isabs(words[0]) else os.path.join(args.build,
                                                                               words[0])
                jobs.append(("%s.np%d.%s" % (row, np, mode), prog, words[1:], np, mode, row))
            jobs.append(("connect.np%d.%s" % (np, mode),
                         os.path.join(bdir, "armada-bench-connect"),
                         QUICK_CONNECT_OPTS if args.quick else CONNECT_OPTS, np, mode,
                         "connect"))
    return jobs


def fig_jobs(args, done):
    """armada-bench-connect launches of the fig12 part not already run."""
    bdir = os.path.join(args.build, "bench")
    have = {}
    for r in done:
        if r.get("row") == "connect":
            have[(r["np"], r["mode"])] = have.get((r["np"], r["mode"]), 0) + 1
    jobs = []
    for np in args.fig_np:
        for mode in [m for m in ("eager", "lazy") if m in args.modes]:
            for i in range(have.get((np, mode), 0), args.runs):
                jobs.append(("connect.np%d.%s.run%d" % (np, mode, i + 1),
                             os.path.join(bdir, "armada-bench-connect"),
                             QUICK_CONNECT_OPTS if args.quick else CONNECT_OPTS, np, mode,
                             "connect"))
    return jobs


# ------------------------------------------------------------------ report --
def cell(runs, key, stat="mean"):
    """A table cell from the runs of one row, np and mode: the mean over the
    runs that succeeded, or why there is none."""
    ok = [r for r in runs if r["status"] == "ok" and r.get("eps")]
    if not ok:
        if not runs:
            return None, "not run"
        return None, runs[0]["status"]
    vals = [r["eps"][key][stat] for r in ok]
    v = statistics.mean(vals)
    return v, ("%.2f" % v).rstrip("0").rstrip(".")


def build_tables(args, runs):
    rows = []
    for r in runs:
        if r["row"] not in rows:
            rows.append(r["row"])
    tables = {}
    for key in EPS:
        t = {}
        for row in rows:
            for np in args.np:
                for mode in args.modes:
                    sel = [r for r in runs if r["row"] == row and r["np"] == np
                           and r["mode"] == mode]
                    v, text = cell(sel, key)
                    vmax, _ = cell(sel, key, "max")
                    t.setdefault(row, {})["%d/%s" % (np, mode)] = {
                        "mean": v, "max": vmax, "text": text}
        tables[key] = t
    return tables


def md_table(args, table, rows):
    cols = ["%d/%s" % (np, m) for np in args.np for m in args.modes]
    lines = ["| program | " + " | ".join("%s nodes %s" % tuple(c.split("/")) for c in cols)
             + " |", "|---" * (len(cols) + 1) + "|"]
    for row in rows:
        if row in table:
            lines.append("| %s | " % row + " | ".join(table[row][c]["text"] for c in cols)
                         + " |")
    return lines


def fig_points(args, runs):
    """Per mode and np: ARMCI_Init (max over processes, us), first and
    steady put/get (us): means over the connect runs that succeeded."""
    want = {"init": ("init", "max"), "first_put": ("first_put", "mean"),
            "first_get": ("first_get", "mean"), "steady_put": ("steady_put", "median"),
            "steady_get": ("steady_get", "median")}
    pts = {}
    for r in runs:
        if r["row"] != "connect" or r["mode"] not in ("eager", "lazy"):
            continue
        p = pts.setdefault(r["mode"], {}).setdefault(r["np"], {"runs": 0, "ok": 0})
        p["runs"] += 1
        if r["status"] != "ok":
            p.setdefault("failed", []).append(r["status"])
            continue
        p["ok"] += 1
        e = r.get("eps") or {}
        neps = sum(e[k]["mean"] for k in EPS if k in e)
        if "connect_us" in e and neps > 0:
            p.setdefault("_per_ep", []).append(e["connect_us"]["mean"] / neps)
        for fig, (op, stat) in want.items():
            for kv in r["records"]:
                if kv["_kind"] == "RESULT" and kv.get("op") == op and kv.get("stat") == stat:
                    p.setdefault("_" + fig, []).append(float(kv["value"]))
    for mode in pts:
        for np, p in pts[mode].items():
            for fig in list(want) + ["per_ep"]:
                vals = p.pop("_" + fig, [])
                p[fig] = statistics.mean(vals) if vals else None
    return pts


def speed_goals(pts):
    """Issue 22's speed figures from the fig12 points (measured, not judged
    here: the machine is shared). Each: (what, value, goal text)."""
    lazy, eager = pts.get("lazy", {}), pts.get("eager", {})
    out = []
    top = max(lazy) if lazy else None
    if top and 2 in lazy and lazy[top]["init"] and lazy[2]["init"]:
        out.append(("ARMCI_Init lazy, %d nodes / 2 nodes" % top,
                    lazy[top]["init"] / lazy[2]["init"], "at most 1.5"))
    if top and top in eager and lazy[top]["init"] and eager[top]["init"]:
        out.append(("ARMCI_Init at %d nodes, lazy / eager" % top,
                    lazy[top]["init"] / eager[top]["init"], "below 1"))
    for np in sorted(lazy):
        lp, ep = lazy[np], eager.get(np, {})
        if lp.get("first_put") and ep.get("per_ep") and lp.get("steady_get"):
            bound = ep["per_ep"] + lp["steady_get"]
            out.append(("first put lazy at %d nodes / (eager connect time per endpoint "
                        "%.1f us + round trip %.1f us)" % (np, ep["per_ep"], lp["steady_get"]),
                        lp["first_put"] / bound, "at most 1"))
    return out


def plot_fig12(path, pts):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not available: no plot"
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"eager": ("tab:red", "o"), "lazy": ("tab:blue", "s")}
    plotted = False
    for mode, byn in sorted(pts.items()):
        col, mk = styles.get(mode, ("k", "x"))
        ns = sorted(n for n in byn if byn[n].get("init") is not None)
        if ns:
            a.plot(ns, [byn[n]["init"] / 1e3 for n in ns], marker=mk, color=col, label=mode)
            plotted = True
        for what, ls in (("first_put", "-"), ("first_get", "--"), ("steady_put", ":")):
            ns = sorted(n for n in byn if byn[n].get(what) is not None)
            if ns:
                b.plot(ns, [byn[n][what] for n in ns], marker=mk, color=col, linestyle=ls,
                       label="%s %s" % (mode, what.replace("_", " ")))
                plotted = True
    if not plotted:
        plt.close(fig)
        return "no successful connect run: no plot"
    ticks = sorted({n for byn in pts.values() for n in byn})
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(n) for n in ticks])
        ax.set_xlabel("virtual nodes (ARMADA_PPN=1, TCP)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    a.set_ylabel("ARMCI_Init, slowest process (ms)")
    a.set_title("ARMCI_Init time")
    b.set_yscale("log")
    b.set_ylabel("8-byte operation (us)")
    b.set_title("first operation to a fresh node vs steady state")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def fmt(v, scale=1.0):
    return "-" if v is None else "%.1f" % (v * scale)


def write_report(args, runs, tables, pts, plot_note):
    rows = []
    for r in runs:
        if r["row"] not in rows and r["row"] != "connect":
            rows.append(r["row"])
    apps = [a[0] for a in args.app]
    suites = [r for r in rows if not r.startswith("clique") and r not in apps]
    cliques = [r for r in rows if r.startswith("clique") or r in apps] + ["connect"]
    md = ["# Connections on demand: endpoints and connection time",
          "",
          "Generated %s by `tools/connect/connect_study.py %s`." % (
              datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), " ".join(args.argv)),
          "Virtual nodes: ARMADA_PPN=1 (every process its own node and server), "
          "UCX_TLS=tcp,self, ARMADA_STATS=1; edges runs with ARMADA_TOPOLOGY=%s. "
          "Counts are read from each process's ARMADA_STATS line at ARMCI_Finalize; "
          "a cell names the run's status when it did not succeed." % args.edges_topology,
          ""]
    titles = [
        ("eps_c2s", suites, "Table I: client-to-server endpoints per process (mean), "
         "benchmark suites"),
        ("eps_s2c", suites, "Table II: server-to-client endpoints per server (mean), "
         "benchmark suites"),
        ("eps_c2s", cliques, "Table III: client-to-server endpoints per process (mean), "
         "clique kernel (the paper's STOMP), --app kernels and armada-bench-connect"),
        ("eps_s2c", cliques, "Table IV: server-to-client endpoints per server (mean), "
         "clique kernel, --app kernels and armada-bench-connect"),
        ("eps_s2s", suites + cliques, "Table V: server-to-server endpoints per server "
         "(mean; the topology's edges)"),
    ]
    for key, sel, title in titles:
        md += ["## " + title, ""] + md_table(args, tables[key], sel) + [""]
    md += ["## Fig. 12 data: connection time against virtual nodes", "",
           "ARMCI_Init: slowest process; first: mean over the fresh nodes touched "
           "(armada-bench-connect); steady: median. Mean over the successful runs.", "",
           "| mode | nodes | runs ok | ARMCI_Init ms | first put us | first get us | "
           "steady put us | steady get us |", "|---|---|---|---|---|---|---|---|"]
    for mode in sorted(pts):
        for np in sorted(pts[mode]):
            p = pts[mode][np]
            why = " (%s)" % ", ".join(p["failed"]) if p.get("failed") else ""
            md.append("| %s | %d | %d/%d%s | %s | %s | %s | %s | %s |" % (
                mode, np, p["ok"], p["runs"], why, fmt(p["init"], 1e-3), fmt(p["first_put"]),
                fmt(p["first_get"]), fmt(p["steady_put"]), fmt(p["steady_get"])))
    goals = speed_goals(pts)
    md += ["", plot_note or "![Fig. 12](connect_fig12.png)", "",
           "## Issue 22 speed figures (measured here, judged by the reader)", "",
           "Round trip: lazy steady 8-byte get at the same node count; eager "
           "connect time per endpoint: its connect_us over its endpoints.", "",
           "| figure | ratio | goal |", "|---|---|---|"]
    md += ["| %s | %.2f | %s |" % g for g in goals] or ["| (no successful pair of runs) | | |"]
    md += ["", "## Runs", "",
           "| run | status | seconds | command |", "|---|---|---|---|"]
    for r in runs:
        md.append("| %s | %s | %s | `%s` |" % (r["name"], r["status"], r["seconds"],
                                               r["command"]))
    with open(os.path.join(args.out, "connect.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(args.out, "connect.json"), "w") as f:
        json.dump({"argv": args.argv, "np": args.np, "modes": args.modes,
                   "fig_np": args.fig_np, "quick": args.quick, "tables": tables,
                   "fig12": {m: {str(n): p for n, p in v.items()} for m, v in pts.items()},
                   "speed": [{"figure": g[0], "ratio": g[1], "goal": g[2]} for g in goals],
                   "runs": runs}, f, indent=1)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default="connect-study")
    ap.add_argument("--np", type=int_list, default=None, help="virtual nodes (16,64)")
    ap.add_argument("--modes", type=word_list, default=None, help="eager,lazy,edges")
    ap.add_argument("--fig-np", type=int_list, default=None, help="2,4,8,16,32,64")
    ap.add_argument("--runs", type=int, default=None, help="connect launches per fig12 point")
    ap.add_argument("--suites", type=word_list, default=list(SUITE_OPTS))
    ap.add_argument("--clique-k", type=int_list, default=[4])
    ap.add_argument("--app", action="append", default=[], type=app_spec, metavar="ROW=CMD",
                    help="an application kernel as a row of Tables III/IV: ROW=PROGRAM "
                    "[ARGS] (PROGRAM relative to --build), e.g. "
                    "'ft=apps/ft/armada-ft --class S'; repeatable")
    ap.add_argument("--parts", type=word_list, default=["tables", "fig12"])
    ap.add_argument("--edges-topology", default="mfcg")
    ap.add_argument("--topology", default=None,
                    help="ARMADA_TOPOLOGY for eager and lazy (default: the runtime's)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, np 4 (CI smoke test)")
    ap.add_argument("--timeout", type=int, default=None, help="seconds per run (120)")
    args = ap.parse_args(argv)
    args.argv = argv
    args.np = args.np or ([4] if args.quick else [16, 64])
    args.modes = args.modes or (["eager", "lazy"] if args.quick else MODES)
    args.fig_np = args.fig_np or ([2, 4] if args.quick else [2, 4, 8, 16, 32, 64])
    args.runs = args.runs or (1 if args.quick else 3)
    args.timeout = args.timeout or (60 if args.quick else 120)
    for m in args.modes:
        if m not in MODES:
            ap.error("--modes: %s is none of %s" % (m, ",".join(MODES)))
    for s in args.suites:
        if s not in SUITE_OPTS:
            ap.error("--suites: %s is none of %s" % (s, ",".join(SUITE_OPTS)))
    for p in args.parts:
        if p not in ("tables", "fig12"):
            ap.error("--parts: %s is none of tables,fig12" % p)
    return args


def main(argv):
    maybe_reexec()
    args = parse_args(argv)
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    runs = []
    jobs = table_jobs(args) if "tables" in args.parts else []
    log("connect_study: %d table runs" % len(jobs))
    for name, prog, opts, np, mode, row in jobs:
        r = launch(args, name, prog, opts, np, mode)
        r["row"] = row
        runs.append(r)
    if "fig12" in args.parts:
        fj = fig_jobs(args, runs)
        log("connect_study: %d fig12 runs" % len(fj))
        for name, prog, opts, np, mode, row in fj:
            r = launch(args, name, prog, opts, np, mode)
            r["row"] = row
            runs.append(r)
    tables = build_tables(args, [r for r in runs if not r["name"].count(".run")])
    pts = fig_points(args, runs)
    note = plot_fig12(os.path.join(args.out, "connect_fig12.png"), pts) \
        if "fig12" in args.parts else "fig12 not run"
    write_report(args, runs, tables, pts, note)
    bad = [r for r in runs if r["status"] != "ok"]
    log("connect_study: %d runs, %d not ok; report in %s" % (
        len(runs), len(bad), os.path.join(args.out, "connect.md")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
